package render

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/templates"
)

// ModuleGraph is templates/gomod/graph.txt: the go directive, then every
// requirement and checksum any service can have, each with the sets that
// bring it.
type ModuleGraph struct {
	Go       string
	Requires []GraphLine // in go.mod's order; Direct ones first
	Sums     []GraphLine // in go.sum's order
}

// GraphLine is one requirement ("path version", Direct or not) or one
// go.sum line, and when a service has it: When lists alternatives, each a
// list of keys the set must all have ("pgx") or lack ("!kafka"); an empty
// alternative is every set. A set lacking a module can need a line the set
// with it does not: tidy writes a requirement that keeps a version which,
// with the module, another requirement implies.
type GraphLine struct {
	Text   string
	Direct bool
	When   [][]string
}

// in reports whether a set with keys has the line.
func (l GraphLine) in(keys []string) bool {
	return slices.ContainsFunc(l.When, func(all []string) bool { return holds(all, keys) })
}

// holds reports whether every literal of term holds for a set with keys.
func holds(term, keys []string) bool {
	return !slices.ContainsFunc(term, func(lit string) bool {
		k, negated := strings.CutPrefix(lit, "!")
		return slices.Contains(keys, k) == negated
	})
}

// graphPath is where the graph is stored, under templates.
const graphPath = "gomod/graph.txt"

// ParseModuleGraph reads graph.txt: lines "go V", "require PATH VERSION
// WHEN", "indirect PATH VERSION WHEN", "sum PATH VERSION HASH WHEN", where
// WHEN is "*" or alternatives joined by '|', each keys (or !keys) joined by '+'.
func ParseModuleGraph(b []byte) (*ModuleGraph, error) {
	g := &ModuleGraph{}
	for n, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		bad := fmt.Errorf("%s:%d: cannot read %q", graphPath, n+1, line)
		if f[0] == "go" && len(f) == 2 {
			g.Go = f[1]
			continue
		}
		want := map[string]int{"require": 4, "indirect": 4, "sum": 5}[f[0]]
		if want == 0 || len(f) != want {
			return nil, bad
		}
		l := GraphLine{Text: strings.Join(f[1:len(f)-1], " "), Direct: f[0] == "require", When: parseWhen(f[len(f)-1])}
		if f[0] == "sum" {
			g.Sums = append(g.Sums, l)
		} else {
			g.Requires = append(g.Requires, l)
		}
	}
	if g.Go == "" {
		return nil, fmt.Errorf("%s has no go line", graphPath)
	}
	return g, nil
}

func parseWhen(s string) [][]string {
	var out [][]string
	for alt := range strings.SplitSeq(s, "|") {
		if alt == "*" {
			out = append(out, nil)
		} else {
			out = append(out, strings.Split(alt, "+"))
		}
	}
	return out
}

// Format writes the graph back as graph.txt.
func (g *ModuleGraph) Format() []byte {
	var b bytes.Buffer
	b.WriteString("# The module graph every generated service's go.mod and go.sum are selected from:\n" +
		"# a line is in a service when one of its alternatives (keys joined by '+', '|' between\n" +
		"# alternatives, '*' always) names only modules the service has (!key: lacks). Written by\n" +
		"# go test ./generator/render -run TestDependencySets -update; do not edit.\n")
	b.WriteString("go " + g.Go + "\n")
	when := func(w [][]string) string {
		var alts []string
		for _, all := range w {
			if len(all) == 0 {
				return "*"
			}
			alts = append(alts, strings.Join(all, "+"))
		}
		return strings.Join(alts, "|")
	}
	for _, l := range g.Requires {
		kind := "indirect"
		if l.Direct {
			kind = "require"
		}
		b.WriteString(kind + " " + l.Text + " " + when(l.When) + "\n")
	}
	for _, l := range g.Sums {
		b.WriteString("sum " + l.Text + " " + when(l.When) + "\n")
	}
	return b.Bytes()
}

// moduleGraph is the stored graph, read once.
var moduleGraph = sync.OnceValues(func() (*ModuleGraph, error) {
	b, err := templates.FS.ReadFile(graphPath)
	if err != nil {
		return nil, err
	}
	return ParseModuleGraph(b)
})

// GoMod is the go.mod of a service of module path with set s, exactly as
// go mod tidy writes it: a require block of what the service imports, one
// of what those import (// indirect), a block of one written on one line.
func (g *ModuleGraph) GoMod(module string, s model.DependencySet) []byte {
	keys := s.Keys()
	var direct, indirect []string
	for _, l := range g.Requires {
		if !l.in(keys) {
			continue
		}
		if l.Direct {
			direct = append(direct, l.Text)
		} else {
			indirect = append(indirect, l.Text+" // indirect")
		}
	}
	// A module the service imports and one of its modules imports too is
	// required directly, once.
	indirect = slices.DeleteFunc(indirect, func(r string) bool {
		path, _, _ := strings.Cut(r, " ")
		return slices.ContainsFunc(direct, func(d string) bool { return strings.HasPrefix(d, path+" ") })
	})
	var b bytes.Buffer
	b.WriteString("module " + module + "\n\ngo " + g.Go + "\n")
	for _, block := range [][]string{direct, indirect} {
		switch len(block) {
		case 0:
		case 1:
			b.WriteString("\nrequire " + block[0] + "\n")
		default:
			b.WriteString("\nrequire (\n")
			for _, r := range block {
				b.WriteString("\t" + r + "\n")
			}
			b.WriteString(")\n")
		}
	}
	return b.Bytes()
}

