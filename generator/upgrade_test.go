package generator

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/generator/textdiff"
	"github.com/gsgen-dev/gsgen/internal/disktest"
)

// pretendOlderGsgen makes dir look as if an older gsgen had written old for
// path: the file, its lock entry and its base. It returns old.
func pretendOlderGsgen(t *testing.T, dir, path, old string) string {
	t.Helper()
	lockB, err := os.ReadFile(filepath.Join(dir, servicedir.LockFile))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := servicedir.ParseLock(lockB)
	if err != nil {
		t.Fatal(err)
	}
	content := map[string][]byte{}
	if b, err := os.ReadFile(filepath.Join(dir, BaseFile)); err == nil {
		base, err := ParseBase(b)
		if err != nil {
			t.Fatal(err)
		}
		maps.Copy(content, base.blobs)
	}
	e := lock[path]
	e.Hash = servicedir.Hash([]byte(old))
	lock[path] = e
	content[e.Hash] = []byte(old)
	writeTestFile(t, filepath.Join(dir, servicedir.LockFile), string(lock.Bytes()))
	writeTestFile(t, filepath.Join(dir, BaseFile), string(EncodeBase("v0.25.0", lock, content)))
	writeTestFile(t, filepath.Join(dir, path), old)
	return old
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// replaceOnce replaces old in s, failing the test when s does not hold it.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q is not in the file once", old)
	}
	return strings.Replace(s, old, new, 1)
}

