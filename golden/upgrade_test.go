package golden

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/internal/disktest"
)

// The fixture is a service written by an earlier gsgen: golden/http as it
// was at commit 4d1ca55, before gsgen.base existed. Keep it as it is: it is
// what real services of that gsgen look like.
const olderHTTP = "testdata/upgrade/http-4d1ca55"

// userEdits are edits a user made to the older service: in a file of theirs
// and in files gsgen owns. Each is inserted after an anchor line. The
// README's template changed since 4d1ca55 (its last section is new), in
// another place than the edit: a real three-way merge.
var userEdits = []struct{ path, after, insert string }{
	{"README.md", "# orders\n", "\nOur team's runbook: https://wiki.example.com/orders.\n"},
	{"internal/httpapi/routes.go", "\tmux.HandleFunc(\"GET /hello/{name}\", hello)\n",
		"\tmux.HandleFunc(\"GET /version\", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(\"1.2.3\\n\")) })\n"},
	{"internal/admin/admin.go", "// NewServer returns the admin server. The caller serves it on its own\n",
		"// (Our runbook: a pod whose probes stop answering for 5 minutes is restarted.)\n"},
}

// olderService copies the fixture into a new directory, with the user's
// edits, and with a base when withBase: as if that gsgen had recorded what
// it wrote (the fixture is exactly that, before the edits).
func olderService(t *testing.T, withBase bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "orders")
	if err := os.CopyFS(dir, os.DirFS(olderHTTP)); err != nil {
		t.Fatal(err)
	}
	if withBase {
		lockB, err := os.ReadFile(filepath.Join(dir, servicedir.LockFile))
		if err != nil {
			t.Fatal(err)
		}
		lock, err := servicedir.ParseLock(lockB)
		if err != nil {
			t.Fatal(err)
		}
		content := map[string][]byte{}
		for p := range lock {
			b, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				t.Fatal(err)
			}
			content[servicedir.Hash(b)] = b
		}
		if err := os.WriteFile(filepath.Join(dir, generator.BaseFile), generator.EncodeBase("v0.25.0", lock, content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range userEdits {
		p := filepath.Join(dir, e.path)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(string(b), e.after) != 1 {
			t.Fatalf("%s: the anchor of the edit is not there once", e.path)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), e.after, e.after+e.insert, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// upgrade runs gsgen upgrade's steps on dir and writes the result.
func upgrade(t *testing.T, dir string) (*generator.Upgrade, error) {
	t.Helper()
	d, err := servicedir.OpenServiceDir(dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	svc, notes, err := generator.ReadServiceToUpgrade(d)
	if err != nil {
		t.Fatal(err)
	}
	u, err := svc.Upgrade(svc.Answers.WithDefaults(), notes, false)
	if err != nil {
		return u, err
	}
	return u, d.Apply(u.Changes)
}

// An older service with edits, upgraded to this gsgen with a base: every
// file is this gsgen's (golden/http), the user's edits on top, and the
// service builds, vets and passes its tests.
func TestUpgradeOlderService(t *testing.T) {
	dir := olderService(t, true)
	u, err := upgrade(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if u.From != "v0.25.0" || len(u.Notes) == 0 {
		t.Errorf("from %q, notes %q", u.From, u.Notes)
	}
	for _, c := range u.Changes {
		if c.Path == "README.md" && c.Note != "merged: your edits and gsgen's changes" {
			t.Errorf("README.md: %s (%s), want a three-way merge", c.Action, c.Note)
		}
	}
	assertUpgraded(t, dir)
	if testing.Short() {
		return
	}
	goCmd(t, dir, "build", "./...")
	goCmd(t, dir, "vet", "./...")
	goCmd(t, dir, "test", "-count=1", "./...")
}

// The same service without a base (as that gsgen wrote it): an edited file
// whose gsgen version changed (README.md) is a conflict, never overwritten,
// and nothing is written. (generator's TestUpgradeWithoutBase has the rest:
// unedited files upgrade, edited ones gsgen did not change are kept.)
func TestUpgradeOlderServiceWithoutBase(t *testing.T) {
	dir := olderService(t, false)
	before := disktest.ReadTree(t, dir)
	edited := map[string]bool{}
	for _, e := range userEdits {
		edited[e.path] = true
	}
	_, err := upgrade(t, dir)
	ce, ok := err.(*generator.ConflictError)
	if !ok {
		t.Fatalf("err = %v, want a conflict in README.md (edited, and its template changed)", err)
	}
	conflicts := map[string]bool{}
	for _, f := range ce.Files {
		conflicts[f.Path] = true
		if !edited[f.Path] {
			t.Errorf("%s conflicts, but the user did not edit it", f.Path)
		}
	}
	if !conflicts["README.md"] {
		t.Errorf("README.md does not conflict: %v", conflicts)
	}
	if got := disktest.ReadTree(t, dir); !maps.Equal(got, before) {
		t.Error("a conflicting upgrade changed the service")
	}
}

// assertUpgraded checks dir is golden/http with the user's edits.
func assertUpgraded(t *testing.T, dir string) {
	t.Helper()
	got, want := disktest.ReadTree(t, dir), disktest.ReadTree(t, "http")
	for _, e := range userEdits {
		if !strings.Contains(got[e.path], e.insert) {
			t.Errorf("%s lost the user's edit", e.path)
		}
		got[e.path] = strings.Replace(got[e.path], e.insert, "", 1)
	}
	// The lock and the base record gsgen's version, and the kept edit of the
	// file gsgen owns is still a hand edit: they match golden/http too.
	for p, w := range want {
		if p == "go.sum" {
			// The go.sum of a set gsgen no longer stores is merged, not
			// replaced: every new checksum is added, the older ones stay
			// (go mod tidy drops them).
			for _, line := range strings.SplitAfter(w, "\n") {
				if !strings.Contains(got[p], line) {
					t.Errorf("go.sum lacks %q of this gsgen's", line)
				}
			}
			continue
		}
		if got[p] != w {
			t.Errorf("%s is not this gsgen's version (golden/http) plus the user's edit", p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s is left, and golden/http has no such file", p)
		}
	}
}
