package generator

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/semver"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

func gz(t *testing.T, raw string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(raw))
	w.Close()
	return b.Bytes()
}

func TestBaseRoundTrip(t *testing.T) {
	a, b := []byte("package a\n"), []byte("no newline at the end")
	lock := servicedir.Lock{"a.go": {Owner: render.OwnedByGsgen, Hash: servicedir.Hash(a)}, "b.txt": {Owner: render.OwnedByUser, Hash: servicedir.Hash(b)}, "same.go": {Owner: render.OwnedByGsgen, Hash: servicedir.Hash(a)}, "none.go": {Owner: render.OwnedByGsgen, Hash: servicedir.Hash([]byte("x"))}}
	enc := EncodeBase("v1.2.3", lock, map[string][]byte{servicedir.Hash(a): a, servicedir.Hash(b): b})
	forgetLastBase() // the second encoding compresses again, not a copy of the first
	if !bytes.Equal(enc, EncodeBase("v1.2.3", lock, map[string][]byte{servicedir.Hash(a): a, servicedir.Hash(b): b})) {
		t.Error("the same files give other bytes")
	}
	base, err := ParseBase(enc)
	if err != nil {
		t.Fatal(err)
	}
	if base.Version != "v1.2.3" {
		t.Errorf("version %q", base.Version)
	}
	for p, want := range map[string][]byte{"a.go": a, "b.txt": b, "same.go": a} {
		if got, ok := base.Of(lock[p]); !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: %q, %v", p, got, ok)
		}
	}
	if _, ok := base.Of(lock["none.go"]); ok {
		t.Error("a file without bytes has a base")
	}
	var none *Base
	if _, ok := none.Of(lock["a.go"]); ok {
		t.Error("no store has a base")
	}
}

// forgetLastBase empties compressBase's memory of the store it compressed last.
func forgetLastBase() {
	lastBase.Lock()
	defer lastBase.Unlock()
	lastBase.raw, lastBase.out = nil, nil
}

// A store encoded again is the one compressed last (gsgen new encodes its
// base twice), byte for byte what compressing it again gives; a store that
// differs in one byte is compressed anew; and a caller writing into what it
// was given changes nothing the next one gets.
func TestEncodeBaseAgain(t *testing.T) {
	a, b := []byte("package a\n"), []byte("package b\n")
	lockA := servicedir.Lock{"x.go": {Owner: render.OwnedByGsgen, Hash: servicedir.Hash(a)}}
	lockB := servicedir.Lock{"x.go": {Owner: render.OwnedByGsgen, Hash: servicedir.Hash(b)}}
	content := map[string][]byte{servicedir.Hash(a): a, servicedir.Hash(b): b}
	forgetLastBase()
	first := EncodeBase("v1", lockA, content)
	again := EncodeBase("v1", lockA, content)
	if !bytes.Equal(again, first) {
		t.Fatal("a store encoded again differs from the first encoding")
	}
	for i := range again {
		again[i] = 0
	}
	if got := EncodeBase("v1", lockA, content); !bytes.Equal(got, first) {
		t.Fatal("writing into an encoded store changed the next encoding of it")
	}
	forgetLastBase()
	if fresh := EncodeBase("v1", lockA, content); !bytes.Equal(fresh, first) {
		t.Fatal("a store encoded again differs from the same store compressed anew")
	}
	for _, c := range []struct {
		version string
		lock    servicedir.Lock
		want    []byte
	}{{"v1", lockB, b}, {"v2", lockA, a}} {
		enc := EncodeBase(c.version, c.lock, content)
		base, err := ParseBase(enc)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := base.Of(c.lock["x.go"]); base.Version != c.version || !ok || !bytes.Equal(got, c.want) {
			t.Errorf("%s: version %q, x.go %q (%v): the store encoded before it was given back", c.version, base.Version, got, ok)
		}
	}
}

