package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A file gsgen must read and cannot is an I/O failure naming the file
// (exitIO: the fix is its permissions, not an answer), and nothing is
// written. Root reads any file, so as root the run is the real gsgen under
// the nobody user.
func TestUnreadableFileIsAnIOError(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop")
	makefile := filepath.Join(dir, "Makefile")
	if err := os.Chmod(makefile, 0); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, dir)
	var code int
	var stderr string
	if os.Geteuid() != 0 {
		code, _, stderr = gsgen(t, "regen", dir)
	} else {
		bin := buildKilltest(t)
		for p := dir; p != "/"; p = filepath.Dir(p) { // let nobody reach the service and the binary
			if strings.HasPrefix(p, os.TempDir()+"/") {
				os.Chmod(p, 0o755)
			}
		}
		os.Chmod(filepath.Dir(bin), 0o755)
		cmd := exec.Command(bin, "regen", dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, _ := cmd.CombinedOutput()
		code, stderr = cmd.ProcessState.ExitCode(), string(out)
	}
	if code != exitIO || !strings.Contains(stderr, "Makefile: cannot be read: permission denied; make it readable (chmod u+r), or move it away") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if treeHash(t, dir) != before {
		t.Error("the refused run changed the service")
	}
}
