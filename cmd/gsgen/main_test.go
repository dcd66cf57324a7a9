package main

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// gsgen runs the CLI in-process with no terminal on stdin.
func gsgen(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return gsgenReading(t, strings.NewReader(""), args...)
}

// gsgenReading runs the CLI in-process with stdin (not a terminal).
func gsgenReading(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, stdin, &out, &errb)
	return code, out.String(), errb.String()
}

// snapshot is every path under root (relative) with its mode and the hash
// of its bytes, or the target of a link: equal snapshots are identical
// trees. Nothing is read from a FIFO or a device; a missing root is empty.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && os.IsNotExist(err) {
				return fs.SkipAll
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = info.Mode().String()
		switch {
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			out[rel] += fmt.Sprintf(" %x", sha256.Sum256(b))
			return err
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] += " -> " + target
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// treeHash fingerprints the snapshot of dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	s := snapshot(t, dir)
	h := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(s)) {
		fmt.Fprintf(h, "%s %s\n", p, s[p])
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// badInput is one hostile input: the command line (built by setup, in a
// folder of the case's own, when it needs files), what stdin gives, a part
// of the one-line message it must get, and its exit code when the cause is
// not an answer to change (exitBadInput when 0).
type badInput struct {
	name  string
	args  []string
	setup func(t *testing.T, dir string) []string // prepares dir and returns the args
	stdin io.Reader
	want  string
	code  int
}

// huge is a value no message may repeat whole.
var huge = strings.Repeat("x", 100<<10)

// TestBadInput: every bad input exits 2 (or the code of its cause: a file
// system in the way, a lock held, a journal left) with one line, at most a
// few hundred bytes, naming what is wrong and how to fix it, and leaves every
// file and mode under the test's root exactly as it was.
func TestBadInput(t *testing.T) {
	t.Setenv("ACCESSIBLE", "") // a developer's ACCESSIBLE would turn the refusals into prompts
	root := t.TempDir()
	notEmpty := filepath.Join(root, "not-empty")
	writeFile(t, filepath.Join(notEmpty, "main.go"), "package main // mine\n")
	aFile := filepath.Join(root, "a-file")
	writeFile(t, aFile, "x")
	files := map[string]string{
		"unknown-key.yaml": "name: orders\ntimeouts:\n  gracee: 60s\n",
		"bad-yaml.yaml":    "name: [orders\n",
		"bad-dur.yaml":     "name: orders\ntimeouts:\n  grace: 1 minute\n",
		"ladder.yaml":      "name: orders\ntimeouts:\n  grace: 20s\n",
		"components.yaml":  "name: orders\ncomponents: [http, soap]\n",
		"huge-key.yaml":    "name: orders\n" + huge + ": 1\n",
		"huge-value.yaml":  "name: orders\ntimeouts:\n  grace: " + huge + "\n",
		"big.yaml":         "name: orders\n#" + strings.Repeat("-", 2<<20) + "\n",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(root, name), content)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "answers.fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(root, "orders")
	cases := []badInput{
		// Usage, names, components, durations, the ladder.
		{name: "no DIR", args: []string{"new", "--yes"}, want: "takes one argument"},
		{name: "two DIRs", args: []string{"new", fresh, "other", "--yes"}, want: "takes one argument"},
		{name: "unknown flag", args: []string{"new", fresh, "--yes", "--colour"}, want: "unknown flag: --colour"},
		{name: "unknown command", args: []string{"neww", fresh}, want: `unknown command "neww"; did you mean new? See gsgen --help`},
		{name: "bad module", args: []string{"new", fresh, "--yes", "--module", "example.com/my orders"}, want: "module:"},
		{name: "module with leading dash", args: []string{"new", fresh, "--yes", "--module", "-orders"}, want: "module:"},
		{name: "empty module", args: []string{"new", fresh, "--yes", "--module", ""}, want: "--module: is empty"},
		{name: "upper-case name", args: []string{"new", fresh, "--yes", "--name", "Orders"}, want: "name:"},
		{name: "name with path", args: []string{"new", fresh, "--yes", "--name", "../orders"}, want: "name:"},
		{name: "keyword name", args: []string{"new", fresh, "--yes", "--name", "go"}, want: "Go keyword"},
		{name: "DIR base name invalid", args: []string{"new", filepath.Join(root, "My_Service"), "--yes"}, want: "name:"},
		{name: "unknown component", args: []string{"new", fresh, "--yes", "--components", "http,graphql"}, want: `unknown component "graphql"`},
		{name: "empty components", args: []string{"new", fresh, "--yes", "--components", ""}, want: "--components: is empty"},
		{name: "duration without unit", args: []string{"new", fresh, "--yes", "--grace", "60"}, want: `invalid argument "60" for "--grace"`},
		{name: "duration not a duration", args: []string{"new", fresh, "--yes", "--http-shutdown", "soon"}, want: `"--http-shutdown"`},
		{name: "zero duration", args: []string{"new", fresh, "--yes", "--margin", "0s"}, want: "--margin: 0s must be positive"},
		{name: "negative duration", args: []string{"new", fresh, "--yes", "--prestop", "-1s"}, want: "--prestop: -1s must be positive"},
		{name: "ladder broken by grace", args: []string{"new", fresh, "--yes", "--grace", "30s"}, want: "timeouts.grace: 30s is shorter than"},
		{name: "ladder broken by drain", args: []string{"new", fresh, "--yes", "--http-shutdown", "2m"}, want: "shorter than preStop 10s + HTTP drain 120s"},
		{name: "port out of range", args: []string{"new", fresh, "--yes", "--http-port", "0"}, want: "--http-port: 0 is not a TCP port"},
		{name: "consumer named twice", args: []string{"new", fresh, "--yes", "--components", "http,kafka", "--consumer", "pay", "--consumer", "pay:payments"}, want: `kafka[1].name: "pay" is used twice`},
		{name: "consumer name traversal", args: []string{"new", fresh, "--yes", "--components", "kafka", "--consumer", "../../etc:x"}, want: `kafka[0].name: "../../etc" is not a valid name`},
		{name: "consumer topic invalid", args: []string{"new", fresh, "--yes", "--components", "kafka", "--consumer", "pay:a topic"}, want: `kafka[0].topic: "a topic" is not a valid Kafka topic name`},
		{name: "task timeout over asynq shutdown", args: []string{"new", fresh, "--yes", "--components", "http,asynq", "--task-timeout", "30s"}, want: "timeouts.task_timeout: asynq task timeout 30s is longer than"},
		{name: "sub-second task timeout", args: []string{"new", fresh, "--yes", "--components", "asynq", "--task-timeout", "1500ms"}, want: "not a whole number of seconds"},
		{name: "fractional grace", args: []string{"new", fresh, "--yes", "--grace", "60500ms"}, want: "timeouts.grace"},
		{name: "timeout overflow", args: []string{"new", fresh, "--yes", "--prestop", "2562047h", "--http-shutdown", "2562047h"}, want: "timeouts.prestop: 2562047h is longer than 24h"},
		{name: "outbox batch over drain", args: []string{"new", fresh, "--yes", "--components", "outbox", "--outbox-batch-timeout", "30s"}, want: "outbox.batch_timeout"},
		{name: "unknown asynq mode", args: []string{"new", fresh, "--yes", "--components", "asynq", "--asynq-mode", "threads"}, want: `asynq.mode: unknown mode "threads"`},
		{name: "no terminal, no answers", args: []string{"new", fresh}, want: "stdin is not a terminal"},
		{name: "plan broken ladder", args: []string{"plan", "--grace", "10s"}, want: "timeouts.grace"},
		{name: "plan DIR without gsgen.yaml", args: []string{"plan", notEmpty}, want: "has no gsgen.yaml"},
		{name: "plan two args", args: []string{"plan", "a", "b"}, want: "at most one DIR"},

		// Answers files: bounded, regular, checked before reading.
		{name: "missing answers file", args: []string{"new", fresh, "-f", filepath.Join(root, "nope.yaml")}, want: "--config: cannot read answers file"},
		{name: "answers file unknown key", args: []string{"new", fresh, "-f", filepath.Join(root, "unknown-key.yaml")}, want: `unknown-key.yaml:3: timeouts.gracee: unknown key; did you mean "grace"?`},
		{name: "answers file bad yaml", args: []string{"new", fresh, "-f", filepath.Join(root, "bad-yaml.yaml")}, want: "not valid YAML"},
		{name: "answers file bad duration", args: []string{"new", fresh, "-f", filepath.Join(root, "bad-dur.yaml")}, want: `bad-dur.yaml:3: timeouts.grace: "1 minute" is not a duration`},
		{name: "answers file broken ladder", args: []string{"new", fresh, "-f", filepath.Join(root, "ladder.yaml")}, want: "timeouts.grace: 20s"},
		{name: "answers file unknown component", args: []string{"new", fresh, "-f", filepath.Join(root, "components.yaml")}, want: `unknown component "soap"`},
		{name: "answers file /dev/zero", args: []string{"new", fresh, "-f", "/dev/zero"}, want: `--config: "/dev/zero" is a device, not a regular file`},
		{name: "answers file /dev/urandom", args: []string{"new", fresh, "-f", "/dev/urandom"}, want: `"/dev/urandom" is a device, not a regular file`},
		{name: "answers file a FIFO", args: []string{"new", fresh, "-f", filepath.Join(root, "answers.fifo")}, want: "is a FIFO, not a regular file"},
		{name: "answers file empty name", args: []string{"new", fresh, "-f", ""}, want: "--config: is empty; name an answers file"},
		{name: "answers file a directory", args: []string{"new", fresh, "-f", root}, want: "is a directory"},
		{name: "answers file over 1 MiB", args: []string{"new", fresh, "-f", filepath.Join(root, "big.yaml")}, want: "an answers file may have 1024 KiB at most"},
		{name: "answers on stdin over 1 MiB", args: []string{"new", fresh, "-f", "-"}, stdin: strings.NewReader(strings.Repeat("#", 2<<20)), want: "--config: the answers are larger than 1024 KiB"},
		{name: "answers on stdin not YAML", args: []string{"new", fresh, "-f", "-"}, stdin: strings.NewReader("name: [x\n"), want: "stdin: not valid YAML"},
		{name: "plan answers file /dev/zero", args: []string{"plan", "-f", "/dev/zero"}, want: "is a device"},

		// Accessible prompts: a line gsgen cannot take whole ends the answers.
		{name: "prompt line over 64 KiB", args: []string{"new", fresh, "--accessible"}, stdin: strings.NewReader(strings.Repeat("a", 64<<10+1) + "\n"), want: "stdin: line 1 is longer than 4096 bytes"},
		{name: "prompt line not UTF-8", args: []string{"new", fresh, "--accessible"}, stdin: strings.NewReader("orders\xff\n"), want: "stdin: line 1 is not valid UTF-8"},
		{name: "prompt line 3 too long", args: []string{"new", fresh, "--accessible"}, stdin: strings.NewReader("\n\n" + strings.Repeat("9", 5000) + "\n"), want: "line 3 is longer than 4096 bytes"},
		{name: "prompt read error", args: []string{"new", fresh, "--accessible"}, stdin: iotest.ErrReader(errors.New("input/output error")), want: "stdin: reading line 1 failed: input/output error"},
		{name: "prompt input ends", args: []string{"new", fresh, "--accessible"}, stdin: strings.NewReader("\n"), want: "stdin: input ended at"},

		// Echoed values are cut short.
		{name: "huge name", args: []string{"new", fresh, "--yes", "--name", huge}, want: `name: "` + huge[:80] + `…" is 102400 characters long`},
		{name: "huge module", args: []string{"new", fresh, "--yes", "--module", huge}, want: "module: \"" + huge[:80] + "…\" is not a valid Go module path"},
		{name: "huge duration", args: []string{"new", fresh, "--yes", "--grace", huge}, want: `invalid argument "` + huge[:80] + `…" for "--grace" flag`},
		{name: "huge duration with =", args: []string{"new", fresh, "--yes", "--grace=" + huge}, want: `invalid argument "` + huge[:80] + `…"`},
		{name: "huge unknown flag", args: []string{"new", fresh, "--" + huge}, want: "unknown flag: --" + huge[:80] + "…"},
		{name: "huge unknown command", args: []string{huge}, want: `unknown command "` + huge[:80] + `…"`},
		{name: "huge consumer", args: []string{"new", fresh, "--yes", "--components", "kafka", "--consumer", huge}, want: `kafka[0].name: "` + huge[:80] + `…" is 102400 characters long; use a name of at most 40 characters`},
		{name: "huge topic", args: []string{"new", fresh, "--yes", "--components", "outbox", "--outbox-topic", huge}, want: "is not a valid Kafka topic name"},
		{name: "huge asynq mode", args: []string{"new", fresh, "--yes", "--components", "asynq", "--asynq-mode", huge}, want: "asynq.mode: unknown mode"},
		{name: "huge components", args: []string{"new", fresh, "--yes", "--components", huge}, want: "unknown component"},
		{name: "answers file huge key", args: []string{"new", fresh, "-f", filepath.Join(root, "huge-key.yaml")}, want: "not valid YAML"},
		{name: "answers file huge value", args: []string{"new", fresh, "-f", filepath.Join(root, "huge-value.yaml")}, want: "is not a duration"},
		{name: "huge DIR", args: []string{"new", strings.Repeat("d/", 2500) + "orders", "--yes"}, want: "is 5006 bytes long; give a path of at most 4096 bytes"},

		// Validation holes: names that collide once mapped, bounds.
		{name: "consumers events2 and events-2", args: []string{"new", fresh, "--yes", "--components", "kafka", "--consumer", "events2", "--consumer", "events-2"}, want: `kafka[1].name: "events-2" and kafka[0].name "events2" both become the Go name "Events2Consumer"`},
		{name: "worker name over 63", args: []string{"new", fresh, "--yes", "--name", "w" + strings.Repeat("o", 56), "--components", "asynq"}, want: `64 characters long; Kubernetes allows 63; use a name of at most 56 characters`},
		{name: "postgres secret name over 63", args: []string{"new", fresh, "--yes", "--name", "p" + strings.Repeat("o", 55), "--components", "outbox"}, want: `-postgres", 65 characters long; Kubernetes allows 63; use a name of at most 54 characters`},
		{name: "outbox batch size overflows int32", args: []string{"new", fresh, "--yes", "--components", "outbox", "--outbox-batch-size", "3000000000"}, want: "outbox.batch_size: 3000000000 is more than 10000, the most the service accepts"},
		{name: "asynq concurrency over the limit", args: []string{"new", fresh, "--yes", "--components", "asynq", "--asynq-concurrency", "1001"}, want: "asynq.concurrency: 1001 is more than 1000"},

		// DIR itself.
		{name: "non-empty DIR", args: []string{"new", notEmpty, "--yes"}, want: "exists and is not empty"},
		{name: "DIR is a file", args: []string{"new", aFile, "--yes", "--force"}, want: "not a directory"},
		{name: "unwritable target", args: []string{"new", "/proc/gsgen-test/orders", "--yes"}, want: "DIR: cannot write in /proc", code: exitIO},
		{name: "DIR under a file", args: []string{"new", filepath.Join(aFile, "orders"), "--yes"}, want: "is a file, so"},
		{name: "DIR a dangling link", setup: func(t *testing.T, dir string) []string {
			link := filepath.Join(dir, "orders")
			os.Symlink(filepath.Join(dir, "gone"), link)
			return []string{"new", link, "--yes"}
		}, want: "is a symbolic link to"},
		{name: "DIR under a dangling link", setup: func(t *testing.T, dir string) []string {
			os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "link"))
			return []string{"new", filepath.Join(dir, "link", "orders"), "--yes"}
		}, want: "which does not exist; create the directory it points to, or remove the link"},
		{name: "regen a dangling link", setup: func(t *testing.T, dir string) []string {
			os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "svc"))
			return []string{"regen", filepath.Join(dir, "svc")}
		}, want: "is a symbolic link to"},
		{name: "regen a missing DIR", args: []string{"regen", filepath.Join(root, "missing")}, want: "has no gsgen.yaml"},

		// new never overwrites.
		{name: "new --force over the user's files", setup: func(t *testing.T, dir string) []string {
			for _, f := range []string{"README.md", "Makefile", "Dockerfile"} {
				writeFile(t, filepath.Join(dir, "orders", f), "mine\n")
			}
			return []string{"new", filepath.Join(dir, "orders"), "--yes", "--force"}
		}, want: "gsgen new never overwrites a file, and 3 that it would write exist"},
		{name: "new --force over a service", setup: func(t *testing.T, dir string) []string {
			return []string{"new", service(t, dir), "--yes", "--force", "--http-port", "9090"}
		}, want: "it is a service gsgen generated: change it with gsgen regen"},
		{name: "new --force with another module's go.mod", setup: func(t *testing.T, dir string) []string {
			writeFile(t, filepath.Join(dir, "orders", "go.mod"), "module github.com/me/thing\n\ngo 1.26\n")
			return []string{"new", filepath.Join(dir, "orders"), "--yes", "--force"}
		}, want: `go.mod: its module is "github.com/me/thing", but the service's module is "example.com/orders"`},
		{name: "new --force with a broken go.mod", setup: func(t *testing.T, dir string) []string {
			writeFile(t, filepath.Join(dir, "orders", "go.mod"), "modul x\n")
			return []string{"new", filepath.Join(dir, "orders"), "--yes", "--force"}
		}, want: "go.mod: cannot be parsed"},
		{name: "new --force where a directory is a file", setup: func(t *testing.T, dir string) []string {
			writeFile(t, filepath.Join(dir, "orders", "cmd"), "mine\n")
			return []string{"new", filepath.Join(dir, "orders"), "--yes", "--force"}
		}, want: "cmd: is a file where gsgen needs a directory", code: exitIO},

		// Containment: nothing read from gsgen.lock or found in DIR leads outside it.
		{name: "lock path leaves DIR", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			outside := filepath.Join(dir, "other", "file")
			writeFile(t, outside, "not gsgen's\n")
			appendLock(t, svc, "gsgen "+hashOf("not gsgen's\n")+"  ../other/file")
			return []string{"regen", svc}
		}, want: `"../other/file" leaves the service's directory`},
		{name: "lock path leaves DIR, --force", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			writeFile(t, filepath.Join(dir, "other", "file"), "not gsgen's\n")
			appendLock(t, svc, "gsgen "+hashOf("x")+"  ../other/file")
			return []string{"regen", svc, "--force"}
		}, want: "gsgen.lock is corrupt"},
		{name: "lock path absolute", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			appendLock(t, svc, "gsgen "+hashOf("x")+"  "+filepath.Join(dir, "abs"))
			return []string{"regen", svc}
		}, want: "is an absolute path"},
		{name: "lock path inside .git", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			writeFile(t, filepath.Join(svc, ".git", "config"), "[core]\n")
			appendLock(t, svc, "gsgen "+hashOf("[core]\n")+"  .git/config")
			return []string{"remove", "http", "--dir", svc}
		}, want: `".git/config" is inside .git`},
		{name: "lock path not clean", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			appendLock(t, svc, "gsgen "+hashOf("x")+"  a/../../x")
			return []string{"regen", svc}
		}, want: "leaves the service's directory or is not a clean path"},
		{name: "lock path with a backslash", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			appendLock(t, svc, "gsgen "+hashOf("x")+`  ..\x`)
			return []string{"regen", svc}
		}, want: "holds a backslash or a control character"},
		{name: "symlinked deploy/k8s", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			linkOut(t, svc, "deploy/k8s", filepath.Join(dir, "elsewhere"))
			return []string{"regen", svc}
		}, want: "deploy/k8s: is a symbolic link"},
		{name: "symlinked owned file", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			writeFile(t, filepath.Join(dir, "outside.go"), "package main\n")
			main := filepath.Join(svc, "cmd", "svc", "main.go")
			os.Remove(main)
			os.Symlink(filepath.Join(dir, "outside.go"), main)
			return []string{"add", "asynq", "--dir", svc}
		}, want: "cmd/svc/main.go: is a symbolic link"},
		{name: "symlink inside DIR", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			linkOut(t, svc, "README.md", "README.real")
			return []string{"regen", svc}
		}, want: "README.md: is a symbolic link (to \"README.real\"); gsgen never reads or writes through a link"},
		{name: "symlinked gsgen.yaml", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			linkOut(t, svc, "gsgen.yaml", filepath.Join(dir, "answers.yaml"))
			return []string{"regen", svc}
		}, want: "gsgen.yaml: is a symbolic link"},
		{name: "plan a symlinked gsgen.yaml", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			linkOut(t, svc, "gsgen.yaml", filepath.Join(dir, "answers.yaml"))
			return []string{"plan", svc}
		}, want: "gsgen.yaml: is a symbolic link"},
		{name: "symlinked gsgen.lock", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			linkOut(t, svc, "gsgen.lock", filepath.Join(dir, "lock"))
			return []string{"regen", svc}
		}, want: "gsgen.lock: is a symbolic link"},
		{name: "symlinked db/migrations", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir, "--components", "http,outbox")
			linkOut(t, svc, "db/migrations", filepath.Join(dir, "migrations"))
			return []string{"regen", svc}
		}, want: "db/migrations: is a symbolic link"},
		{name: "symlinked user migration", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir, "--components", "http,outbox")
			writeFile(t, filepath.Join(dir, "orders.sql"), "CREATE TABLE orders (id int);\n")
			os.Symlink(filepath.Join(dir, "orders.sql"), filepath.Join(svc, "db", "migrations", "0100_orders.sql"))
			return []string{"regen", svc}
		}, want: "db/migrations/0100_orders.sql: is a symbolic link"},
		{name: "a file replaced by a directory", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			os.Remove(filepath.Join(svc, "Dockerfile"))
			writeFile(t, filepath.Join(svc, "Dockerfile", "mine"), "x")
			return []string{"regen", svc}
		}, want: "Dockerfile: is a directory where gsgen has a file", code: exitIO},
		{name: "a directory replaced by a file", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			os.RemoveAll(filepath.Join(svc, "internal"))
			writeFile(t, filepath.Join(svc, "internal"), "x")
			return []string{"regen", svc}
		}, want: "internal: is a file where gsgen needs a directory", code: exitIO},
		{name: "an owned file replaced by a FIFO", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			os.Remove(filepath.Join(svc, "Makefile"))
			syscall.Mkfifo(filepath.Join(svc, "Makefile"), 0o644)
			return []string{"regen", svc}
		}, want: "Makefile: is not a regular file"},
		{name: "gsgen.yaml a FIFO", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			os.Remove(filepath.Join(svc, "gsgen.yaml"))
			syscall.Mkfifo(filepath.Join(svc, "gsgen.yaml"), 0o644)
			return []string{"regen", svc}
		}, want: "gsgen.yaml: is not a regular file"},
		{name: "gsgen.yaml over 1 MiB", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			b, _ := os.ReadFile(filepath.Join(svc, "gsgen.yaml"))
			writeFile(t, filepath.Join(svc, "gsgen.yaml"), string(b)+"#"+strings.Repeat("-", 2<<20)+"\n")
			return []string{"regen", svc}
		}, want: "gsgen reads at most 1 MiB here"},

		// A corrupt gsgen.lock.
		{name: "empty gsgen.lock", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			writeFile(t, filepath.Join(svc, "gsgen.lock"), "")
			return []string{"regen", svc}
		}, want: "gsgen.lock: it lists no file: gsgen.lock is corrupt; restore it from version control"},
		{name: "gsgen.lock line over 64 KB", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			appendLock(t, svc, "gsgen "+hashOf("x")+"  "+strings.Repeat("a", 70000))
			return []string{"regen", svc}
		}, want: "the line is 70072 bytes long: gsgen.lock is corrupt"},
		{name: "gsgen.lock garbage", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			writeFile(t, filepath.Join(svc, "gsgen.lock"), "\x00\xff\xfe garbage")
			return []string{"regen", svc}
		}, want: "gsgen.lock: not valid UTF-8: gsgen.lock is corrupt"},
		{name: "gsgen.lock line not a lock line", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			appendLock(t, svc, "owner hash path extra")
			return []string{"regen", svc}
		}, want: "not a lock line (owner, sha256, path): gsgen.lock is corrupt"},
		{name: "gsgen.lock path twice", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			appendLock(t, svc, "gsgen "+hashOf("x")+"  Makefile")
			return []string{"regen", svc}
		}, want: `"Makefile" is listed twice`},
		{name: "gsgen.lock a directory", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			os.Remove(filepath.Join(svc, "gsgen.lock"))
			os.Mkdir(filepath.Join(svc, "gsgen.lock"), 0o755)
			return []string{"regen", svc}
		}, want: "gsgen.lock: is a directory where gsgen has a file", code: exitIO},

		// An interrupted write gsgen cannot complete, or may not in a dry run.
		{name: "journal without a plan", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			os.Mkdir(filepath.Join(svc, ".gsgen-journal"), 0o755)
			return []string{"regen", svc}
		}, want: ".gsgen-journal: is not a journal gsgen can complete", code: exitJournal},
		{name: "journal leaving DIR", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			writeFile(t, filepath.Join(svc, ".gsgen-journal", "plan"), "gsgen journal 1\ndelete - "+hashOf("x")+" ../other\n")
			return []string{"regen", svc}
		}, want: "leaves the service's directory", code: exitJournal},
		{name: "journal pending in a dry run", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			writeFile(t, filepath.Join(svc, ".gsgen-journal", "plan"), "gsgen journal 1\n")
			return []string{"regen", svc, "--dry-run"}
		}, want: "a dry run writes nothing; run gsgen regen", code: exitJournal},

		// Another run holds the service.
		{name: "service busy", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "outbox", "--dir", busyService(t, dir)}
		}, want: "another gsgen run is still changing it", code: exitLocked},

		// Re-runs: named instances, groups, cleaners and their schema.
		{name: "add kafka events-2 beside events2", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "kafka", "events-2", "--dir", service(t, dir, "--components", "http,kafka", "--consumer", "events2")}
		}, want: `both become the Go name "Events2Consumer"`},
		{name: "add cleaner x-2 beside x2", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir, "--components", "http,outbox")
			mustGsgen(t, "add", "cleaner", "x2", "--table", "outbox_event", "--column", "dispatched_at", "--dir", svc)
			return []string{"add", "cleaner", "x-2", "--table", "outbox_event", "--column", "dispatched_at", "--dir", svc}
		}, want: `"x-2" and cleaners[0].name "x2" both become the Go name "X2Cleaner"`},
		{name: "group with a newline", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "kafka", "b", "--group", "g\n## injected", "--dir", service(t, dir, "--components", "http,kafka")}
		}, want: `kafka[1].group: "g\n## injected" is not a consumer group id gsgen accepts`},
		{name: "group with a space", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "kafka", "b", "--group", "my group", "--dir", service(t, dir, "--components", "http,kafka")}
		}, want: "is not a consumer group id gsgen accepts"},
		{name: "two consumers, one group", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "kafka", "b", "--group", "svc-events", "--dir", service(t, dir, "--components", "http,kafka")}
		}, want: `both become the Kafka group "svc-events"`},
		{name: "huge consumer name on add", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "kafka", huge, "--dir", service(t, dir, "--components", "http,kafka")}
		}, want: "is 102400 characters long; use a name of at most 40 characters"},
		{name: "huge name on remove", setup: func(t *testing.T, dir string) []string {
			return []string{"remove", "kafka", huge, "--dir", service(t, dir, "--components", "http,kafka")}
		}, want: `no consumer named "` + huge[:80] + `…"`},
		{name: "cleaner batch over the limit", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "cleaner", "x", "--table", "outbox_event", "--column", "dispatched_at", "--batch", "10001", "--dir", service(t, dir, "--components", "http,outbox")}
		}, want: "cleaners[0].batch_size: 10001 is more than 10000"},
		{name: "cleaner retention of centuries", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "cleaner", "x", "--table", "outbox_event", "--column", "dispatched_at", "--retention", "1000000h", "--dir", service(t, dir, "--components", "http,outbox")}
		}, want: "retention: 1000000h is more than 87600h"},
		{name: "cleaner on a missing column", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "cleaner", "x", "--table", "orders", "--column", "expired_at", "--dir", userTableService(t, dir)}
		}, want: `table orders (db/migrations/0100_orders.sql) has no column "expired_at"; name one of its timestamp columns: created_at`},
		{name: "cleaner on a text column", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "cleaner", "x", "--table", "orders", "--column", "note", "--dir", userTableService(t, dir)}
		}, want: "orders.note is text, not a timestamp"},
		{name: "cleaner key not a column", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "cleaner", "x", "--table", "orders", "--key", "uuid", "--dir", userTableService(t, dir)}
		}, want: `cleaners[0].key: table orders has no column "uuid"`},
		{name: "cleaner on gsgen's table without its component", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "cleaner", "x", "--table", "processed_event", "--column", "processed_at", "--dir", service(t, dir, "--components", "http,outbox")}
		}, want: "table processed_event comes with the kafka component, which the service does not have"},
		{name: "cleaner over a migration PostgreSQL refuses", setup: func(t *testing.T, dir string) []string {
			svc := userTableService(t, dir)
			writeFile(t, filepath.Join(svc, "db", "migrations", "0101_typo.sql"), "CRATE TABLE x (id int);\n")
			return []string{"add", "cleaner", "x", "--table", "orders", "--dir", svc}
		}, want: `db/migrations/0101_typo.sql:1: PostgreSQL cannot parse it: syntax error at or near "CRATE"`},

		// Issue 30: the commands added last round hold the same line.
		// timeline --svg never overwrites what gsgen did not write.
		{name: "timeline --svg over its own log", setup: func(t *testing.T, dir string) []string {
			log := timelineLog(t, dir)
			return []string{"timeline", "--dir", timelineService(t), log, "--svg", log}
		}, want: "exists, and gsgen never overwrites a file it did not write; name a new file, or pass --force"},
		{name: "timeline --svg --force over its own log", setup: func(t *testing.T, dir string) []string {
			log := timelineLog(t, dir)
			return []string{"timeline", "--dir", timelineService(t), log, "--svg", log, "--force"}
		}, want: "is the log being read"},
		{name: "timeline --svg over a file", setup: func(t *testing.T, dir string) []string {
			writeFile(t, filepath.Join(dir, "mine.svg"), "mine")
			return []string{"timeline", "--dir", timelineService(t), timelineLog(t, dir), "--svg", filepath.Join(dir, "mine.svg")}
		}, want: "mine.svg\" exists"},
		{name: "timeline --svg through a link", setup: func(t *testing.T, dir string) []string {
			writeFile(t, filepath.Join(dir, "target"), "mine")
			os.Symlink(filepath.Join(dir, "target"), filepath.Join(dir, "x.svg"))
			return []string{"timeline", "--dir", timelineService(t), timelineLog(t, dir), "--svg", filepath.Join(dir, "x.svg"), "--force"}
		}, want: "is a symbolic link; gsgen never writes through a link"},
		{name: "timeline --svg empty", setup: func(t *testing.T, dir string) []string {
			return []string{"timeline", "--dir", timelineService(t), timelineLog(t, dir), "--svg", ""}
		}, want: "--svg: is empty"},

		// Names whose Go identifiers or files collide, found in what the
		// templates render: by add, by the prompt, by a hand-edited gsgen.yaml.
		{name: "add worker x-2 beside x2", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			mustGsgen(t, "add", "worker", "x2", "--interval", "1m", "--dir", svc)
			return []string{"add", "worker", "x-2", "--interval", "1m", "--dir", svc}
		}, want: `workers[1].name: "x-2" gives the Go name NewX2, which workers[0].name "x2" (in internal/worker/worker.go) declares too`},
		{name: "add worker a--b beside a-b", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			mustGsgen(t, "add", "worker", "a-b", "--interval", "1m", "--dir", svc)
			return []string{"add", "worker", "a--b", "--interval", "1m", "--dir", svc}
		}, want: `"a--b" gives the Go name NewAB`},
		{name: "add worker func", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "worker", "func", "--interval", "1m", "--dir", service(t, dir)}
		}, want: `"func" gives the Go name Func, which gsgen's internal/worker/worker.go declares too`},
		{name: "add worker config", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "worker", "config", "--interval", "1m", "--dir", service(t, dir)}
		}, want: `"config" gives the Go name Config`},
		{name: "add worker new", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "worker", "new", "--interval", "1m", "--dir", service(t, dir)}
		}, want: `"new" gives the Go name New`},
		{name: "add worker x-test", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "worker", "x-test", "--interval", "1m", "--dir", service(t, dir)}
		}, want: `"x-test" names its file internal/worker/x_test.go, which Go takes for a test file`},
		{name: "add task task", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "task", "task", "--timeout", "10s", "--dir", service(t, dir)}
		}, want: `tasks[0].type: "task" gives the Go name TaskTimeout`},
		{name: "add task payload beside type", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			mustGsgen(t, "add", "task", "type", "--timeout", "10s", "--dir", svc)
			return []string{"add", "task", "payload", "--timeout", "10s", "--dir", svc}
		}, want: `tasks[1].type: "payload" gives the Go name TypePayload, which tasks[0].type "type" (in internal/tasks/type.go) declares too`},
		{name: "add task of the example's type", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "task", "email:welcome", "--timeout", "10s", "--dir", service(t, dir)}
		}, want: `"email:welcome" is the example task's type (internal/tasks/example.go) already, and asynq routes one type to one handler`},
		{name: "prompt: worker x-2 beside x2", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			mustGsgen(t, "add", "worker", "x2", "--interval", "1m", "--dir", svc)
			return []string{"add", "--accessible", "--dir", svc}
		}, stdin: strings.NewReader("5\nx-2\n"), want: `input ended at "Worker name"`},
		{name: "regen of a gsgen.yaml with workers x2 and x-2", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			appendAnswers(t, svc, "workers:\n  - name: x2\n  - name: x-2\n")
			return []string{"regen", svc}
		}, want: `workers[1].name: "x-2" gives the Go name NewX2`},
		{name: "regen of a gsgen.yaml with a worker x-test", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			appendAnswers(t, svc, "workers:\n  - name: x-test\n")
			return []string{"regen", svc}
		}, want: "which Go takes for a test file"},
		{name: "add worker with a name of 41 characters", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "worker", strings.Repeat("w", 41), "--interval", "1m", "--dir", service(t, dir)}
		}, want: "is 41 characters long; use a name of at most 40 characters"},
		{name: "add worker every nanosecond", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "worker", "hot", "--interval", "1ns", "--dir", service(t, dir)}
		}, want: "workers[0].interval: 1ns is shorter than 1s"},
		{name: "regen of asynq.queues with a space", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir, "--components", "http,asynq")
			b, _ := os.ReadFile(filepath.Join(svc, "gsgen.yaml"))
			writeFile(t, filepath.Join(svc, "gsgen.yaml"), strings.Replace(string(b), "asynq:\n", "asynq:\n  queues:\n    a b: 2\n", 1))
			return []string{"regen", svc}
		}, want: `is not a queue name gsgen accepts`},

		// A cleaner whose key does not pick one row.
		{name: "cleaner on processed_event by event_id alone", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "cleaner", "x", "--table", "processed_event", "--column", "processed_at", "--key", "event_id", "--dir", service(t, dir, "--components", "http,kafka")}
		}, want: `cleaners[1].key: "event_id" does not pick one row of processed_event, whose key is (consumer, event_id)`},

		// Flags of another kind are refused, not ignored.
		{name: "add worker --max-retry", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "worker", "n", "--interval", "1m", "--max-retry", "3", "--dir", service(t, dir)}
		}, want: "--max-retry is a flag of add task, not of add worker"},
		{name: "add worker --queue", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "worker", "n", "--interval", "1m", "--queue", "q", "--dir", service(t, dir)}
		}, want: "--queue is a flag of add task, not of add worker"},
		{name: "add worker --topic", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "worker", "n", "--interval", "1m", "--topic", "t", "--dir", service(t, dir)}
		}, want: "--topic is a flag of add kafka, not of add worker"},
		{name: "add worker --retention", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "worker", "n", "--interval", "1m", "--retention", "1h", "--dir", service(t, dir)}
		}, want: "--retention is a flag of add cleaner, not of add worker"},
		{name: "add task --interval", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "task", "a:b", "--timeout", "10s", "--interval", "1m", "--dir", service(t, dir)}
		}, want: "--interval is a flag of add cleaner and add worker, not of add task"},
		{name: "add kafka --interval", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "kafka", "k", "--interval", "1m", "--dir", service(t, dir, "--components", "http,kafka")}
		}, want: "--interval is a flag of add cleaner and add worker, not of add kafka"},
		{name: "add task --max-retry -1", setup: func(t *testing.T, dir string) []string {
			return []string{"add", "task", "a:b", "--timeout", "10s", "--max-retry", "-1", "--dir", service(t, dir)}
		}, want: "--max-retry: -1 is negative"},

		// remove asynq does not drop the task types unsaid.
		{name: "remove asynq with a task type", setup: func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			mustGsgen(t, "add", "task", "report:build", "--timeout", "10s", "--dir", svc)
			return []string{"remove", "asynq", "--dir", svc}
		}, want: "tasks: the service has task types (report:build), which run on the asynq server; remove them first (gsgen remove task report:build"},

		// An accessible select given a choice it has not, then no more input.
		{name: "prompt: kind 9", setup: addPrompt, stdin: strings.NewReader("9\n"), want: `input ended at "What to add" after an answer that is not one of its choices`},
		{name: "prompt: kind 0", setup: addPrompt, stdin: strings.NewReader("0\n"), want: "is not one of its choices"},
		{name: "prompt: kind in words", setup: addPrompt, stdin: strings.NewReader("worker\n"), want: "is not one of its choices"},
		{name: "prompt: kind a NUL", setup: addPrompt, stdin: strings.NewReader("\x00\n"), want: "is not one of its choices"},
		{name: "prompt: asynq mode 9", setup: addPrompt, stdin: strings.NewReader("2\n9\n"), want: `input ended at "asynq mode" after an answer that is not one of its choices`},

		// vet --manifests reads regular files only; vet --dir must exist.
		{name: "vet --manifests with a FIFO", setup: func(t *testing.T, dir string) []string {
			args := vetManifests(t, dir)
			syscall.Mkfifo(filepath.Join(dir, "k8s", "x.yaml"), 0o644)
			return args
		}, want: "x.yaml: is a FIFO, not a regular file"},
		{name: "vet --manifests with a link to /dev/zero", setup: func(t *testing.T, dir string) []string {
			args := vetManifests(t, dir)
			os.Symlink("/dev/zero", filepath.Join(dir, "k8s", "x.yaml"))
			return args
		}, want: "x.yaml: is a symbolic link"},
		{name: "vet --manifests with a 100 MB file", setup: func(t *testing.T, dir string) []string {
			args := vetManifests(t, dir)
			big := filepath.Join(dir, "k8s", "x.yaml")
			writeFile(t, big, "")
			os.Truncate(big, 100<<20)
			t.Cleanup(func() { os.Remove(big) }) // the later cases' snapshots need not read it
			return args
		}, want: "x.yaml: is 104857600 bytes; gsgen reads at most 8192 KiB here"},
		{name: "vet --dir missing", args: []string{"vet", "--dir", filepath.Join(root, "nonexistent")}, want: `--dir: "` + filepath.Join(root, "nonexistent") + `" does not exist`},

		// Lab markers: read and written as a service's files are.
		{name: "lab hint, marker a link out", setup: func(t *testing.T, dir string) []string {
			writeFile(t, filepath.Join(dir, "outside.json"), `{"lab": 1}`)
			os.Mkdir(filepath.Join(dir, "lab"), 0o755)
			os.Symlink(filepath.Join(dir, "outside.json"), filepath.Join(dir, "lab", ".gsgen-lab.json"))
			return []string{"lab", "hint", filepath.Join(dir, "lab")}
		}, want: ".gsgen-lab.json: is a symbolic link"},
		{name: "lab hint, marker a link to /dev/zero", setup: func(t *testing.T, dir string) []string {
			os.Symlink("/dev/zero", filepath.Join(dir, ".gsgen-lab.json"))
			return []string{"lab", "hint", dir}
		}, want: "is a symbolic link"},
		{name: "lab check, marker a FIFO", setup: func(t *testing.T, dir string) []string {
			syscall.Mkfifo(filepath.Join(dir, ".gsgen-lab.json"), 0o644)
			return []string{"lab", "check", dir}
		}, want: ".gsgen-lab.json: is not a regular file"},
		{name: "lab hint, marker a directory", setup: func(t *testing.T, dir string) []string {
			os.Mkdir(filepath.Join(dir, ".gsgen-lab.json"), 0o755)
			return []string{"lab", "hint", dir}
		}, want: ".gsgen-lab.json: is a directory", code: exitIO},
		{name: "lab hint, hints_shown -5", setup: func(t *testing.T, dir string) []string {
			writeFile(t, filepath.Join(dir, ".gsgen-lab.json"), `{"lab": 1, "hints_shown": -5}`)
			return []string{"lab", "hint", dir}
		}, want: "hints_shown: -5 is not between 0 and"},
		{name: "lab hint, hints_shown maxint64", setup: func(t *testing.T, dir string) []string {
			writeFile(t, filepath.Join(dir, ".gsgen-lab.json"), `{"lab": 1, "hints_shown": 9223372036854775807}`)
			return []string{"lab", "hint", dir}
		}, want: "hints_shown: 9223372036854775807 is not between 0 and"},
	}
	if len(cases) < 80 {
		t.Errorf("the table holds %d hostile inputs; keep at least 80", len(cases))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if c.setup != nil {
				dir := filepath.Join(root, fmt.Sprintf("case-%03d", i))
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				args = c.setup(t, dir)
			}
			stdin := c.stdin
			if stdin == nil {
				stdin = strings.NewReader("")
			}
			before := treeHash(t, root)
			code, _, stderr := gsgenReading(t, stdin, args...)
			if want := cmp.Or(c.code, exitBadInput); code != want {
				t.Errorf("exit %d, want %d; stderr: %.300s", code, want, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr = %.600q, want it to contain %.300q", stderr, c.want)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 {
				t.Errorf("stderr has %d lines, want one:\n%.600s", lines, stderr)
			}
			if len(stderr) > 1024 {
				t.Errorf("stderr is %d bytes: it repeats a value whole", len(stderr))
			}
			if after := treeHash(t, root); after != before {
				t.Errorf("bad input changed the file system under %s", root)
			}
		})
	}
}

