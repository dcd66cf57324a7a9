package render

// The checks on the Go a service's templates rendered: names that derive
// fine (names.go) but whose code would not build. They read rendered
// files, so they belong to the render step, not to the model.

import (
	"bytes"
	"fmt"
	"go/build"
	"io"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// CheckGo refuses names whose rendered Go does not build: two
// declarations of one identifier in a package (workers x2 and x-2 both
// declare X2; a worker named config declares Config beside worker.go's), or
// a file whose name Go reads as more than a name (worker x-test writes
// x_test.go, a test file; x-linux writes x_linux.go, built on Linux only).
// It reads what the templates rendered, so every identifier a template
// declares is checked, with no list of words to keep up to date. The
// instance named is the latest in the answers of those that bring the
// identifier (see redeclared).
func CheckGo(m *model.Model, files Rendered) error {
	byDir := map[string][]RenderedFile{}
	for _, f := range files {
		if path.Ext(f.Path) == ".go" {
			byDir[path.Dir(f.Path)] = append(byDir[path.Dir(f.Path)], f)
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		for _, f := range byDir[dir] {
			if err := checkGoFileName(m, f); err != nil {
				return err
			}
		}
		if err := checkDeclarations(m, instanceFilesLast(m, byDir[dir])); err != nil {
			return err
		}
	}
	return nil
}

// instanceFilesLast orders a package's files: gsgen's own first, then each
// instance's in the order of the answers, so a collision is found at the
// instance that brings it.
func instanceFilesLast(m *model.Model, files []RenderedFile) []RenderedFile {
	rank := func(f RenderedFile) int {
		it, ok := f.Item.(Instance)
		if !ok {
			return -1
		}
		_, i := instanceField(m, it)
		return i
	}
	return slices.SortedStableFunc(slices.Values(files), func(a, b RenderedFile) int { return rank(a) - rank(b) })
}

// goContexts are platforms a generated service builds on: a file of an
// instance must build on each of them, as the template it comes from does.
var goContexts = [][2]string{{"linux", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}}

// checkGoFileName refuses an instance's Go file that Go would not build as
// its template's other files are built: a test file that is not meant to be
// one, or a file with a GOOS or GOARCH suffix.
func checkGoFileName(m *model.Model, f RenderedFile) error {
	it, ok := f.Item.(Instance)
	if !ok {
		return nil
	}
	field, _ := instanceField(m, it)
	name := path.Base(f.Path)
	meant := strings.ReplaceAll(strings.TrimSuffix(strings.TrimSuffix(path.Base(f.Template), ".tmpl"), ".user"), "_item_", "item")
	bad := func(why string) error {
		return &problem.InputError{Field: field, Msg: fmt.Sprintf("%s names its file %s, which %s", problem.Quote(it.Names().Name), f.Path, why),
			Fix: "choose a name that does not end in -test or in an OS or architecture (-linux, -windows, -amd64 ...)"}
	}
	if strings.HasSuffix(name, "_test.go") != strings.HasSuffix(meant, "_test.go") {
		return bad("Go takes for a test file (the _test suffix)")
	}
	for _, p := range goContexts {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH, ctx.BuildTags, ctx.ReleaseTags = p[0], p[1], nil, nil
		ctx.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.Content)), nil }
		if ok, err := ctx.MatchFile(path.Dir(f.Path), name); err == nil && !ok {
			return bad(fmt.Sprintf("Go reads as a build constraint (its last _suffix): it would not be built on %s/%s", p[0], p[1]))
		}
	}
	return nil
}

// declared is where an identifier of a package is declared.
type declared struct {
	file RenderedFile
	line int
}

// checkDeclarations refuses two declarations of one package-level
// identifier (or one method of a type) among the files of one directory,
// each package (a _test package is its own) apart.
func checkDeclarations(m *model.Model, files []RenderedFile) error {
	seen := map[string]declared{}
	for _, f := range files {
		top, err := readTopLevel(f.Path, f.Content)
		if err != nil {
			return fmt.Errorf("parsing %s (a template bug): %w", f.Path, err)
		}
		for _, id := range top.names {
			key := top.pkg + "." + id.name
			here := declared{f, id.line}
			if first, ok := seen[key]; ok {
				return redeclared(m, files, id.name, first, here)
			}
			seen[key] = here
		}
	}
	return nil
}

