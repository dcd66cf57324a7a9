package golden

import (
	"os"
	"path/filepath"
	"testing"

	// The integration overlays run against kfake, an in-process Kafka broker.
	// Importing it here keeps its version pinned in gsgen's go.mod (kfake's own
	// go.mod lags: it needs franz-go v1.22.3 or newer) and in the module cache.
	_ "github.com/twmb/franz-go/pkg/kfake"
	"golang.org/x/mod/modfile"
)

// TestIntegration runs the integration tests of golden/testdata/integration/<preset>
// against the generated code of golden/<preset>: it copies the service to a
// temporary directory, lays the test files over it, adds the test-only
// requirements (kfake) and runs `go test ./...` there. The tests reach real
// PostgreSQL (GSGEN_TEST_POSTGRES_URL) and Redis (GSGEN_TEST_REDIS_ADDR); they
// skip when a server is unreachable, and fail instead when CI is set.
func TestIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("integration tests build generated services; skipped with -short")
	}
	overlays, err := filepath.Glob(filepath.Join("testdata", "integration", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(overlays) == 0 {
		t.Skip("no integration overlays yet")
	}
	requires := testRequirements(t)
	for _, overlay := range overlays {
		name := filepath.Base(overlay)
		t.Run(name, func(t *testing.T) {
			dir := serviceWithOverlay(t, name, overlay, requires)
			out := goCmd(t, dir, "test", "-count=1", "-v", "./...")
			t.Log(out)
		})
	}
}

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
