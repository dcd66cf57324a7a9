package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// Two gsgen add kafka at once on one service: the second waits for the
// first to finish, then reads what it wrote; both consumers end up in
// gsgen.yaml and in the code, and nothing is left to regenerate. The first
// run is held inside its lock by the kill-test hook until the second says it
// waits, so the two truly overlap.
func TestConcurrentAddsLoseNoUpdate(t *testing.T) {
	bin := buildKilltest(t)
	dir := newService(t, t.TempDir(), "shop", "--components", "http,kafka")
	first := startHooked(t, bin, 1, "add", "kafka", "payments", "--dir", dir)
	if !first.waitFor("gsgen-test: paused at 1") {
		t.Fatalf("the first run never took the lock:\n%s", first.stderr.String())
	}
	second := startHooked(t, bin, 0, "add", "kafka", "refunds", "--dir", dir)
	if !second.waitFor("gsgen: " + dir + ": another gsgen run is changing it; waiting") {
		t.Fatalf("the second run did not wait:\n%s", second.stderr.String())
	}
	first.stdin.Write([]byte("\n")) // let the first run go on
	if code := first.wait(); code != exitOK {
		t.Fatalf("first: exit %d\n%s", code, withoutSteps(first.stderr.String()))
	}
	if code := second.wait(); code != exitOK {
		t.Fatalf("second: exit %d\n%s", code, withoutSteps(second.stderr.String()))
	}
	yaml, _ := os.ReadFile(filepath.Join(dir, "gsgen.yaml"))
	for _, name := range []string{"payments", "refunds"} {
		if !strings.Contains(string(yaml), "name: "+name) {
			t.Errorf("gsgen.yaml lost the consumer %s:\n%s", name, yaml)
		}
		if _, err := os.Stat(filepath.Join(dir, "internal/consumer", name+"_handler.go")); err != nil {
			t.Errorf("no handler for %s: %v", name, err)
		}
	}
	if out := mustGsgen(t, "regen", dir, "--dry-run"); strings.Contains(out, "+++") {
		t.Errorf("the service is not what its gsgen.yaml gives:\n%s", out)
	}
}

// A run that cannot get the lock in time refuses with exitLocked and writes nothing.
func TestBusyServiceIsRefused(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop")
	held, err := servicedir.OpenServiceDir(dir, false, nil) // another run, holding the lock
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	defer func(wait time.Duration) { servicedir.LockWait = wait }(servicedir.LockWait)
	servicedir.LockWait = 0
	before := treeHash(t, dir)
	code, _, stderr := gsgen(t, "add", "outbox", "--dir", dir)
	if code != exitLocked || !strings.Contains(stderr, "another gsgen run is still changing it") || !strings.Contains(stderr, "wait for that run to finish, then run this again") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if treeHash(t, dir) != before {
		t.Error("a refused run changed the service")
	}
}

// A run that waited for gsgen new to create DIR works on the DIR it
// created, not on the parent it first found.
func TestRunWaitingForNewSeesTheService(t *testing.T) {
	bin := buildKilltest(t)
	dir := filepath.Join(t.TempDir(), "shop")
	creating := startHooked(t, bin, 2, "new", dir, "--yes")
	if !creating.waitFor("gsgen-test: paused at 2") {
		t.Fatalf("new never paused:\n%s", creating.stderr.String())
	}
	adding := startHooked(t, bin, 0, "add", "outbox", "--dir", dir)
	if !adding.waitFor("gsgen: " + dir + ": another gsgen run is changing it; waiting") {
		t.Fatalf("add did not wait:\n%s", adding.stderr.String())
	}
	creating.stdin.Write([]byte("\n"))
	if code := creating.wait(); code != exitOK {
		t.Fatalf("new: exit %d\n%s", code, withoutSteps(creating.stderr.String()))
	}
	if code := adding.wait(); code != exitOK {
		t.Fatalf("add: exit %d\n%s", code, withoutSteps(adding.stderr.String()))
	}
	if _, err := os.Stat(filepath.Join(dir, "internal/outbox/relay.go")); err != nil {
		t.Errorf("the outbox was not added to the new service: %v", err)
	}
}
