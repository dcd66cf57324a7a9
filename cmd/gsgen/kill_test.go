package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// killtestBinary is gsgen built once per test process with the kill-test
// hook (generator/servicedir/pause_killtest.go): GSGEN_TEST_PAUSE_AT=N stops it at the
// Nth point of its write, where a test kills it or lets it go on.
var killtestBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "gsgen-killtest-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "gsgen")
	out, err := exec.Command("go", "build", "-tags", "gsgen_killtest", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build -tags gsgen_killtest: %v\n%s", err, out)
	}
	return bin, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if bin, err := killtestBinary(); err == nil {
		os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

func buildKilltest(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds gsgen and runs it hundreds of times; skipped with -short")
	}
	bin, err := killtestBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// hooked is a gsgen process built with the kill-test hook, stopped (or not)
// at a point of its write.
type hooked struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // stderr, line by line; closed at the end
	stderr strings.Builder
}

// startHooked starts gsgen with args, to stop at point pauseAt (0: never).
func startHooked(t *testing.T, bin string, pauseAt int, args ...string) *hooked {
	t.Helper()
	h := &hooked{cmd: exec.Command(bin, args...), lines: make(chan string, 1024)}
	h.cmd.Env = append(os.Environ(), "GSGEN_TEST_PAUSE_AT="+strconv.Itoa(pauseAt), "ACCESSIBLE=")
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stderr, err := h.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
		close(h.lines)
	}()
	return h
}

