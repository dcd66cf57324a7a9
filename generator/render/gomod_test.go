package render

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/gsgen-dev/gsgen/generator/model"
)

var update = flag.Bool("update", false, "rewrite what is stored from a derivation: the module graph (templates/gomod/graph.txt), ownschema.json")

// The graph gives every service validation accepts a go.mod that requires
// each module its set pins, at the pin or above (one module's pin can raise
// another's): generation needs no network, and never leaves a module out.
func TestGraphRequiresEveryPin(t *testing.T) {
	for _, s := range acceptedSpace(t) {
		m, err := NewModel(s.Answers, s.UserSQL)
		if err != nil {
			t.Fatal(err)
		}
		b, err := buildGoMod(m)
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.Parse("go.mod", b, nil)
		if err != nil {
			t.Fatalf("%s: %v\n%s", s.Shape, err, b)
		}
		for _, mod := range m.Dependencies().Modules() {
			i := slices.IndexFunc(f.Require, func(r *modfile.Require) bool { return r.Mod.Path == mod.Path })
			if i < 0 || semver.Compare(f.Require[i].Mod.Version, mod.Version) < 0 || f.Require[i].Indirect {
				t.Errorf("%s: go.mod does not require %s %s directly:\n%s", s.Shape, mod.Path, mod.Version, b)
			}
		}
	}
}

// modulePlaceholder is the module path the graph is tidied with.
const modulePlaceholder = "example.com/gsgen-dependency-set"

