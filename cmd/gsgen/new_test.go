package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewWritesServiceAndSaysWhat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders")
	code, stdout, stderr := gsgen(t, "new", dir, "--yes")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"cmd/orders/main.go", "internal/httpapi/routes.go", "go.mod", "gsgen.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
		if !strings.Contains(stdout, "create    "+filepath.ToSlash(filepath.Join(dir, f))) {
			t.Errorf("stdout lacks a create line for %s", f)
		}
	}
	for _, s := range []string{"Next steps:", "make test", "worst case 41s of 60s grace", "gsgen new " + dir + " --yes"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
}

func TestNewDryRunWritesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders")
	code, stdout, stderr := gsgen(t, "new", dir, "--yes", "--dry-run")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("dry run created %s", dir)
	}
	for _, s := range []string{"create    gsgen cmd/orders/main.go", "create    user  internal/httpapi/routes.go", "nothing written"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
}

// A re-run with --force rewrites gsgen's files and never a user's.
func TestNewForceKeepsUserFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders")
	if code, _, stderr := gsgen(t, "new", dir, "--yes"); code != exitOK {
		t.Fatal(stderr)
	}
	routes := filepath.Join(dir, "internal/httpapi/routes.go")
	writeFile(t, routes, "package httpapi // my routes\n")
	code, stdout, stderr := gsgen(t, "new", dir, "--yes", "--force", "--http-shutdown", "30s", "--grace", "70s")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(routes); string(b) != "package httpapi // my routes\n" {
		t.Errorf("user-owned routes.go overwritten:\n%s", b)
	}
	if !strings.Contains(stdout, "keep      "+filepath.ToSlash(routes)) || !strings.Contains(stdout, "overwrite ") {
		t.Errorf("stdout:\n%s", stdout)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, "internal/config/config.go"))
	if !strings.Contains(string(cfg), "30 * time.Second") {
		t.Errorf("config.go not regenerated with the new drain")
	}
}

// The printed command line gives the same service as the answers did.
func TestEquivalentCommandReproducesTheService(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "answers.yaml"), "name: shop\nmodule: github.com/acme/shop\ncomponents: [http, outbox, kafka]\nhttp:\n  port: 9090\ntimeouts:\n  grace: 75s\n  http_shutdown: 40s\noutbox:\n  batch_size: 100\nkafka:\n  - name: payments\n    topic: payments\n")
	first := filepath.Join(root, "first", "shop")
	code, stdout, stderr := gsgen(t, "new", first, "-f", filepath.Join(root, "answers.yaml"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, line, ok := strings.Cut(stdout, "Same service without questions:\n  ")
	if !ok {
		t.Fatalf("no equivalent command in:\n%s", stdout)
	}
	args := strings.Fields(strings.TrimSpace(line))[1:] // drop "gsgen"
	second := filepath.Join(root, "second", "shop")
	args[1] = second
	if code, _, stderr := gsgen(t, args...); code != exitOK {
		t.Fatalf("gsgen %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	a, b := relTree(t, first), relTree(t, second)
	if len(a) < 10 || len(a) != len(b) {
		t.Fatalf("trees have %d and %d files", len(a), len(b))
	}
	for p, content := range a {
		if b[p] != content {
			t.Errorf("%s differs between the answers file and the printed command %q", p, strings.Join(args, " "))
		}
	}
}

// The outbox's failure settings have no flags: a service that answers them
// is reproduced from its gsgen.yaml, not from a command line that would
// silently take the defaults.
func TestEquivalentCommandKeepsOutboxRetries(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "answers.yaml"), "name: shop\ncomponents: [outbox]\noutbox:\n  max_attempts: 5\n")
	dir := filepath.Join(root, "shop")
	code, stdout, stderr := gsgen(t, "new", dir, "-f", filepath.Join(root, "answers.yaml"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "gsgen new " + dir + " -f " + filepath.Join(dir, "gsgen.yaml") + " --yes"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
}

// relTree maps each file under dir, by slash path relative to dir, to its content.
func relTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A task timeout above ShutdownTimeout is refused, and accepted with a warning
// once the user says handlers are idempotent.
func TestAllowRequeueWarns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders")
	args := []string{"new", dir, "--yes", "--components", "http,asynq", "--task-timeout", "30s"}
	code, _, stderr := gsgen(t, args...)
	if code != exitBadInput || !strings.Contains(stderr, "timeouts.task_timeout") {
		t.Fatalf("without --asynq-allow-requeue: exit %d, %s", code, stderr)
	}
	code, _, stderr = gsgen(t, append(args, "--asynq-allow-requeue", "--dry-run")...)
	if code != exitOK {
		t.Fatalf("with --asynq-allow-requeue: exit %d, %s", code, stderr)
	}
	if !strings.Contains(stderr, "gsgen: warning: timeouts.task_timeout: asynq task timeout 30s is longer than asynq ShutdownTimeout 25s") {
		t.Errorf("no warning on stderr: %q", stderr)
	}
}
