// Package sqlc runs sqlc over a rendered service's SQL: in a child copy of
// this executable, so an error in a query comes back as a value, with its
// output cached by sqlc's version and its inputs. It is a piece of the
// render step that knows nothing of the model: files in, files out.
package sqlc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sqlc-dev/sqlc/pkg/cli"
)

// sqlcChildEnv marks a copy of this program that Generate started to run
// sqlc and nothing else.
const sqlcChildEnv = "GSGEN_RUN_SQLC"

// sqlc is compiled into gsgen, but its generate command calls os.Exit(1) on
// any error in the SQL (a typo in a query would end gsgen itself, with no
// chance to clean up or to say which answer caused it). So Generate runs
// it in a copy of this same executable: no sqlc binary is needed on the
// machine, and an error comes back as a value. In that copy this init runs
// sqlc before main (or the test runner) starts, and exits with its status.
func init() {
	if os.Getenv(sqlcChildEnv) == "1" {
		os.Exit(cli.Run(os.Args[1:]))
	}
}

// sqlcInputs are the rendered files sqlc reads, as path.Match patterns.
var sqlcInputs = []string{"sqlc.yaml", "db/migrations/*.sql", "db/queries/*.sql"}

// Generate runs `sqlc generate` over the rendered service files (path ->
// contents; it reads sqlc.yaml, db/migrations/*.sql and db/queries/*.sql)
// and returns the Go files sqlc writes (e.g. internal/db/db.go), keyed by
// slash-separated path. An error in the SQL is returned as sqlc words it,
// with file, line and column, e.g.
//
//	sqlc: db/queries/outbox.sql:12:8: column "x" does not exist
//
// The output depends only on the inputs (sqlc's header names its pinned
// version), so it is deterministic, and cached (sqlccache.go); it is safe
// to call more than once, and at once.
func Generate(files map[string][]byte) (map[string][]byte, error) {
	if _, ok := files["sqlc.yaml"]; !ok {
		return nil, errors.New("sqlc: no sqlc.yaml among the rendered files")
	}
	key := cacheKey(files)
	if out := readCache(key); out != nil {
		return out, nil
	}
	out, err := runSQLCOn(files)
	if err == nil {
		writeCache(key, out)
	}
	return out, err
}

// runSQLCOn writes sqlc's inputs among files to a temporary directory, runs
// sqlc there and reads back what it wrote.
func runSQLCOn(files map[string][]byte) (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "gsgen-sqlc-")
	if err != nil {
		return nil, fmt.Errorf("sqlc: %w", err)
	}
	defer os.RemoveAll(dir)

	inputs := map[string]bool{}
	for name, data := range files {
		if !IsInput(name) {
			continue
		}
		inputs[name] = true
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("sqlc: %w", err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, fmt.Errorf("sqlc: %w", err)
		}
	}

	if err := runSQLC(dir); err != nil {
		return nil, err
	}

	out := map[string][]byte{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if inputs[name] {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[name] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlc: reading its output: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("sqlc: generated no files")
	}
	return out, nil
}

// IsInput reports whether sqlc reads the service file name.
func IsInput(name string) bool {
	for _, pattern := range sqlcInputs {
		if ok, _ := path.Match(pattern, name); ok {
			return true
		}
	}
	return false
}

// childRuns counts the sqlc child processes started, for tests of the cache.
var childRuns atomic.Int64

// runSQLC runs `sqlc generate` in dir, in a copy of this executable.
func runSQLC(dir string) error {
	childRuns.Add(1)
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("sqlc: cannot find gsgen's own executable to run sqlc in: %w", err)
	}
	// A few seconds at most (the first WebAssembly parse without cgo takes
	// about two); the bound only keeps a wedged child from hanging gsgen.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cmd := exec.CommandContext(ctx, self, "generate", "-f", filepath.Join(dir, "sqlc.yaml"))
	cmd.Dir = dir
	cmd.Env = append(sqlcEnv(os.Environ()), sqlcChildEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stdout = &stderr // sqlc prints nothing on success; keep anything it says for the error
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if msg := sqlcMessage(stderr.String()); msg != "" {
			return fmt.Errorf("sqlc: %s", msg)
		}
		return fmt.Errorf("sqlc: %w", err)
	}
	return nil
}

// sqlcEnv drops the variables that change what sqlc does (SQLCDEBUG,
// SQLCEXPERIMENT, SQLCCACHE), so the output depends on the inputs alone.
func sqlcEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "SQLC") && !strings.HasPrefix(kv, sqlcChildEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// sqlcMessage keeps sqlc's error lines, which already name the file
// relative to sqlc.yaml with line and column, and drops its "# package db"
// headings.
func sqlcMessage(stderr string) string {
	var lines []string
	for line := range strings.Lines(stderr) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "# package ") {
			continue
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