// A store that is not one gsgen wrote is refused, naming gsgen.base: a
// base that lies would make a merge keep or drop the wrong lines.
func TestParseBaseRejects(t *testing.T) {
	h := servicedir.Hash([]byte("abc"))
	for name, data := range map[string][]byte{
		"not gzip":          []byte("gsgen base 1\n"),
		"no header":         gz(t, "something else\nversion v1\n"),
		"no version":        gz(t, "gsgen base 1\n"),
		"no hash":           gz(t, "gsgen base 1\nversion v1\nxyz 3\nabc\n"),
		"size too long":     gz(t, "gsgen base 1\nversion v1\n"+h+" 30\nabc\n"),
		"size too short":    gz(t, "gsgen base 1\nversion v1\n"+h+" 2\nabc\n"),
		"negative size":     gz(t, "gsgen base 1\nversion v1\n"+h+" -1\nabc\n"),
		"bytes of another":  gz(t, "gsgen base 1\nversion v1\n"+h+" 3\nabd\n"),
		"cut short":         gz(t, "gsgen base 1\nversion v1\n"+h),
		"expands too large": gz(t, "gsgen base 1\nversion v1\n"+strings.Repeat("x", maxBaseExpanded+1)),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseBase(data)
			var ie *problem.InputError
			if !errors.As(err, &ie) || ie.Field != BaseFile || !strings.Contains(err.Error(), "gsgen.base is corrupt") {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// A corrupt gsgen.base stops every re-run as a corrupt gsgen.lock does:
// exit 2, nothing written.
func TestReadServiceRefusesACorruptBase(t *testing.T) {
	dir := writeService(t, answers.Answers{Name: "shop", Components: []string{"http"}})
	if err := os.WriteFile(filepath.Join(dir, BaseFile), []byte("not a store"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := servicedir.OpenServiceDir(dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var ie *problem.InputError
	if _, err := ReadService(d); !errors.As(err, &ie) {
		t.Errorf("err = %v", err)
	}
}

// regen keeps a user file the user edited, and with it the base of the run
// that wrote it: a later upgrade still brings gsgen's change into it.
func TestRegenKeepsTheBaseOfAKeptFile(t *testing.T) {
	dir := writeService(t, answers.Answers{Name: "shop", Components: []string{"http"}})
	routes := readTestFile(t, filepath.Join(dir, routesGo))
	older := pretendOlderGsgen(t, dir, routesGo, replaceOnce(t, routes, "// another service.\n", "// another service (older wording).\n"))
	edited := older + "\n// mine\n"
	writeTestFile(t, filepath.Join(dir, routesGo), edited)

	svc := readService(t, dir)
	_, cs, err := svc.Regenerate(svc.Answers.WithDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.dir.Apply(cs); err != nil {
		t.Fatal(err)
	}
	svc.dir.Close()
	if got := readTestFile(t, filepath.Join(dir, routesGo)); got != edited {
		t.Fatal("regen touched the user's file")
	}
	d, u, err := upgradeService(t, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if c := changeOf(t, u, routesGo); string(c.Content) != routes+"\n// mine\n" {
		t.Errorf("upgrade after regen: %s (%s)\n%s", c.Action, c.Note, c.Content)
	}
}

func TestChangelog(t *testing.T) {
	if last := Changelog[len(Changelog)-1].Version; last != Version {
		t.Errorf("the newest changelog entry is %s, Version is %s: bump one with the other", last, Version)
	}
	for i, e := range Changelog {
		if !semver.IsValid(e.Version) || e.Part == "" || e.Change == "" || strings.Contains(e.Change, "\n") {
			t.Errorf("entry %d is not a version, a part and one line: %+v", i, e)
		}
		if i > 0 && semver.Compare(Changelog[i-1].Version, e.Version) > 0 {
			t.Errorf("entry %d (%s) is older than the one before it", i, e.Version)
		}
	}
	if got := ChangesSince(Version); len(got) != 0 {
		t.Errorf("since this version: %v", got)
	}
	if got := ChangesSince(""); len(got) != len(Changelog) {
		t.Errorf("since no version: %d entries, want all %d", len(got), len(Changelog))
	}
	if got := ChangesSince("v0.0.1"); len(got) != len(Changelog) {
		t.Errorf("since v0.0.1: %d entries", len(got))
	}
}

// Whatever gsgen.base holds, reading it gives a store whose every blob
// matches its hash, or an *InputError: never a panic, never a lying base.
func FuzzParseBase(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "golden", "http", BaseFile)); err == nil {
		f.Add(b)
	}
	f.Add([]byte("gsgen base 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, gz(t, string(data))} {
			b, err := ParseBase(in)
			if err != nil {
				requireInputError(t, err)
				continue
			}
			for h, c := range b.blobs {
				if servicedir.Hash(c) != h {
					t.Fatalf("blob %s holds other bytes", h)
				}
			}
		}
	})
}