// upgradeService reads the service in dir and plans its upgrade.
func upgradeService(t *testing.T, dir string, markers bool) (*servicedir.ServiceDir, *Upgrade, error) {
	t.Helper()
	d, err := servicedir.OpenServiceDir(dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	svc, notes, err := ReadServiceToUpgrade(d)
	if err != nil {
		t.Fatal(err)
	}
	u, err := svc.Upgrade(svc.Answers.WithDefaults(), notes, markers)
	return d, u, err
}

func changeOf(t *testing.T, u *Upgrade, path string) servicedir.Change {
	t.Helper()
	for _, c := range u.Changes {
		if c.Path == path {
			return c
		}
	}
	t.Fatalf("no change for %s", path)
	return servicedir.Change{}
}

const (
	mainGo   = "cmd/shop/main.go"
	routesGo = "internal/httpapi/routes.go"
	// A comment of main.go's template, and the older wording it replaced.
	newComment = "\t// room for two, because the second one means \"stop now\".\n"
	oldComment = "\t// room for two signals.\n"
)

// A template change and a user edit in one file, in different hunks, merge:
// in a file gsgen owns and in one the user owns. The base moves to gsgen's
// new version, so a second upgrade has nothing to do.
func TestUpgradeMergesThreeWays(t *testing.T) {
	dir := writeService(t, answers.Answers{Name: "shop", Components: []string{"http"}})
	current := readTestFile(t, filepath.Join(dir, mainGo))
	old := pretendOlderGsgen(t, dir, mainGo, replaceOnce(t, current, newComment, oldComment))
	edit := "\t// exitConfig is what our deploy script checks.\n"
	writeTestFile(t, filepath.Join(dir, mainGo), replaceOnce(t, old, "\texitConfig = 2", edit+"\texitConfig = 2"))

	routes := readTestFile(t, filepath.Join(dir, routesGo))
	oldRoutes := pretendOlderGsgen(t, dir, routesGo, replaceOnce(t, routes, "// another service.\n", "// another service (older wording).\n"))
	route := "\tmux.HandleFunc(\"GET /orders\", listOrders)\n"
	writeTestFile(t, filepath.Join(dir, routesGo), replaceOnce(t, oldRoutes, "\tmux.HandleFunc(\"GET /hello/{name}\", hello)\n", "\tmux.HandleFunc(\"GET /hello/{name}\", hello)\n"+route))

	// regen refuses the hand edit of main.go, and shows what upgrade's merge
	// of it would be.
	regenOffer(t, dir, "cmd/shop/main.go: gsgen upgrade merges your edit with gsgen's new version cleanly, changing the file so:\n", "+"+newComment)

	d, u, err := upgradeService(t, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if u.From != "v0.25.0" {
		t.Errorf("from %q", u.From)
	}
	for _, p := range []string{mainGo, routesGo} {
		if c := changeOf(t, u, p); c.Action != servicedir.Overwrite || !strings.HasPrefix(c.Note, "merged") {
			t.Errorf("%s: %s (%s)", p, c.Action, c.Note)
		}
	}
	if err := d.Apply(u.Changes); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if got := readTestFile(t, filepath.Join(dir, mainGo)); got != replaceOnce(t, current, "\texitConfig = 2", edit+"\texitConfig = 2") {
		t.Errorf("main.go is not gsgen's new version with the edit:\n%s", textdiff.Unified("want", "got", []byte(current), []byte(got)))
	}
	if got := readTestFile(t, filepath.Join(dir, routesGo)); !strings.Contains(got, route) || !strings.Contains(got, "// another service.\n") {
		t.Errorf("routes.go lost the user's route or gsgen's change:\n%s", got)
	}

	// The base is gsgen's new version now: nothing more to do, and the edit
	// of main.go is still a hand edit that regen sees.
	d, again, err := upgradeService(t, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	for _, c := range again.Changes {
		if c.Action != servicedir.Identical && c.Action != servicedir.Keep {
			t.Errorf("second upgrade: %s %s (%s)", c.Action, c.Path, c.Note)
		}
	}
	svc := readService(t, dir)
	if _, _, err := svc.Regenerate(svc.Answers.WithDefaults(), false); !errors.As(err, new(*HandEditError)) {
		t.Errorf("regen after the upgrade: %v, want the hand edit of main.go", err)
	}
}

// An edit on the lines gsgen changed conflicts: by default nothing is
// written and the hunk is listed; with markers the file gets them.
func TestUpgradeConflict(t *testing.T) {
	dir := writeService(t, answers.Answers{Name: "shop", Components: []string{"http"}})
	current := readTestFile(t, filepath.Join(dir, mainGo))
	old := pretendOlderGsgen(t, dir, mainGo, replaceOnce(t, current, newComment, oldComment))
	writeTestFile(t, filepath.Join(dir, mainGo), replaceOnce(t, old, oldComment, "\t// room for two: my wording.\n"))
	before := disktest.ReadTree(t, dir)

	regenOffer(t, dir, "cmd/shop/main.go: your edit and gsgen's change conflict at line ")
	d, u, err := upgradeService(t, dir, false)
	d.Close()
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Files) != 1 || ce.Files[0].Path != mainGo || len(ce.Files[0].Hunks) != 1 {
		t.Fatalf("err = %v, want one conflict in %s", err, mainGo)
	}
	if list := u.ConflictList(); !strings.Contains(list, "conflict  "+mainGo+" line ") || !strings.Contains(list, "my wording") {
		t.Errorf("conflict list:\n%s", list)
	}
	if got := disktest.ReadTree(t, dir); !maps.Equal(got, before) {
		t.Error("a conflicting upgrade changed the service")
	}

	d, u, err = upgradeService(t, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Apply(u.Changes); err != nil {
		t.Fatal(err)
	}
	got := readTestFile(t, filepath.Join(dir, mainGo))
	for _, want := range []string{"<<<<<<< yours\n\t// room for two: my wording.\n", "||||||| gsgen v0.25.0, as it wrote the file\n" + oldComment, "=======\n" + newComment + ">>>>>>> gsgen " + Version + "\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("main.go lacks %q:\n%s", want, got)
		}
	}
}

// A service written before gsgen.base: an unedited file takes gsgen's new
// version, an edited one whose gsgen version did not change is kept, and an
// edited one whose gsgen version changed is a conflict, never overwritten.
func TestUpgradeWithoutBase(t *testing.T) {
	dir := writeService(t, answers.Answers{Name: "shop", Components: []string{"http"}})
	current := readTestFile(t, filepath.Join(dir, mainGo))
	pretendOlderGsgen(t, dir, mainGo, replaceOnce(t, current, newComment, oldComment))
	if err := os.Remove(filepath.Join(dir, BaseFile)); err != nil {
		t.Fatal(err)
	}
	d, u, err := upgradeService(t, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if c := changeOf(t, u, mainGo); c.Action != servicedir.Overwrite || string(c.Content) != current {
		t.Errorf("unedited main.go: %s", c.Action)
	}
	if c := changeOf(t, u, BaseFile); c.Action != servicedir.Create {
		t.Errorf("gsgen.base: %s", c.Action)
	}

	// Edited where gsgen's version did not change: kept.
	config := "internal/config/config.go"
	cfg := readTestFile(t, filepath.Join(dir, config))
	writeTestFile(t, filepath.Join(dir, config), cfg+"\n// mine\n")
	// Edited where it did: a conflict.
	writeTestFile(t, filepath.Join(dir, mainGo), replaceOnce(t, replaceOnce(t, current, newComment, oldComment), "\texitConfig = 2", "\t// mine\n\texitConfig = 2"))
	_, u, err = upgradeService(t, dir, false)
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Files) != 1 || ce.Files[0].Path != mainGo || !ce.Files[0].Hunks[0].NoBase {
		t.Fatalf("err = %v, want a conflict without base in %s", err, mainGo)
	}
	if c := changeOf(t, u, config); c.Action != servicedir.Keep {
		t.Errorf("%s: %s, want keep", config, c.Action)
	}
}

// A file gsgen no longer writes is removed when the user never edited it,
// and kept when they did.
func TestUpgradeNoLongerWritten(t *testing.T) {
	dir := writeService(t, answers.Answers{Name: "shop", Components: []string{"http"}})
	gone, edited := "internal/old/gone.go", "internal/old/edited.go"
	for _, p := range []string{gone, edited} {
		if err := os.MkdirAll(filepath.Join(dir, "internal/old"), 0o755); err != nil {
			t.Fatal(err)
		}
		lock, _ := servicedir.ParseLock([]byte(readTestFile(t, filepath.Join(dir, servicedir.LockFile))))
		lock[p] = servicedir.LockEntry{Owner: render.OwnedByUser, Hash: servicedir.Hash([]byte("gone"))}
		writeTestFile(t, filepath.Join(dir, servicedir.LockFile), string(lock.Bytes()))
		pretendOlderGsgen(t, dir, p, "package old\n")
	}
	writeTestFile(t, filepath.Join(dir, edited), "package old\n\n// mine\n")
	d, u, err := upgradeService(t, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if c := changeOf(t, u, gone); c.Action != servicedir.Delete {
		t.Errorf("%s: %s", gone, c.Action)
	}
	if c := changeOf(t, u, edited); c.Action != servicedir.Leave || c.Note == "" {
		t.Errorf("%s: %s", edited, c.Action)
	}
	if err := d.Apply(u.Changes); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
		t.Errorf("%s still there: %v", gone, err)
	}
	if got := readTestFile(t, filepath.Join(dir, edited)); !strings.Contains(got, "mine") {
		t.Errorf("%s: %q", edited, got)
	}
}

// regenOffer runs regen on dir, which must refuse a hand edit with a diff
// holding each of want.
func regenOffer(t *testing.T, dir string, want ...string) {
	t.Helper()
	d, err := servicedir.OpenServiceDir(dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	svc, err := ReadService(d)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = svc.Regenerate(svc.Answers.WithDefaults(), false)
	var he *HandEditError
	if !errors.As(err, &he) {
		t.Fatalf("regen: %v, want a hand edit", err)
	}
	for _, w := range want {
		if !strings.Contains(he.Diffs, w) {
			t.Errorf("regen's diff lacks %q:\n%s", w, he.Diffs)
		}
	}
}

// A service a newer gsgen wrote is not taken back to this one's files.
func TestUpgradeRefusesANewerService(t *testing.T) {
	dir := writeService(t, answers.Answers{Name: "shop", Components: []string{"http"}})
	lock, err := servicedir.ParseLock([]byte(readTestFile(t, filepath.Join(dir, servicedir.LockFile))))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseBase([]byte(readTestFile(t, filepath.Join(dir, BaseFile))))
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, BaseFile), string(EncodeBase("v99.0.0", lock, b.blobs)))
	before := disktest.ReadTree(t, dir)
	_, _, err = upgradeService(t, dir, false)
	var ie *problem.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "written by gsgen v99.0.0, newer than this one") {
		t.Errorf("err = %v", err)
	}
	if !maps.Equal(disktest.ReadTree(t, dir), before) {
		t.Error("the refused upgrade changed the service")
	}
}
