package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/internal/disktest"
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

// new --force writes beside the user's files and never over them: with the
// user's README.md, Makefile and Dockerfile it stops, naming them, and
// writes nothing; once they are moved away it merges go.mod, keeping the
// user's module line and requirements. Over a generated service it points to
// gsgen regen.
func TestNewForceNeverOverwrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders")
	userGoMod := "module github.com/acme/orders\n\ngo 1.26\n\nrequire github.com/google/uuid v1.6.0\n"
	mine := map[string]string{"README.md": "# my notes\n", "Makefile": "all:\n", "Dockerfile": "FROM scratch\n", "go.mod": userGoMod}
	for name, content := range mine {
		writeFile(t, filepath.Join(dir, name), content)
	}
	before := treeHash(t, dir)
	code, _, stderr := gsgen(t, "new", dir, "--yes", "--force", "--module", "github.com/acme/orders")
	if code != exitBadInput || !strings.Contains(stderr, "gsgen new never overwrites a file, and 3 that it would write exist") ||
		!strings.Contains(stderr, "Dockerfile, Makefile, README.md") || strings.Contains(stderr, "go.mod,") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if treeHash(t, dir) != before {
		t.Fatal("a refused new --force changed the directory")
	}

	for _, name := range []string{"README.md", "Makefile", "Dockerfile"} {
		os.Remove(filepath.Join(dir, name))
	}
	code, _, stderr = gsgen(t, "new", dir, "--yes", "--force")
	if code != exitBadInput || !strings.Contains(stderr, `go.mod: its module is "github.com/acme/orders", but the service's module is "example.com/orders"`) {
		t.Errorf("module mismatch: exit %d, stderr %s", code, stderr)
	}

	if code, _, stderr := gsgen(t, "new", dir, "--yes", "--force", "--module", "github.com/acme/orders"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !strings.HasPrefix(string(gomod), "module github.com/acme/orders\n") || !strings.Contains(string(gomod), "github.com/google/uuid v1.6.0") {
		t.Errorf("go.mod lost the user's module line or requirement:\n%s", gomod)
	}

	code, _, stderr = gsgen(t, "new", dir, "--yes", "--force", "--module", "github.com/acme/orders", "--http-shutdown", "30s", "--grace", "70s")
	if code != exitBadInput || !strings.Contains(stderr, "it is a service gsgen generated: change it with gsgen regen") {
		t.Errorf("over a service: exit %d, stderr %s", code, stderr)
	}
}

// A file of the user's that new --force finds and keeps is not one gsgen
// wrote: gsgen.lock and gsgen.base leave it out, before and after a regen,
// so a later upgrade leaves it alone instead of merging gsgen's stub into
// it. The same file written by a plain new is listed as the user's.
func TestNewForceLeavesAKeptFileOutOfItsRecords(t *testing.T) {
	const routes = "internal/httpapi/routes.go"
	listed := func(dir string) bool {
		lock, err := os.ReadFile(filepath.Join(dir, "gsgen.lock"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(string(lock), "  "+routes+"\n")
	}
	plain := filepath.Join(t.TempDir(), "orders")
	if code, _, stderr := gsgen(t, "new", plain, "--yes"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !listed(plain) {
		t.Fatalf("a plain gsgen new does not list %s in gsgen.lock: the check below cannot fail", routes)
	}

	dir := filepath.Join(t.TempDir(), "orders")
	mine := "package httpapi\n\n// Routes of my own, written before gsgen.\n"
	writeFile(t, filepath.Join(dir, routes), mine)
	if code, _, stderr := gsgen(t, "new", dir, "--yes", "--force"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if listed(dir) {
		t.Errorf("gsgen new --force lists the user's own %s in gsgen.lock, as if gsgen had written it", routes)
	}
	if code, _, stderr := gsgen(t, "regen", "--dir", dir); code != exitOK {
		t.Fatalf("regen: exit %d: %s", code, stderr)
	}
	if listed(dir) {
		t.Errorf("after regen, gsgen.lock lists the user's own %s", routes)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, routes)); string(got) != mine {
		t.Errorf("%s changed:\n%s", routes, got)
	}
}

// The printed command line gives the same service as the answers did.
// tracing: true comes back as --tracing.
func TestEquivalentCommandReproducesTheService(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "answers.yaml"), "name: shop\nmodule: github.com/acme/shop\ncomponents: [http, outbox, kafka]\nhttp:\n  port: 9090\ntimeouts:\n  grace: 75s\n  http_shutdown: 40s\noutbox:\n  batch_size: 100\nkafka:\n  - name: payments\n    topic: payments\ntracing: true\n")
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
	a, b := disktest.ReadTree(t, first), disktest.ReadTree(t, second)
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

// The printed cd line and command line are shell words: pasted into sh,
// they give back DIR and the answers exactly, whatever DIR holds.
func TestPrintedCommandsAreShellQuoted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "it's $(touch pwned) \"x\"", "orders")
	code, stdout, stderr := gsgen(t, "new", dir, "--yes", "--module", "example.com/orders")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	words := func(line string) []string {
		out, err := exec.Command("sh", "-c", `printf '%s\0' `+line).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	}
	_, cd, _ := strings.Cut(stdout, "Next steps:\n  ")
	cd, _, _ = strings.Cut(cd, "\n")
	if got := words(cd); len(got) != 2 || got[0] != "cd" || got[1] != dir {
		t.Errorf("cd line %q reads as %q", cd, got)
	}
	_, line, _ := strings.Cut(stdout, "Same service without questions:\n  ")
	line, _, _ = strings.Cut(line, "\n")
	if got, want := words(line), []string{"gsgen", "new", dir, "--yes"}; !slices.Equal(got, want) {
		t.Errorf("printed command reads as %q, want %q", got, want)
	}
	if _, err := os.Stat("pwned"); err == nil {
		t.Error("the printed line ran a command")
	}
}