// timelineService is the recorded service whose budget timeline reads.
func timelineService(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join(timelineData, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// timelineLog copies a recorded shutdown log into dir/a.log.
func timelineLog(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(timelineData, "idle.log"))
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "a.log")
	writeFile(t, log, string(b))
	return log
}

// appendAnswers adds YAML to the service's gsgen.yaml, as a hand edit.
func appendAnswers(t *testing.T, svc, yaml string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(svc, "gsgen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(svc, "gsgen.yaml"), string(b)+yaml)
}

// addPrompt is gsgen add with no KIND, asking in accessible mode, in a
// service of http alone (so 2 is asynq).
func addPrompt(t *testing.T, dir string) []string {
	return []string{"add", "--accessible", "--dir", service(t, dir)}
}

// vetManifests is gsgen vet of a one-file module in dir with --manifests
// dir/k8s, which the case fills.
func vetManifests(t *testing.T, dir string) []string {
	t.Helper()
	writeFile(t, filepath.Join(dir, "m", "go.mod"), "module example.com/m\n\ngo 1.22\n")
	writeFile(t, filepath.Join(dir, "m", "m.go"), "package m\n")
	os.MkdirAll(filepath.Join(dir, "k8s"), 0o755)
	return []string{"vet", "--dir", filepath.Join(dir, "m"), "--manifests", filepath.Join(dir, "k8s")}
}

// service writes a service named svc into dir/svc and returns its path.
func service(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return newService(t, dir, "svc", args...)
}

// userTableService is a service with outbox whose user migration creates
// orders(id, created_at, note).
func userTableService(t *testing.T, dir string) string {
	t.Helper()
	svc := service(t, dir, "--components", "http,outbox")
	writeFile(t, filepath.Join(svc, "db", "migrations", "0100_orders.sql"), "CREATE TABLE orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL, note text);\n")
	return svc
}

// appendLock adds a line to the service's gsgen.lock.
func appendLock(t *testing.T, svc, line string) {
	t.Helper()
	lock := filepath.Join(svc, "gsgen.lock")
	b, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, lock, string(b)+line+"\n")
}

