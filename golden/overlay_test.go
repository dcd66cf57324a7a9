package golden

import (
	"os"
	"path/filepath"
	"testing"

	// The benchmark overlays (and the generated services' own tests) run
	// against kfake, an in-process Kafka broker. Importing it here keeps its
	// version pinned in gsgen's go.mod (kfake's own go.mod lags: it needs
	// franz-go v1.22.3 or newer) and in the module cache.
	_ "github.com/twmb/franz-go/pkg/kfake"
	"golang.org/x/mod/modfile"
)

// serviceWithOverlay copies golden/<preset> to a temporary directory, lays
// the files of overlay (test or benchmark files) over it, and adds the
// test-only requirements, so they run against the generated code.
func serviceWithOverlay(t *testing.T, preset, overlay string, requires []string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), preset)
	if err := os.CopyFS(dir, os.DirFS(preset)); err != nil {
		t.Fatalf("copying golden/%s: %v", preset, err)
	}
	// CopyFS never overwrites: an overlay file that collides with one of
	// the service's is a mistake in the overlay.
	if err := os.CopyFS(dir, os.DirFS(overlay)); err != nil {
		t.Fatalf("laying %s over it: %v", overlay, err)
	}
	args := []string{"mod", "edit"}
	for _, r := range requires {
		args = append(args, "-require="+r)
	}
	goCmd(t, dir, args...)
	goCmd(t, dir, "mod", "tidy")
	return dir
}

// testRequirements are gsgen's own pins of the modules the overlays use.
func testRequirements(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range f.Require {
		switch r.Mod.Path {
		case "github.com/twmb/franz-go", "github.com/twmb/franz-go/pkg/kfake", "github.com/twmb/franz-go/pkg/kmsg":
			out = append(out, r.Mod.Path+"@"+r.Mod.Version)
		}
	}
	if len(out) < 2 {
		t.Fatalf("gsgen's go.mod does not pin franz-go and kfake: %v", out)
	}
	return out
}
