package render

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parsedTopLevel is readTopLevel's answer by go/parser: the package name
// and what topLevelNames finds in the whole syntax tree. It is the oracle
// readTopLevel is held to.
func parsedTopLevel(t *testing.T, p string, src []byte) goTopLevel {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s does not parse: %v", p, err)
	}
	out := goTopLevel{pkg: f.Name.Name}
	for _, id := range topLevelNames(f) {
		out.names = append(out.names, topLevelName{id.Name, fset.Position(id.Pos()).Line})
	}
	return out
}

// readTopLevel on Go that gsgen's templates may come to write: every form
// of declaration, and the tokens that could mislead a reader of tokens
// (func in a result type and a literal, brackets in strings, runes and
// comments, a generic receiver, a group spanning lines).
func TestReadTopLevelForms(t *testing.T) {
	src := `// Package x has a comment with func F() { and ( in it.
package x

import (
	"fmt"
	_ "embed"
)

import "strings"

const A, B = 1, "}"

const (
	C = iota
	D
	E, F
	_
)

var (
	G    = map[string]func() int{"{": func() int { return 1 }}
	H, I int
	J    = struct{ K int }{K: '('}
)

var L = ` + "`" + `raw { ( [ string` + "`" + `

type M struct {
	N func() (int, error)
}

type (
	O[P any] []P
	Q        interface{ R() }
	S        = M
)

func init() {}

func init() { _ = fmt.Sprint }

func T() func() struct{ U int } { return nil }

func (m *M) V() {}

func (M) W(x, y int) (z int) { return }

func (o O[P]) X() {}

func (o *O[P]) Y() {
	var notTopLevel = 1
	_ = notTopLevel
	_ = strings.ToUpper
}

func _() {}

var _ = T
`
	got, err := readTopLevel("x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := parsedTopLevel(t, "x.go", []byte(src))
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(goTopLevel{}, topLevelName{})); diff != "" {
		t.Errorf("readTopLevel differs from go/parser (-parser +readTopLevel):\n%s", diff)
	}
	var names []string
	for _, n := range got.names {
		names = append(names, n.name)
	}
	wantNames := []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "L", "M", "O", "Q", "S", "T", "M.V", "M.W", "O.X", "O.Y"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("names %v, want %v", names, wantNames)
	}
}

// What the scanner refuses is an error naming the file, as go/parser's was;
// so is a file without a package clause.
func TestReadTopLevelRefuses(t *testing.T) {
	for name, src := range map[string]string{
		"unterminated string": "package x\n\nvar a = \"open\n",
		"illegal character":   "package x\n\nvar a = 1 @ 2\n",
		"no package clause":   "var a = 1\n",
	} {
		if _, err := readTopLevel("bad/x.go", []byte(src)); err == nil || !strings.Contains(err.Error(), "bad/x.go") {
			t.Errorf("%s: %v; want an error naming bad/x.go", name, err)
		}
	}
}

// topLevelNames are the identifiers a file declares at package level;
// methods are named Type.Method. Blank identifiers and init may repeat.
func topLevelNames(f *ast.File) []*ast.Ident {
	var out []*ast.Ident
	add := func(id *ast.Ident) {
		if id.Name != "_" && id.Name != "init" {
			out = append(out, id)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				add(d.Name)
				continue
			}
			if recv := receiverName(d.Recv.List[0].Type); recv != "" {
				add(&ast.Ident{NamePos: d.Name.NamePos, Name: recv + "." + d.Name.Name})
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					add(s.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						add(n)
					}
				}
			}
		}
	}
	return out
}

// receiverName is the type a method's receiver names: T for T, *T, T[K].
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// TestReadTopLevelIsTheParsers is the proof that lets checkDeclarations
// read names from tokens: for every Go file of every case of formatCases
// (the accepted space, and its largest shapes with names of the user's),
// with sqlc's own output where the case has SQL of the user's, readTopLevel
// finds the package and the names, on their lines, that go/parser's tree
// has.
func TestReadTopLevelIsTheParsers(t *testing.T) {
	files := 0
	for _, c := range formatCases(t) {
		rendered, err := renderService(c.answers, c.userSQL)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, f := range rendered {
			if path.Ext(f.Path) != ".go" {
				continue
			}
			files++
			got, err := readTopLevel(f.Path, f.Content)
			if err != nil {
				t.Fatalf("%s: %s: %v", c.name, f.Path, err)
			}
			if diff := cmp.Diff(parsedTopLevel(t, f.Path, f.Content), got, cmp.AllowUnexported(goTopLevel{}, topLevelName{})); diff != "" {
				t.Errorf("%s: %s: readTopLevel differs from go/parser (-parser +readTopLevel):\n%s", c.name, f.Path, diff)
			}
		}
	}
	if files < 1000 {
		t.Errorf("only %d Go files compared", files)
	}
}