func hashOf(s string) string { return servicedir.Hash([]byte(s)) }

// linkOut moves rel of the service to target (relative to the service when
// not absolute) and leaves a symbolic link to it in its place.
func linkOut(t *testing.T, svc, rel, target string) {
	t.Helper()
	moved := target
	if !filepath.IsAbs(target) {
		moved = filepath.Join(svc, target)
	}
	if err := os.Rename(filepath.Join(svc, rel), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(svc, rel)); err != nil {
		t.Fatal(err)
	}
}

func TestMissingAnswersSaysWhatAndHow(t *testing.T) {
	t.Setenv("ACCESSIBLE", "")
	_, _, stderr := gsgen(t, "new", filepath.Join(t.TempDir(), "orders"), "--module", "example.com/x")
	for _, s := range []string{"--components", "--grace", "--http-shutdown", "--yes", "-f gsgen.yaml"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("message lacks %q: %s", s, stderr)
		}
	}
	if strings.Contains(stderr, "--module") {
		t.Errorf("message lists --module, which was given: %s", stderr)
	}
}

func TestPlanDefaults(t *testing.T) {
	code, stdout, stderr := gsgen(t, "plan")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"preStop", "HTTP drain", "close", "margin", "worst case 41s of 60s grace: 19s to spare", "SIGKILL", "ladder: ok"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("plan output lacks %q:\n%s", s, stdout)
		}
	}
}