// GoSum is the go.sum of a service with set s.
func (g *ModuleGraph) GoSum(s model.DependencySet) []byte {
	keys := s.Keys()
	var b bytes.Buffer
	for _, l := range g.Sums {
		if l.in(keys) {
			b.WriteString(l.Text + "\n")
		}
	}
	return b.Bytes()
}

func buildGoMod(m *model.Model) ([]byte, error) {
	g, err := moduleGraph()
	if err != nil {
		return nil, err
	}
	return g.GoMod(m.Module, m.Dependencies()), nil
}

func buildGoSum(m *model.Model) ([]byte, error) {
	g, err := moduleGraph()
	if err != nil {
		return nil, err
	}
	return g.GoSum(m.Dependencies()), nil
}

// answersHeader opens gsgen.yaml. It is not a DO NOT EDIT marker: this file
// is the source of truth a user edits before `gsgen regen`.
const answersHeader = "# Answers gsgen generated this service from. Edit them, then run gsgen regen\n# to regenerate the files it owns (files you own are never touched).\n"

func buildAnswersFile(m *model.Model) ([]byte, error) {
	b, err := answers.MarshalAnswersFile(m.Answers)
	if err != nil {
		return nil, err
	}
	return append([]byte(answersHeader), b...), nil
}

// untouched reports whether onDisk is exactly the go.mod (ext "mod", of
// module) or go.sum ("sum") of some dependency set: gsgen wrote it and the
// user has not added anything, so the rendered file can replace it whole.
func untouched(ext string, onDisk []byte, module string) (bool, error) {
	g, err := moduleGraph()
	if err != nil {
		return false, err
	}
	for _, s := range model.AllDependencySets() {
		written := g.GoSum(s)
		if ext == "mod" {
			written = g.GoMod(module, s)
		}
		if bytes.Equal(written, onDisk) {
			return true, nil
		}
	}
	return false, nil
}

// mergeGoMod keeps the user's own requirements: a go.mod gsgen wrote and
// nobody changed is replaced by the new one (exactly what go mod tidy
// writes); otherwise each requirement of the new one is added to it, or
// raised to the new version, and the rest stays as the user left it.
func mergeGoMod(onDisk, rendered []byte) ([]byte, error) {
	disk, err := modfile.Parse("go.mod", onDisk, nil)
	if err != nil {
		return nil, &problem.InputError{Field: "go.mod", Msg: "cannot be parsed: " + err.Error(), Fix: "fix it (go mod tidy reports the same problem) and re-run"}
	}
	if disk.Module == nil {
		return nil, &problem.InputError{Field: "go.mod", Msg: "has no module line", Fix: "add one (module example.com/you/service), or move go.mod away"}
	}
	want, err := modfile.Parse("go.mod", rendered, nil)
	if err != nil {
		return nil, err
	}
	if have, module := disk.Module.Mod.Path, want.Module.Mod.Path; have != module {
		// The service's imports say module; a go.mod naming another would
		// not build, and its module line is the user's to change.
		return nil, &problem.InputError{Field: "go.mod", Msg: fmt.Sprintf("its module is %s, but the service's module is %s", problem.Quote(have), problem.Quote(module)),
			Fix: fmt.Sprintf("give the service the same module (--module %s, or module: in gsgen.yaml), or change go.mod's module line", problem.Shorten(have))}
	}
	ok, err := untouched("mod", onDisk, disk.Module.Mod.Path)
	if err != nil || ok {
		return rendered, err
	}
	have := map[string]*modfile.Require{}
	for _, r := range disk.Require {
		have[r.Mod.Path] = r
	}
	for _, r := range want.Require {
		old, found := have[r.Mod.Path]
		switch {
		case !found:
			disk.AddNewRequire(r.Mod.Path, r.Mod.Version, r.Indirect)
		case semver.Compare(old.Mod.Version, r.Mod.Version) < 0:
			if err := disk.AddRequire(r.Mod.Path, r.Mod.Version); err != nil {
				return nil, err
			}
		}
	}
	// New requirements go where go mod tidy puts them: sorted in their block.
	disk.SortBlocks()
	disk.Cleanup()
	return disk.Format()
}

// mergeGoSum keeps every checksum the user's go.sum has and adds the new ones.
func mergeGoSum(onDisk, rendered []byte) ([]byte, error) {
	ok, err := untouched("sum", onDisk, "")
	if err != nil || ok {
		return rendered, err
	}
	lines := map[string]bool{}
	for _, b := range [][]byte{onDisk, rendered} {
		for l := range strings.SplitSeq(string(b), "\n") {
			if l != "" {
				lines[l] = true
			}
		}
	}
	var out bytes.Buffer
	for _, l := range slices.Sorted(maps.Keys(lines)) {
		out.WriteString(l + "\n")
	}
	return out.Bytes(), nil
}
