package render

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"text/template"

	"github.com/gsgen-dev/gsgen/templates"
)

// Templates parsed a file per worker are the set parsing every file into
// one template set, one after the other, makes: the same names, each with
// the same tree, so every template executes as before.
func TestParseTemplatesIsOneByOne(t *testing.T) {
	got, err := parseTemplates(templates.FS)
	if err != nil {
		t.Fatal(err)
	}
	want := template.New("").Option("missingkey=error").Funcs(templateFuncs)
	err = fs.WalkDir(templates.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".tmpl") {
			return err
		}
		b, err := templates.FS.ReadFile(p)
		if err == nil {
			_, err = want.New(p).Parse(string(b))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	trees := func(root *template.Template) map[string]string {
		out := map[string]string{}
		for _, t := range root.Templates() {
			if t.Tree != nil {
				out[t.Name()] = t.Tree.Root.String()
			}
		}
		return out
	}
	g, w := trees(got), trees(want)
	if len(w) < 100 {
		t.Fatalf("only %d templates parsed one by one", len(w))
	}
	for name, tree := range w {
		if g[name] != tree {
			t.Errorf("%s: parsed per file, its tree differs from parsed one by one (or is missing)", name)
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			t.Errorf("%s: parsed per file, not one by one", name)
		}
	}
}

// A template that does not parse stops the parse, naming its file: the
// first such in the files' order, whichever worker met one first.
func TestParseTemplatesReportsTheFirstFile(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range 40 {
		fsys[fmt.Sprintf("k%02d/f.go.tmpl", i)] = &fstest.MapFile{Data: []byte("{{ .Name }}")}
	}
	fsys["k17/f.go.tmpl"].Data = []byte("{{ .Name ")
	fsys["k30/f.go.tmpl"].Data = []byte("{{ nosuchfunc }}")
	for range 5 {
		_, err := parseTemplates(fsys)
		if err == nil || !strings.Contains(err.Error(), "k17/f.go.tmpl") {
			t.Fatalf("err = %v; want k17/f.go.tmpl's", err)
		}
	}
	delete(fsys, "k17/f.go.tmpl")
	if _, err := parseTemplates(fsys); err == nil || !strings.Contains(err.Error(), `k30/f.go.tmpl`) || !strings.Contains(err.Error(), "nosuchfunc") {
		t.Fatalf("err = %v; want k30/f.go.tmpl's undefined function", err)
	}
	delete(fsys, "k30/f.go.tmpl")
	root, err := parseTemplates(fsys)
	if err != nil || root.Lookup("k05/f.go.tmpl") == nil {
		t.Fatalf("%v, k05 %v", err, root)
	}
}
