package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// The comment of main.go's template that pretendOlderMain takes back to an
// older wording, and a user edit a few lines above it.
const (
	templateLine = "\t// room for two, because the second one means \"stop now\".\n"
	olderLine    = "\t// room for two signals.\n"
	userLine     = "\t// exitConfig is what our deploy script checks.\n"
)

// pretendOlderMain makes the service in dir look as if an older gsgen had
// written its main.go with olderLine, and the user had then edited it with
// edit (applied to the older file).
func pretendOlderMain(t *testing.T, dir string, edit func(string) string) {
	t.Helper()
	mainGo := "cmd/" + filepath.Base(dir) + "/main.go"
	current, err := os.ReadFile(filepath.Join(dir, mainGo))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(current), templateLine) {
		t.Fatalf("%s lacks the template line", mainGo)
	}
	older := strings.Replace(string(current), templateLine, olderLine, 1)
	lockB, _ := os.ReadFile(filepath.Join(dir, servicedir.LockFile))
	lock, err := servicedir.ParseLock(lockB)
	if err != nil {
		t.Fatal(err)
	}
	baseB, _ := os.ReadFile(filepath.Join(dir, generator.BaseFile))
	base, err := generator.ParseBase(baseB)
	if err != nil {
		t.Fatal(err)
	}
	content := map[string][]byte{}
	for _, e := range lock {
		if b, ok := base.Of(e); ok {
			content[e.Hash] = b
		}
	}
	e := lock[mainGo]
	e.Hash = servicedir.Hash([]byte(older))
	lock[mainGo] = e
	content[e.Hash] = []byte(older)
	writeFile(t, filepath.Join(dir, servicedir.LockFile), string(lock.Bytes()))
	writeFile(t, filepath.Join(dir, generator.BaseFile), string(generator.EncodeBase("v0.25.0", lock, content)))
	writeFile(t, filepath.Join(dir, mainGo), edit(older))
}

func addUserLine(s string) string {
	return strings.Replace(s, "\texitConfig = 2", userLine+"\texitConfig = 2", 1)
}

func TestUpgradeCommand(t *testing.T) {
	root := t.TempDir()
	dir := newService(t, root, "orders")
	pretendOlderMain(t, dir, addUserLine)

	code, stdout, stderr := gsgen(t, "upgrade", dir, "--dry-run")
	if code != exitOK || !strings.Contains(stdout, "overwrite cmd/orders/main.go (merged: your edits and gsgen's changes)") ||
		!strings.Contains(stdout, "written by gsgen v0.25.0; upgrading to gsgen "+generator.Version) ||
		!strings.Contains(stdout, "+"+templateLine) || !strings.Contains(stdout, "dry run: nothing written") {
		t.Fatalf("upgrade --dry-run: exit %d\n%s%s", code, stdout, stderr)
	}
	before := snapshot(t, root)
	if code, stdout, stderr := gsgen(t, "upgrade", dir); code != exitOK {
		t.Fatalf("upgrade: exit %d\n%s%s", code, stdout, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "cmd/orders/main.go"))
	if !strings.Contains(string(b), templateLine) || !strings.Contains(string(b), userLine) {
		t.Errorf("main.go lacks gsgen's change or the user's edit:\n%s", b)
	}
	if sameSnapshot(before, snapshot(t, root)) {
		t.Error("upgrade wrote nothing")
	}
	// The upgrade is done: a second one writes nothing.
	before = snapshot(t, root)
	if code, stdout, stderr := gsgen(t, "upgrade", dir); code != exitOK || !sameSnapshot(before, snapshot(t, root)) {
		t.Errorf("second upgrade: exit %d, or it changed the service\n%s%s", code, stdout, stderr)
	}
}

