package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// Each cause, driven through the real command: its exit code follows from
// its type, its message is the one line run prints, the cause it wraps is
// found by errors.Is and its type by errors.As, and nothing is written. (A
// file the OS will not let gsgen read, EACCES, is TestUnreadableFileIsAnIOError:
// as root it needs a second process.)
func TestExitCodeFollowsTheCause(t *testing.T) {
	root := t.TempDir()
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) []string
		code  int
		want  string // part of the message
		is    error  // the cause errors.Is finds
		as    any    // a pointer to the type errors.As finds
	}{
		{"an answer that breaks the ladder", func(t *testing.T, dir string) []string {
			return []string{"new", filepath.Join(dir, "orders"), "--grace", "20s", "--yes"}
		}, exitBadInput, "timeouts.grace: 20s is shorter than", nil, new(*problem.InputError)},
		{"an answers file that is not there", func(t *testing.T, dir string) []string {
			return []string{"new", filepath.Join(dir, "orders"), "-f", filepath.Join(dir, "nope.yaml")}
		}, exitBadInput, "--config: cannot read answers file", fs.ErrNotExist, new(*problem.InputError)},
		{"a directory the OS refuses to write in", func(t *testing.T, dir string) []string {
			return []string{"new", "/proc/gsgen-test/orders", "--yes"} // even root cannot mkdir in /proc
		}, exitIO, "DIR: cannot write in /proc", fs.ErrNotExist, new(*problem.IOError)},
		{"a file where a directory must be", func(t *testing.T, dir string) []string {
			writeFile(t, filepath.Join(dir, "orders", "internal"), "mine\n")
			return []string{"new", filepath.Join(dir, "orders"), "--yes", "--force"}
		}, exitIO, "internal: is a file where gsgen needs a directory", syscall.ENOTDIR, new(*problem.IOError)},
		{"a directory where a file must be", func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			os.Remove(filepath.Join(svc, "Makefile"))
			os.Mkdir(filepath.Join(svc, "Makefile"), 0o755)
			return []string{"regen", svc}
		}, exitIO, "Makefile: is a directory where gsgen has a file", syscall.EISDIR, new(*problem.IOError)},
		{"the lock held by another run", func(t *testing.T, dir string) []string {
			return []string{"add", "outbox", "--dir", busyService(t, dir)}
		}, exitLocked, "another gsgen run is still changing it", syscall.EWOULDBLOCK, new(*problem.LockError)},
		{"a journal without its plan", func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			os.Mkdir(filepath.Join(svc, ".gsgen-journal"), 0o755)
			return []string{"regen", svc}
		}, exitJournal, ".gsgen-journal: is not a journal gsgen can complete", fs.ErrNotExist, new(*problem.JournalError)},
		{"a file changed since the journal planned it", func(t *testing.T, dir string) []string {
			svc := service(t, dir)
			writeFile(t, filepath.Join(svc, ".gsgen-journal", "plan"), "gsgen journal 1\noverwrite "+hashOf("new")+" "+hashOf("old")+" Makefile\n")
			return []string{"regen", svc}
		}, exitJournal, "Makefile: changed after an interrupted gsgen run planned to write it", nil, new(*problem.JournalError)},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, fmt.Sprint(i))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			args := c.setup(t, dir)
			before := treeHash(t, root)
			var stdout, stderr bytes.Buffer
			err := (&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}).execute(args)
			if code := exitCode(err); code != c.code {
				t.Errorf("exit %d, want %d: %v", code, c.code, err)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("message %q, want one line with %q", err, c.want)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("errors.Is(%v, %v) is false", err, c.is)
			}
			if !errors.As(err, c.as) {
				t.Errorf("errors.As(%v) finds no %T (it is a %T)", err, c.as, err)
			}
			if treeHash(t, root) != before {
				t.Error("the refused run changed the file system")
			}
		})
	}
}

// A cause keeps its code however many layers wrap it, and a journal left by
// a failed write (which wraps the I/O error that failed it) is a journal
// error: the journal is what the user must settle first.
func TestExitCodeOfWrappedErrors(t *testing.T) {
	ioErr := &problem.IOError{Path: "orders/x", Msg: "cannot be written", Err: syscall.ENOSPC}
	for _, c := range []struct {
		err  error
		code int
	}{
		{nil, exitOK},
		{errors.New("a template bug"), exitFailure},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", &problem.InputError{Field: "name"})), exitBadInput},
		{usageError{errors.New("takes one argument")}, exitBadInput},
		{fmt.Errorf("writing: %w", ioErr), exitIO},
		{fmt.Errorf("x: %w", &problem.LockError{Dir: "orders", Err: problem.ErrLocked}), exitLocked},
		{&problem.JournalError{Path: "orders", Err: errors.Join(ioErr, errors.New("undo failed"))}, exitJournal},
		{&model.LadderError{Err: &problem.InputError{Field: "timeouts.grace"}}, exitBadInput},
		{&generator.HandEditError{InputError: problem.InputError{Field: "cmd/x/main.go"}}, exitBadInput},
	} {
		if got := exitCode(c.err); got != c.code {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.code)
		}
	}
	if !errors.Is(&problem.JournalError{Err: errors.Join(ioErr)}, syscall.ENOSPC) {
		t.Error("a journal error hides the errno of the write that failed")
	}
}

// busyService is a service in dir whose lock another run holds until the
// test ends, with LockWait 0 meanwhile, so a run refuses it at once.
func busyService(t *testing.T, dir string) string {
	t.Helper()
	svc := service(t, dir)
	held, err := servicedir.OpenServiceDir(svc, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	wait := servicedir.LockWait
	servicedir.LockWait = 0
	t.Cleanup(func() { held.Close(); servicedir.LockWait = wait })
	return svc
}
