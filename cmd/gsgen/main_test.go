package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gsgen runs the CLI in-process with no terminal on stdin.
func gsgen(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// treeHash fingerprints every path, mode and byte under dir ("" if missing).
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && os.IsNotExist(err) {
				return fs.SkipAll
			}
			return err
		}
		info, _ := d.Info()
		fmt.Fprintf(h, "%s %v\n", p, info.Mode())
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			h.Write(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
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

// TestBadInput: every bad input exits 2 with one line naming what is wrong,
// and leaves the target directory exactly as it was.
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
	}
	for name, content := range files {
		writeFile(t, filepath.Join(root, name), content)
	}
	fresh := filepath.Join(root, "orders")
	cases := []struct {
		name string
		args []string
		want string // in the one-line error
	}{
		{"no DIR", []string{"new", "--yes"}, "takes one argument"},
		{"two DIRs", []string{"new", fresh, "other", "--yes"}, "takes one argument"},
		{"unknown flag", []string{"new", fresh, "--yes", "--colour"}, "unknown flag: --colour"},
		{"bad module", []string{"new", fresh, "--yes", "--module", "example.com/my orders"}, "module:"},
		{"module with leading dash", []string{"new", fresh, "--yes", "--module", "-orders"}, "module:"},
		{"empty module", []string{"new", fresh, "--yes", "--module", ""}, "--module: is empty"},
		{"upper-case name", []string{"new", fresh, "--yes", "--name", "Orders"}, "name:"},
		{"name with path", []string{"new", fresh, "--yes", "--name", "../orders"}, "name:"},
		{"keyword name", []string{"new", fresh, "--yes", "--name", "go"}, "Go keyword"},
		{"DIR base name invalid", []string{"new", filepath.Join(root, "My_Service"), "--yes"}, "name:"},
		{"unknown component", []string{"new", fresh, "--yes", "--components", "http,grpc"}, `unknown component "grpc"`},
		{"empty components", []string{"new", fresh, "--yes", "--components", ""}, "--components: is empty"},
		{"duration without unit", []string{"new", fresh, "--yes", "--grace", "60"}, `invalid argument "60" for "--grace"`},
		{"duration not a duration", []string{"new", fresh, "--yes", "--http-shutdown", "soon"}, `"--http-shutdown"`},
		{"zero duration", []string{"new", fresh, "--yes", "--margin", "0s"}, "--margin: 0s must be positive"},
		{"negative duration", []string{"new", fresh, "--yes", "--prestop", "-1s"}, "--prestop: -1s must be positive"},
		{"ladder broken by grace", []string{"new", fresh, "--yes", "--grace", "30s"}, "timeouts.grace: 30s is shorter than"},
		{"ladder broken by drain", []string{"new", fresh, "--yes", "--http-shutdown", "2m"}, "shorter than preStop 10s + HTTP drain 120s"},
		{"port out of range", []string{"new", fresh, "--yes", "--http-port", "0"}, "--http-port: 0 is not a TCP port"},
		{"non-empty DIR", []string{"new", notEmpty, "--yes"}, "exists and is not empty"},
		{"DIR is a file", []string{"new", aFile, "--yes", "--force"}, "not a directory"},
		{"unwritable target", []string{"new", "/proc/gsgen-test/orders", "--yes"}, "DIR: cannot write in /proc"},
		{"consumer named twice", []string{"new", fresh, "--yes", "--components", "http,kafka", "--consumer", "pay", "--consumer", "pay:payments"}, `kafka[1].name: "pay" is used twice`},
		{"consumer name traversal", []string{"new", fresh, "--yes", "--components", "kafka", "--consumer", "../../etc:x"}, `kafka[0].name: "../../etc" is not a valid name`},
		{"consumer topic invalid", []string{"new", fresh, "--yes", "--components", "kafka", "--consumer", "pay:a topic"}, `kafka[0].topic: "a topic" is not a valid Kafka topic name`},
		{"task timeout over asynq shutdown", []string{"new", fresh, "--yes", "--components", "http,asynq", "--task-timeout", "30s"}, "timeouts.task_timeout: asynq task timeout 30s is longer than"},
		{"sub-second task timeout", []string{"new", fresh, "--yes", "--components", "asynq", "--task-timeout", "1500ms"}, "not a whole number of seconds"},
		{"fractional grace", []string{"new", fresh, "--yes", "--grace", "60500ms"}, "timeouts.grace"},
		{"timeout overflow", []string{"new", fresh, "--yes", "--prestop", "2562047h", "--http-shutdown", "2562047h"}, "timeouts.prestop: 2562047h is longer than 24h"},
		{"outbox batch over drain", []string{"new", fresh, "--yes", "--components", "outbox", "--outbox-batch-timeout", "30s"}, "outbox.batch_timeout"},
		{"unknown asynq mode", []string{"new", fresh, "--yes", "--components", "asynq", "--asynq-mode", "threads"}, `asynq.mode: unknown mode "threads"`},
		{"missing answers file", []string{"new", fresh, "-f", filepath.Join(root, "nope.yaml")}, "--config: cannot read answers file"},
		{"answers file unknown key", []string{"new", fresh, "-f", filepath.Join(root, "unknown-key.yaml")}, `unknown-key.yaml:3: timeouts.gracee: unknown key; did you mean "grace"?`},
		{"answers file bad yaml", []string{"new", fresh, "-f", filepath.Join(root, "bad-yaml.yaml")}, "not valid YAML"},
		{"answers file bad duration", []string{"new", fresh, "-f", filepath.Join(root, "bad-dur.yaml")}, `bad-dur.yaml:3: timeouts.grace: "1 minute" is not a duration`},
		{"answers file broken ladder", []string{"new", fresh, "-f", filepath.Join(root, "ladder.yaml")}, "timeouts.grace: 20s"},
		{"answers file unknown component", []string{"new", fresh, "-f", filepath.Join(root, "components.yaml")}, `unknown component "soap"`},
		{"no terminal, no answers", []string{"new", fresh}, "stdin is not a terminal"},
		{"plan broken ladder", []string{"plan", "--grace", "10s"}, "timeouts.grace"},
		{"plan DIR without gsgen.yaml", []string{"plan", notEmpty}, "has no gsgen.yaml"},
		{"plan two args", []string{"plan", "a", "b"}, "at most one DIR"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := treeHash(t, root)
			code, _, stderr := gsgen(t, c.args...)
			if code != exitBadInput {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitBadInput, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, c.want)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 {
				t.Errorf("stderr has %d lines, want one:\n%s", lines, stderr)
			}
			if after := treeHash(t, root); after != before {
				t.Errorf("bad input changed the file system under %s", root)
			}
		})
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

func TestPlanBrokenShowsBudget(t *testing.T) {
	code, stdout, stderr := gsgen(t, "plan", "--grace", "30s")
	if code != exitBadInput {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(stdout, "11s past SIGKILL") || !strings.Contains(stdout, "ladder: BROKEN") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if !strings.Contains(stderr, "use grace 41s or more, or shorten http_shutdown to 14s") {
		t.Errorf("stderr: %s", stderr)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := gsgen(t, "version")
	if code != exitOK || !strings.HasPrefix(stdout, "gsgen ") {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
}