// redeclared explains identifier name declared at first and again at
// again, naming the instance that brings it: of the instances whose file
// declares it, or (in a file gsgen renders for all of them, such as
// worker.go) whose Go name it holds, the latest in the answers.
func redeclared(m *model.Model, files []RenderedFile, name string, first, again declared) error {
	var suspects []Instance
	for _, d := range []declared{first, again} {
		if it, ok := d.file.Item.(Instance); ok {
			suspects = append(suspects, it)
			continue
		}
		for _, f := range files {
			if it, ok := f.Item.(Instance); ok && strings.Contains(name, it.Names().GoName) && !slices.ContainsFunc(suspects, func(s Instance) bool { return sameInstance(s, it) }) {
				suspects = append(suspects, it)
			}
		}
	}
	if len(suspects) == 0 {
		return fmt.Errorf("%s is declared in %s:%d and %s:%d (a template bug)", name, first.file.Path, first.line, again.file.Path, again.line)
	}
	rank := func(it Instance) int { _, i := instanceField(m, it); return i }
	blame := slices.MaxFunc(suspects, func(a, b Instance) int { return rank(a) - rank(b) })
	field, _ := instanceField(m, blame)
	owns := func(d declared) bool { it, ok := d.file.Item.(Instance); return ok && sameInstance(it, blame) }
	there := first // the declaration that is not blame's
	if owns(first) || !owns(again) && again.file.Item != nil {
		there = again
	}
	other := "gsgen's " + there.file.Path
	if it, ok := there.file.Item.(Instance); ok {
		f, _ := instanceField(m, it)
		other = fmt.Sprintf("%s %s (in %s)", f, problem.Quote(it.Names().Name), there.file.Path)
	} else {
		for _, it := range slices.Backward(suspects) {
			if !sameInstance(it, blame) {
				f, _ := instanceField(m, it)
				other = fmt.Sprintf("%s %s (in %s)", f, problem.Quote(it.Names().Name), there.file.Path)
				break
			}
		}
	}
	return &problem.InputError{Field: field, Msg: fmt.Sprintf("%s gives the Go name %s, which %s declares too, so the service would not build", problem.Quote(blame.Names().Name), name, other),
		Fix: "choose another name"}
}

// sameInstance compares instances by kind and name: the instance types
// need not be comparable.
func sameInstance(a, b Instance) bool {
	return reflect.TypeOf(a) == reflect.TypeOf(b) && a.Names().Name == b.Names().Name
}

// instanceField is the answer an instance comes from ("workers[1].name",
// "tasks[0].type") and its index in its list; "" and -1 when it is none of
// the model's.
func instanceField(m *model.Model, it Instance) (string, int) {
	for _, k := range m.KindsOn() {
		for i, x := range k.InstancesOf(m) {
			if sameInstance(x, it) {
				key := "name"
				if k.Name == model.Task {
					key = "type"
				}
				return fmt.Sprintf("%s[%d].%s", k.Instances.Field, i, key), i
			}
		}
	}
	return "", -1
}

// CheckInstanceGo renders the Go packages the model's named instances live
// in and checks them as Generate does (CheckGo): what gsgen add asks
// a name against as it is typed, without rendering the whole service.
func CheckInstanceGo(m *model.Model) error {
	plan, err := Plan(m)
	if err != nil {
		return err
	}
	dirs := map[string]bool{}
	for _, f := range plan {
		if f.Item != nil && f.ext() == ".go" {
			dirs[path.Dir(f.Path)] = true
		}
	}
	files, err := render(m, plan, func(f PlannedFile) bool { return f.ext() == ".go" && dirs[path.Dir(f.Path)] })
	if err != nil {
		return err
	}
	return CheckGo(m, files)
}