// An edit on the lines gsgen changed: exit 1, nothing written, the hunk
// listed; with --conflicts=markers the file gets diff3 markers, and exit 1
// says the service does not build yet.
func TestUpgradeCommandConflict(t *testing.T) {
	root := t.TempDir()
	dir := newService(t, root, "orders")
	pretendOlderMain(t, dir, func(s string) string { return strings.Replace(s, olderLine, "\t// room for two: my words.\n", 1) })
	before := snapshot(t, root)
	code, stdout, stderr := gsgen(t, "upgrade", dir)
	if code != exitFailure || !strings.Contains(stdout, "conflict  cmd/orders/main.go line ") || !strings.Contains(stdout, "my words") ||
		!strings.Contains(stderr, "nothing was written") {
		t.Errorf("upgrade: exit %d\n%s%s", code, stdout, stderr)
	}
	if !sameSnapshot(before, snapshot(t, root)) {
		t.Error("a conflicting upgrade changed the service")
	}
	if code, _, stderr := gsgen(t, "upgrade", dir, "--conflicts=later"); code != exitBadInput || !strings.Contains(stderr, "--conflicts is stop or markers") {
		t.Errorf("--conflicts=later: exit %d: %s", code, stderr)
	}
	code, _, stderr = gsgen(t, "upgrade", dir, "--conflicts=markers")
	if code != exitFailure || !strings.Contains(stderr, "will not build until you resolve them") {
		t.Errorf("--conflicts=markers: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "cmd/orders/main.go"))
	if !strings.Contains(string(b), "<<<<<<< yours\n\t// room for two: my words.\n||||||| gsgen v0.25.0") {
		t.Errorf("main.go has no markers:\n%s", b)
	}
}

// gsgen upgrade killed anywhere in its write: the tree is as before or as
// after, or the next upgrade finds what the killed one left, says so, and
// ends with the tree as after.
func TestUpgradeKilledAnywhere(t *testing.T) {
	bin := buildKilltest(t)
	template := t.TempDir()
	pretendOlderMain(t, newService(t, template, "orders"), addUserLine)
	before := snapshot(t, template)
	args := func(root string) []string { return []string{"upgrade", filepath.Join(root, "orders")} }

	scratch := t.TempDir()
	copyTree(t, template, scratch)
	h := startHooked(t, bin, 0, args(scratch)...)
	points := 0
	for h.waitFor("gsgen-test: step ") {
		points++
	}
	if code := h.wait(); code != exitOK {
		t.Fatalf("uninterrupted upgrade: exit %d\n%s", code, h.stderr.String())
	}
	after := snapshot(t, scratch)
	if sameSnapshot(before, after) || points < 3 {
		t.Fatalf("the upgrade changed nothing or has %d points", points)
	}
	counts := map[string]int{}
	for i := range 30 {
		root := t.TempDir()
		copyTree(t, template, root)
		at := 1 + rand.IntN(points)
		h := startHooked(t, bin, at, args(root)...)
		if !h.waitFor(fmt.Sprintf("gsgen-test: paused at %d", at)) {
			t.Fatalf("kill %d: never reached point %d:\n%s", i, at, h.stderr.String())
		}
		h.cmd.Process.Signal(syscall.SIGKILL)
		h.wait()
		now := snapshot(t, root)
		if sameSnapshot(now, before) || sameSnapshot(now, after) {
			counts["before or after"]++
			continue
		}
		code, _, stderr := gsgen(t, args(root)...)
		recovered := strings.Contains(stderr, "completed a write an interrupted gsgen run had begun") ||
			strings.Contains(stderr, "undid a write an interrupted gsgen run had begun") ||
			strings.Contains(stderr, "after it had written everything")
		if code != exitOK || !recovered || !sameSnapshot(snapshot(t, root), after) {
			t.Fatalf("kill %d at point %d of %d: the next upgrade (exit %d) did not recover to the tree after, or did not say so: %s\nthe killed run said:\n%s",
				i, at, points, code, stderr, withoutSteps(h.stderr.String()))
		}
		counts["recovered by the next upgrade"]++
	}
	t.Logf("30 kills at %d points: %v", points, counts)
}

// An upgrade holds the service's lock for its whole read-merge-write: a
// second run waits, then reads what the first wrote (nothing is left to
// upgrade).
func TestUpgradeHoldsTheLock(t *testing.T) {
	bin := buildKilltest(t)
	dir := newService(t, t.TempDir(), "orders")
	pretendOlderMain(t, dir, addUserLine)
	first := startHooked(t, bin, 1, "upgrade", dir)
	if !first.waitFor("gsgen-test: paused at 1") {
		t.Fatalf("the first run never took the lock:\n%s", first.stderr.String())
	}
	second := exec.Command(bin, "upgrade", dir, "--dry-run")
	var out bytes.Buffer
	second.Stdout = &out
	stderr, err := second.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	waited := false
	for !waited && sc.Scan() {
		waited = strings.HasPrefix(sc.Text(), "gsgen: "+dir+": another gsgen run is changing it; waiting")
	}
	if !waited {
		t.Fatal("the second run did not wait")
	}
	first.stdin.Write([]byte("\n"))
	if code := first.wait(); code != exitOK {
		t.Fatalf("first: exit %d\n%s", code, withoutSteps(first.stderr.String()))
	}
	for sc.Scan() {
	}
	if err := second.Wait(); err != nil {
		t.Fatalf("second: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "overwrite ") || strings.Contains(out.String(), "+++") || !strings.Contains(out.String(), "dry run: nothing written") {
		t.Errorf("the second run did not see the first's upgrade:\n%s", out.String())
	}
}

// Bad input stops upgrade with exit 2, one message naming what is wrong,
// and nothing written.
func TestUpgradeBadInput(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(dir string)
		want  string
	}{
		{"not a service", func(dir string) { os.Remove(filepath.Join(dir, "gsgen.yaml")) }, "has no gsgen.yaml"},
		{"a corrupt base", func(dir string) { os.WriteFile(filepath.Join(dir, "gsgen.base"), []byte("junk"), 0o644) }, "gsgen.base is corrupt"},
		{"a corrupt lock", func(dir string) { os.WriteFile(filepath.Join(dir, "gsgen.lock"), []byte("junk\n"), 0o644) }, "gsgen.lock is corrupt"},
		{"a newer answers format", func(dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, "gsgen.yaml"))
			os.WriteFile(filepath.Join(dir, "gsgen.yaml"), []byte(strings.Replace(string(b), "format: 1", "format: 7", 1)), 0o644)
		}, "format 7 was written by a newer gsgen"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir := newService(t, root, "orders")
			c.spoil(dir)
			before := snapshot(t, root)
			code, _, stderr := gsgen(t, "upgrade", dir)
			if code != exitBadInput || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q, want %q", code, stderr, c.want)
			}
			if !sameSnapshot(before, snapshot(t, root)) {
				t.Error("a refused upgrade changed the service")
			}
		})
	}
}
