package golden

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRerun replays golden/rerun/steps.txt with the real gsgen binary and
// compares the service it ends with against golden/rerun/service: the
// "run once, rerun to add a worker" path, recorded.
func TestRerun(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "gsgen")
	build := exec.Command("go", "build", "-o", bin, "../cmd/gsgen")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building gsgen: %v\n%s", err, out)
	}
	work := filepath.Join(root, "work")
	os.Mkdir(work, 0o755)

	f, err := os.Open(filepath.Join("rerun", "steps.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmd := exec.Command(bin, strings.Fields(line)...)
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gsgen %s: %v\n%s", line, err, out)
		}
	}
	got := filepath.Join(work, "shop")
	want := filepath.Join("rerun", "service")
	if *update {
		if err := os.RemoveAll(want); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(want, os.DirFS(got)); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(readTree(t, want), readTree(t, got)); diff != "" {
		t.Errorf("the rerun sequence ends with another service than golden/rerun/service (-golden +now); if intended, go test ./golden -update:\n%s", diff)
	}
}