// waitFor reads stderr until a line starts with prefix; false if gsgen
// ended first.
func (h *hooked) waitFor(prefix string) bool {
	for line := range h.lines {
		h.stderr.WriteString(line + "\n")
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}

// wait reads the rest of stderr and returns the exit code (-1 when killed).
func (h *hooked) wait() int {
	h.waitFor("\x00")
	h.stdin.Close()
	h.cmd.Wait()
	return h.cmd.ProcessState.ExitCode()
}

// withoutSteps drops the hook's step lines from stderr.
func withoutSteps(stderr string) string {
	var b strings.Builder
	for line := range strings.Lines(stderr) {
		if !strings.HasPrefix(line, "gsgen-test: step ") {
			b.WriteString(line)
		}
	}
	return b.String()
}

func sameSnapshot(a, b map[string]string) bool { return maps.Equal(a, b) }

// copyTree copies the files and directories under src into dst, modes included.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, info.Mode().Perm())
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// killCase is one command run on a tree, killed at points of its write.
type killCase struct {
	name  string
	dir   string                          // the service, relative to the test's root
	setup func(t *testing.T, root string) // writes the tree before the command into root
	args  func(dir string) []string
}

// killCases are the commands of the issue: new into a fresh and into an
// empty directory, add, regen (after an edit of gsgen.yaml) and remove. The
// write is the same code whatever the components, so they leave out
// PostgreSQL and no run spends its time in sqlc; removing a dedicated asynq
// worker deletes files and the folder they empty (cmd/orders-worker).
var killCases = []killCase{
	{"new fresh", "deep/orders", func(*testing.T, string) {}, func(dir string) []string {
		return []string{"new", dir, "--yes", "--components", "http,asynq"}
	}},
	{"new into an empty dir", "orders", func(t *testing.T, root string) { os.Mkdir(filepath.Join(root, "orders"), 0o755) }, func(dir string) []string {
		return []string{"new", dir, "--yes", "--force"}
	}},
	{"add", "orders", func(t *testing.T, root string) { newService(t, root, "orders") }, func(dir string) []string {
		return []string{"add", "asynq", "--asynq-mode", "dedicated", "--dir", dir}
	}},
	{"regen", "orders", func(t *testing.T, root string) {
		dir := newService(t, root, "orders")
		yaml := filepath.Join(dir, "gsgen.yaml")
		b, _ := os.ReadFile(yaml)
		writeFile(t, yaml, strings.Replace(string(b), "components: [http]", "components: [http, asynq]", 1))
	}, func(dir string) []string { return []string{"regen", dir} }},
	{"remove", "orders", func(t *testing.T, root string) {
		newService(t, root, "orders", "--components", "http,asynq", "--asynq-mode", "dedicated")
	}, func(dir string) []string { return []string{"remove", "asynq", "--dir", dir} }},
}

// TestKilledAnywhereIsBeforeOrAfter kills gsgen at random points of its
// write, 50 times per command. Right after the kill the tree must be as
// before or as after the command, or the next gsgen run in it (regen) must
// find what the killed run left and bring it to one of them, saying so. A
// quarter of the time that next run is killed too, and a third run finishes.
func TestKilledAnywhereIsBeforeOrAfter(t *testing.T) {
	bin := buildKilltest(t)
	const kills = 50
	for _, kc := range killCases {
		t.Run(kc.name, func(t *testing.T) {
			t.Parallel()
			template := t.TempDir()
			kc.setup(t, template)
			before := snapshot(t, template)

			// One run to the end: the tree after, and how many points the write has.
			scratch := t.TempDir()
			copyTree(t, template, scratch)
			h := startHooked(t, bin, 0, kc.args(filepath.Join(scratch, kc.dir))...)
			points := 0
			for h.waitFor("gsgen-test: step ") {
				points++
			}
			if code := h.wait(); code != exitOK {
				t.Fatalf("uninterrupted run: exit %d\n%s", code, h.stderr.String())
			}
			after := snapshot(t, scratch)
			if sameSnapshot(before, after) || points < 3 {
				t.Fatalf("the command changed nothing or has %d points", points)
			}

			counts := map[string]int{}
			for i := range kills {
				root := t.TempDir()
				copyTree(t, template, root)
				at := 1 + rand.IntN(points)
				h := startHooked(t, bin, at, kc.args(filepath.Join(root, kc.dir))...)
				if !h.waitFor(fmt.Sprintf("gsgen-test: paused at %d", at)) {
					t.Fatalf("kill %d: never reached point %d:\n%s", i, at, h.stderr.String())
				}
				h.cmd.Process.Signal(syscall.SIGKILL)
				h.wait()
				now := snapshot(t, root)
				switch {
				case sameSnapshot(now, before):
					counts["before"]++
					continue
				case sameSnapshot(now, after):
					counts["after"]++
					continue
				}
				next := []string{"regen", filepath.Join(root, kc.dir)}
				said, nextKilled := "", false
				if i%4 == 0 { // kill the next run too, early in what it does
					h := startHooked(t, bin, 1+rand.IntN(4), next...)
					if nextKilled = h.waitFor("gsgen-test: paused at"); nextKilled {
						h.cmd.Process.Signal(syscall.SIGKILL)
						counts["next run killed too"]++
					}
					h.wait()
					said = h.stderr.String()
				}
				_, _, stderr := gsgen(t, next...)
				stderr = said + stderr
				now = snapshot(t, root)
				outcome := ""
				switch {
				case strings.Contains(stderr, "completed a write an interrupted gsgen run had begun"):
					outcome = "completed by the next run"
				case strings.Contains(stderr, "undid a write an interrupted gsgen run had begun"), strings.Contains(stderr, "by an interrupted gsgen new"):
					outcome = "undone by the next run"
				case strings.Contains(stderr, "after it had written everything"):
					outcome = "cleaned up by the next run"
				case nextKilled: // it recovered, and was killed before it could say so
					outcome = "recovered by a next run killed too"
				}
				if outcome == "" || !sameSnapshot(now, before) && !sameSnapshot(now, after) {
					t.Fatalf("kill %d at point %d of %d: the next run left a tree neither before nor after, or did not say what it recovered; it said: %s\nthe killed run said:\n%s",
						i, at, points, withoutSteps(stderr), withoutSteps(h.stderr.String()))
				}
				counts[outcome]++
			}
			t.Logf("%s: %d kills at %d points: %v", kc.name, kills, points, counts)
		})
	}
}
