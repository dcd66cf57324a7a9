package generator

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const generatorPath = "github.com/gsgen-dev/gsgen/generator"

// layers places every package under generator/ by the step it is: a package
// may import only packages of a lower layer, never one of its own or above,
// so following a run goes one way. generator itself, which orchestrates the
// steps, is above them all. A new package gets a line here, or this test
// fails.
var layers = map[string]int{
	"problem":             0, // the typed errors every step reports through
	"textdiff":            0, // line diff and three-way merge: bytes in, bytes out
	"sqlc":                0, // sqlc over a service's SQL, cached: files in, files out
	"internal/sqlfixture": 0, // the migrations the schema tests read
	"internal/inorder":    0, // steps side by side, reported in their order
	"internal/golit":      0, // values written as Go source (25 * time.Second), for the model and the render
	"servicedir":          1, // the bytes on disk: write, journal, lock
	"textchart":           1, // bar charts, tables and wrapped text for a terminal
	"sqlschema":           1, // the tables a service's migrations create
	"answers":             2, // the spec a user gives: answers, their defaults, the edits, gsgen.yaml
	"model":               3, // what gsgen derives from the answers: Model and New, the kinds (a kind_<name>.go each: derivation and validation, limits, names, variables, drains, pool share, deploy and monitoring pieces, flags), the ladder, the dependency set
	"render":              4, // the files of a service from its model: the plan (which template becomes which path, and who owns it), the render, go.mod and go.sum from the module graph, sqlc's output, the check of the rendered Go, gsgen's own SQL as the model is given it
	"":                    9, // generator: the orchestration
}

// TestStepPackagesImportOnlyBelow fails when a package under generator/
// imports one of its own layer or above it (servicedir importing generator,
// say), or when a package is not placed in layers.
func TestStepPackagesImportOnlyBelow(t *testing.T) {
	imports, err := generatorImports(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := imports["servicedir"]; !ok {
		t.Fatalf("found no servicedir package: imports = %v", imports)
	}
	for _, v := range layerViolations(imports) {
		t.Error(v)
	}
}

// TestLayerViolationsAreFound is the check above on made-up imports: it
// must name an import upward, one sideways within a layer and a package
// missing from layers, and pass the imports that go down.
func TestLayerViolationsAreFound(t *testing.T) {
	got := layerViolations(map[string][]string{
		"":           {"servicedir", "problem"},
		"servicedir": {"problem", ""},
		"problem":    {"textdiff"},
		"unplaced":   nil,
	})
	want := []string{
		"generator/problem (layer 0) imports generator/textdiff (layer 0): a package imports only layers below its own",
		"generator/servicedir (layer 1) imports generator (layer 9): a package imports only layers below its own",
		"generator/unplaced is in no layer: give it one in layers (layers_test.go)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("layerViolations =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// generatorImports lists, for every package in the tree at root (by its
// path below generator/, "" for generator itself), the packages under
// generator/ its files import, tests included.
func generatorImports(root string) (map[string][]string, error) {
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if pkg == "." {
			pkg = ""
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			if path == generatorPath {
				out[pkg] = append(out[pkg], "")
			} else if below, ok := strings.CutPrefix(path, generatorPath+"/"); ok {
				out[pkg] = append(out[pkg], below)
			}
		}
		return nil
	})
	return out, err
}

// layerViolations says, sorted, each import that does not go to a lower
// layer and each package layers does not place.
func layerViolations(imports map[string][]string) []string {
	name := func(pkg string) string { return strings.TrimSuffix("generator/"+pkg, "/") }
	var out []string
	for pkg, deps := range imports {
		from, ok := layers[pkg]
		if !ok {
			out = append(out, name(pkg)+" is in no layer: give it one in layers (layers_test.go)")
			continue
		}
		for _, dep := range deps {
			to, ok := layers[dep]
			if ok && to < from {
				continue
			}
			if !ok {
				to = -1
			}
			out = append(out, name(pkg)+" (layer "+strconv.Itoa(from)+") imports "+name(dep)+" (layer "+strconv.Itoa(to)+"): a package imports only layers below its own")
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
