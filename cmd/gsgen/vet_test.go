package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVetFindings(t *testing.T) {
	code, stdout, stderr := gsgen(t, "vet", "--dir", "testdata/vet/broken")
	if code != exitFindings {
		t.Fatalf("exit %d, want %d (findings); stderr:\n%s", code, exitFindings, stderr)
	}
	want := []string{
		"testdata/vet/broken/main.go:14:10: http.Server without ReadHeaderTimeout",
		"testdata/vet/broken/main.go:26:2: db.Close() runs before wg.Wait() (line 27)",
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d findings, want %d:\n%s", len(lines), len(want), stdout)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("finding %d:\n got %s\nwant %s...", i, lines[i], w)
		}
	}
	for i, rule := range []string{"[httpserver]", "[closeorder]"} {
		if !strings.HasSuffix(lines[i], rule) {
			t.Errorf("finding %d does not end with its rule %s: %s", i, rule, lines[i])
		}
	}
	if strings.TrimSpace(stderr) != "gsgen: vet: 2 findings" {
		t.Errorf("stderr %q, want the count", stderr)
	}
}

func TestVetBadInput(t *testing.T) {
	notModule := t.TempDir()
	emptyModule := t.TempDir()
	writeFile(t, filepath.Join(emptyModule, "go.mod"), "module example.com/empty\n\ngo 1.26\n")
	manifests := t.TempDir()
	writeFile(t, filepath.Join(manifests, "deployment.yaml"), "kind: Deployment\n  spec: [\n")
	cases := []struct {
		name string
		args []string
		want string // in the one line on stderr
	}{
		{"not a module", []string{"vet", "--dir", notModule}, "packages: "},
		{"a module without packages", []string{"vet", "--dir", emptyModule}, "./... matched no packages"},
		{"a pattern that matches nothing", []string{"vet", "--dir", "testdata/vet/broken", "./nothing/..."}, "pattern ./nothing/..."},
		{"code that does not build", []string{"vet", "--dir", "testdata/vet/nobuild"}, "undefined: undefinedFunction"},
		{"no manifests there", []string{"vet", "--dir", "testdata/vet/broken", "--manifests", filepath.Join(notModule, "deploy")}, "--manifests: "},
		{"manifests that are not YAML", []string{"vet", "--dir", "testdata/vet/broken", "--manifests", manifests}, "not valid YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := gsgen(t, c.args...)
			if code != exitBadInput || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and one line with %q", code, stdout, stderr, exitBadInput, c.want)
			}
		})
	}
}

// goldenServices are the services gsgen generated for its presets and
// scenarios: each a module of its own under golden/.
func goldenServices(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, pattern := range []string{"../../golden/*/go.mod", "../../golden/*/*/go.mod"} {
		mods, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mods {
			dirs = append(dirs, filepath.Dir(m))
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no golden services under ../../golden")
	}
	return dirs
}

// Every service gsgen generates follows the rules gsgen vet checks, its
// tests and manifests included.
func TestVetGoldenServicesAreClean(t *testing.T) {
	if testing.Short() {
		t.Skip("loads every golden service with its dependencies")
	}
	for _, dir := range goldenServices(t) {
		t.Run(strings.TrimPrefix(dir, "../../golden/"), func(t *testing.T) {
			args := []string{"vet", "--dir", dir, "--tests"}
			if _, err := os.Stat(filepath.Join(dir, "deploy")); err == nil {
				args = append(args, "--manifests", filepath.Join(dir, "deploy"))
			}
			if code, stdout, stderr := gsgen(t, args...); code != exitOK {
				t.Errorf("gsgen %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
			}
		})
	}
}