// TestDependencySets checks that templates/gomod/graph.txt is the module
// graph of the pins (the set with every module, tidied from scratch) and
// that what it selects for each dependency set is exactly what `go mod tidy`
// writes for a service of that set whose go.mod starts from the whole graph:
// generation needs no network and the output stays tidy. With -update it
// rewrites the graph. It needs the go command and a module cache (or the proxy).
func TestDependencySets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go mod tidy; skipped with -short")
	}
	type set struct {
		deps  model.DependencySet
		shape AcceptedService
	}
	var sets []set
	seen := map[string]bool{}
	for _, s := range acceptedSpace(t) {
		s.Answers.Module = modulePlaceholder
		m, err := NewModel(s.Answers, s.UserSQL)
		if err != nil {
			t.Fatal(err)
		}
		if d := m.Dependencies(); !seen[d.Key()] {
			seen[d.Key()] = true
			sets = append(sets, set{d, s})
		}
	}
	i := slices.IndexFunc(sets, func(s set) bool { return s.deps == all })
	if i < 0 {
		t.Fatalf("no accepted service has every module (%s): the graph is tidied from one", all.Key())
	}
	// The graph: the set with every module, tidied from its pins.
	pins := "module " + modulePlaceholder + "\n\ngo 1.26\n\nrequire (\n"
	for _, mod := range all.Modules() {
		pins += "\t" + mod.Path + " " + mod.Version + "\n"
	}
	fullMod, fullSum := tidy(t, sets[i].shape, pins+")\n", nil)

	type tidied struct{ mod, sum []byte }
	got := map[model.DependencySet]tidied{}
	type req struct {
		text   string
		direct bool
	}
	requires := map[req][]model.DependencySet{}
	sums := map[string][]model.DependencySet{}
	for _, s := range sets {
		mod, sum := fullMod, fullSum
		if s.deps != all {
			mod, sum = tidy(t, s.shape, string(fullMod), fullSum)
		}
		got[s.deps] = tidied{mod, sum}
		f, err := modfile.Parse("go.mod", mod, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Require {
			l := req{r.Mod.Path + " " + r.Mod.Version, !r.Indirect}
			requires[l] = append(requires[l], s.deps)
		}
		for l := range strings.SplitSeq(strings.TrimSpace(string(sum)), "\n") {
			sums[l] = append(sums[l], s.deps)
		}
	}
	without := func(in []model.DependencySet) []model.DependencySet {
		var out []model.DependencySet
		for _, s := range sets {
			if !slices.Contains(in, s.deps) {
				out = append(out, s.deps)
			}
		}
		return out
	}
	full, err := modfile.Parse("go.mod", fullMod, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &ModuleGraph{Go: full.Go.Version}
	// Each requirement once, whichever sets have it (the whole set does not
	// have them all).
	for l, in := range requires {
		g.Requires = append(g.Requires, GraphLine{l.text, l.direct, when(in, without(in))})
	}
	slices.SortFunc(g.Requires, func(a, b GraphLine) int {
		if c := strings.Compare(a.Text, b.Text); c != 0 {
			return c
		}
		return strings.Compare(fmt.Sprint(a.Direct), fmt.Sprint(b.Direct))
	})
	for l, in := range sums {
		g.Sums = append(g.Sums, GraphLine{Text: l, When: when(in, without(in))})
	}
	slices.SortFunc(g.Sums, func(a, b GraphLine) int { return compareSumLines(a.Text, b.Text) })
	// What the graph selects is what tidy wrote, for every set.
	for _, s := range sets {
		if mod := g.GoMod(modulePlaceholder, s.deps); string(mod) != string(got[s.deps].mod) {
			t.Errorf("%s: the graph selects\n%s\nbut go mod tidy writes\n%s", s.deps.Key(), mod, got[s.deps].mod)
		}
		if sum := g.GoSum(s.deps); string(sum) != string(got[s.deps].sum) {
			t.Errorf("%s: the graph selects\n%s\nbut go mod tidy writes\n%s", s.deps.Key(), sum, got[s.deps].sum)
		}
	}
	stored := filepath.Join("..", "..", "templates", filepath.FromSlash(graphPath))
	if *update {
		if err := os.WriteFile(stored, g.Format(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want, err := os.ReadFile(stored); err != nil || string(want) != string(g.Format()) {
		t.Errorf("%s is stale (err %v); run go test ./generator/render -run TestDependencySets -update", stored, err)
	}
}

// when derives a line's When from the sets that have it (in) and the
// others: for each set that has it, the literals of its keys (present and
// absent), dropping every literal the line's absence from the others does
// not need.
func when(in, others []model.DependencySet) [][]string {
	var out [][]string
	for _, s := range in {
		keys := s.Keys()
		if slices.ContainsFunc(out, func(term []string) bool { return holds(term, keys) }) {
			continue
		}
		var term []string
		for _, k := range all.Keys() {
			if slices.Contains(keys, k) {
				term = append(term, k)
			} else {
				term = append(term, "!"+k)
			}
		}
		for i := 0; i < len(term); {
			shorter := slices.Delete(slices.Clone(term), i, i+1)
			if slices.ContainsFunc(others, func(o model.DependencySet) bool { return holds(shorter, o.Keys()) }) {
				i++
				continue
			}
			term = shorter
		}
		out = append(out, term)
	}
	return out
}

// compareSumLines orders go.sum lines as the go command writes them: by
// module path, then version (semver), a version's go.mod after its zip.
func compareSumLines(a, b string) int {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if c := strings.Compare(fa[0], fb[0]); c != 0 {
		return c
	}
	va, modA := strings.CutSuffix(fa[1], "/go.mod")
	vb, modB := strings.CutSuffix(fb[1], "/go.mod")
	if c := semver.Compare(va, vb); c != 0 {
		return c
	}
	return strings.Compare(fmt.Sprint(modA), fmt.Sprint(modB))
}

// all is the set of every module.
var all = model.DependencySet{Pgx: true, KafkaGo: true, Asynq: true, Otel: true, OtelHTTP: true, Cron: true, Consumers: true, GRPC: true}

// tidy renders shape without go.mod and go.sum, writes gomod (and gosum,
// when given) beside it, runs go mod tidy and returns what it wrote.
func tidy(t *testing.T, shape AcceptedService, gomod string, gosum []byte) (mod, sum []byte) {
	t.Helper()
	m, err := NewModel(shape.Answers, shape.UserSQL)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	// Tidy from what is given: the stored graph is the output, never the input.
	plan = slices.DeleteFunc(plan, func(f PlannedFile) bool { return f.Path == "go.mod" || f.Path == "go.sum" })
	files, err := Render(m, plan)
	if err != nil {
		t.Fatal(err)
	}
	if m.UsesPostgres {
		db, err := sqlcOutput(files, shape.UserSQL)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, db...)
	}
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644)
	if gosum != nil {
		os.WriteFile(filepath.Join(dir, "go.sum"), gosum, 0o644)
	}
	cmd := exec.Command("go", "mod", "tidy")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: go mod tidy: %v\n%s", shape.Shape, err, out)
	}
	mod, _ = os.ReadFile(filepath.Join(dir, "go.mod"))
	sum, _ = os.ReadFile(filepath.Join(dir, "go.sum"))
	return mod, sum
}

// acceptedSpace is AcceptedSpace, failing t if validation refuses a point.
func acceptedSpace(t *testing.T) []AcceptedService {
	t.Helper()
	space, err := AcceptedSpace()
	if err != nil {
		t.Fatal(err)
	}
	return space
}
