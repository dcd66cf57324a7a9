package golden

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVendoredServiceBuildsOffline is a workshop room without Wi-Fi: the
// full service, vendored by its own make vendor, builds with an empty module
// cache and no module proxy. Without vendor/ the same build fails, so the
// build really had nothing to download from.
func TestVendoredServiceBuildsOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("vendors and builds the full service; skipped with -short")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	dir := filepath.Join(t.TempDir(), "full")
	if err := os.CopyFS(dir, os.DirFS("full")); err != nil {
		t.Fatal(err)
	}
	vendor := exec.Command("make", "vendor")
	vendor.Dir, vendor.Env = dir, serviceTestEnv()
	if out, err := vendor.CombinedOutput(); err != nil {
		t.Fatalf("make vendor: %v\n%s", err, out)
	}
	offline := func() *exec.Cmd {
		cmd := exec.Command("go", "build", "-trimpath", "./...")
		cmd.Dir = dir
		cmd.Env = append(serviceTestEnv(), "GOMODCACHE="+t.TempDir(), "GOPROXY=off", "GOFLAGS=-mod=vendor", "GOTOOLCHAIN=local")
		return cmd
	}
	if out, err := offline().CombinedOutput(); err != nil {
		t.Fatalf("GOFLAGS=-mod=vendor GOPROXY=off go build ./... with vendor/ and an empty module cache: %v\n%s", err, out)
	}
	if err := os.RemoveAll(filepath.Join(dir, "vendor")); err != nil {
		t.Fatal(err)
	}
	cmd := offline()
	cmd.Env = append(cmd.Env, "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "GOPROXY=off") {
		t.Errorf("without vendor/, the offline build should fail for want of modules; got %v\n%s", err, out)
	}
}