// plan reads a service as add and regen do, its own SQL included: a cleaner
// on a table of the user's migrations is planned, not refused as unknown.
// Inside a service, plan with no DIR plans that service.
func TestPlanReadsTheServiceAndItsSQL(t *testing.T) {
	svc := userTableService(t, t.TempDir())
	mustGsgen(t, "add", "cleaner", "old-orders", "--table", "orders", "--column", "created_at", "--dir", svc)
	code, stdout, stderr := gsgen(t, "plan", svc)
	if code != exitOK || !strings.Contains(stdout, "cleaner old-orders") {
		t.Fatalf("plan DIR: exit %d, stdout lacks the old-orders cleaner:\n%s%s", code, stdout, stderr)
	}
	t.Chdir(svc)
	code, here, stderr := gsgen(t, "plan")
	if code != exitOK || here != stdout {
		t.Errorf("plan inside the service: exit %d, output differs from plan DIR:\n%s%s", code, here, stderr)
	}
}

func TestPlanBrokenShowsBudget(t *testing.T) {
	code, stdout, stderr := gsgen(t, "plan", "--grace", "30s")
	if code != exitBadInput {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(stdout, "11s past SIGKILL") || !strings.Contains(stdout, "ladder: BROKEN") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if !strings.Contains(stderr, "use grace 41s or more, or shorten http_shutdown and worker_drain to 14s") {
		t.Errorf("stderr: %s", stderr)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := gsgen(t, "version")
	if code != exitOK || !strings.HasPrefix(stdout, "gsgen ") || !strings.Contains(stdout, "writes services as "+generator.Version+"\n") {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
}
