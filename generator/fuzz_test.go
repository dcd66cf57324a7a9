package generator

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
)

// The fuzz targets feed gsgen's parsing and validation what a user could
// type. Their seed corpus is testdata/fuzz/<target>/ plus the golden answers
// files; `go test` runs the seeds, `go test -fuzz FuzzAnswersFile` explores.

// FuzzAnswersFile: any bytes given as an answers file either are refused
// with an *InputError or make a model that keeps the ladder's promises, and
// whose gsgen.yaml reads back to the same model.
func FuzzAnswersFile(f *testing.F) {
	golden, _ := filepath.Glob(filepath.Join("..", "golden", "*.yaml"))
	for _, name := range golden {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := answers.ParseAnswersFile("gsgen.yaml", data)
		if err != nil {
			requireInputError(t, err)
			return
		}
		m, err := NewModel(a.WithDefaults())
		if err != nil {
			requireInputError(t, err)
			return
		}
		checkModel(t, m)

		// The normalised answers are written into the service as gsgen.yaml,
		// and a re-run starts from them: they must read back to this model.
		written, err := answers.MarshalAnswersFile(m.Answers)
		if err != nil {
			t.Fatalf("writing gsgen.yaml of a valid model: %v", err)
		}
		back, err := answers.ParseAnswersFile("gsgen.yaml", written)
		if err != nil {
			t.Fatalf("the gsgen.yaml gsgen writes does not read back: %v\n%s", err, written)
		}
		again, err := NewModel(back.WithDefaults())
		if err != nil {
			t.Fatalf("the gsgen.yaml gsgen writes is refused on a re-run: %v\n%s", err, written)
		}
		if diff := cmp.Diff(m, again, cmpopts.IgnoreUnexported(model.Model{})); diff != "" {
			t.Fatalf("re-reading gsgen.yaml gives another model (-first +re-read):\n%s\n%s", diff, written)
		}
	})
}

// FuzzFlags: the values of the flags that reach the model (name, module,
// components, consumers as NAME:TOPIC, the asynq mode, the outbox topic,
// numbers and every timeout), set the way `gsgen new` sets them, either are
// refused with an *InputError or make a model that keeps the ladder's
// promises and renders.
func FuzzFlags(f *testing.F) {
	f.Fuzz(func(t *testing.T, name, module, components, consumers, asynqMode, outboxTopic string,
		port, batchSize, concurrency int, unordered, allowRequeue bool,
		prestop, grace, httpShutdown, workerDrain, asynqShutdown, taskTimeout, closeBudget, margin, batchTimeout int64) {
		// `gsgen new` refuses a negative number or duration before the model
		// (exit 2, covered by cmd/gsgen's tests); zero is a flag not given.
		for _, n := range []int64{int64(port), int64(batchSize), int64(concurrency),
			prestop, grace, httpShutdown, workerDrain, asynqShutdown, taskTimeout, closeBudget, margin, batchTimeout} {
			if n < 0 {
				return
			}
		}
		a := answers.Answers{Name: name, Module: module, Components: answers.SplitList(components)}
		a.HTTP.Port = port
		for i, d := range []int64{prestop, grace, httpShutdown, workerDrain, asynqShutdown, taskTimeout, closeBudget, margin} {
			*answers.TimeoutFields[i].Of(&a.Timeouts) = answers.Duration(d)
		}
		a.Outbox = answers.OutboxAnswers{Topic: outboxTopic, BatchSize: batchSize, BatchTimeout: answers.Duration(batchTimeout), Unordered: unordered}
		a.Asynq = answers.AsynqAnswers{Mode: asynqMode, Concurrency: concurrency, AllowRequeue: allowRequeue}
		if consumers != "" {
			// --consumer NAME[:TOPIC], repeated; here comma-separated.
			for c := range strings.SplitSeq(consumers, ",") {
				n, topic, _ := strings.Cut(c, ":")
				a.Consumers = append(a.Consumers, answers.ConsumerAnswers{Name: n, Topic: topic})
			}
		}

		m, err := NewModel(a.WithDefaults())
		if err != nil {
			requireInputError(t, err)
			return
		}
		checkModel(t, m)
		plan, err := render.Plan(m)
		if err != nil {
			t.Fatalf("valid model, but no file plan: %v", err)
		}
		if _, err := render.Render(m, plan); err != nil {
			t.Fatalf("valid model, but its files do not render: %v", err)
		}
	})
}

// requireInputError fails unless err is bad input, which the CLI reports
// with exit 2 naming the field.
func requireInputError(t *testing.T, err error) {
	t.Helper()
	var input *problem.InputError
	if !errors.As(err, &input) {
		t.Fatalf("refused with %T (%v), want an *InputError", err, err)
	}
	if input.Field == "" || input.Msg == "" {
		t.Fatalf("InputError without a field or a message: %#v", input)
	}
}

// checkModel checks the promises of a model NewModel accepted, in exact
// arithmetic: every timeout positive, the worst case within the grace
// period, and each inner timeout within its limit unless allowed.
func checkModel(t *testing.T, m *model.Model) {
	t.Helper()
	l := m.Ladder
	for _, d := range []time.Duration{l.Grace, l.Close, l.Margin} {
		if d <= 0 {
			t.Fatalf("accepted a timeout of %v in ladder %+v", d, l)
		}
	}
	// Without a kind that listens (HTTP, gRPC: beside the admin listener)
	// no Service routes to the pod: no preStop, and only then.
	listeners := m.Listeners("")
	if routed := len(listeners) > 1; (l.PreStop <= 0) == routed {
		t.Fatalf("preStop %v in the ladder of a service listening on %v", l.PreStop, listeners)
	}
	worst := new(big.Int)
	for _, d := range []time.Duration{l.PreStop, l.LongestDrain().D, l.Close, l.Margin} {
		worst.Add(worst, big.NewInt(int64(d)))
	}
	if worst.Cmp(big.NewInt(int64(l.Grace))) > 0 {
		t.Fatalf("accepted a ladder that does not fit: preStop %d + drain %d + close %d + margin %d ns > grace %d ns",
			l.PreStop, l.LongestDrain().D, l.Close, l.Margin, l.Grace)
	}
	for _, b := range l.Inner {
		if b.D <= 0 || (b.Exceeded() && !b.Allowed) {
			t.Fatalf("accepted %s %v against %s %v", b.Name, b.D, b.LimitName, b.Limit)
		}
	}
}

// FuzzInstanceNames: the names of workers and task types either are refused
// with an *InputError or render packages that go/types finds no
// redeclaration in, with no file Go would take for a test file or leave out
// of a build. go/types is a second reader of the rendered code, apart from
// render.CheckGo's walk of the declarations.
func FuzzInstanceNames(f *testing.F) {
	for _, seed := range [][4]string{
		{"x2", "x-2", "report:build", ""}, {"a-b", "a--b", "", ""}, {"func", "", "", ""}, {"config", "", "", ""},
		{"new", "", "", ""}, {"x-test", "", "", ""}, {"x-linux", "", "", ""}, {"", "", "task", ""},
		{"", "", "type", "payload"}, {"", "", "email:welcome", ""}, {"", "", "welcome:email", ""}, {"nightly", "", "a:b", "a-b"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	f.Fuzz(func(t *testing.T, worker1, worker2, task1, task2 string) {
		a := answers.Answers{Name: "shop", Components: []string{"http"}}
		for _, w := range []string{worker1, worker2} {
			if w != "" {
				a.Workers = append(a.Workers, answers.WorkerAnswers{Name: w, Interval: answers.Duration(time.Minute)})
			}
		}
		for _, task := range []string{task1, task2} {
			if task != "" {
				a.Components = []string{"http", "asynq"}
				a.Tasks = append(a.Tasks, answers.TaskAnswers{Type: task})
			}
		}
		_, files, err := Generate(a.WithDefaults())
		if err != nil {
			requireInputError(t, err)
			return
		}
		byDir := map[string][]render.RenderedFile{}
		for _, f := range files {
			if strings.HasSuffix(f.Path, ".go") {
				byDir[filepath.Dir(f.Path)] = append(byDir[filepath.Dir(f.Path)], f)
			}
			if f.Item != nil && strings.HasSuffix(f.Path, "_test.go") && !strings.Contains(f.Template, "_test.go") {
				t.Fatalf("accepted a name that makes %s a test file", f.Path)
			}
		}
		for dir, fs := range byDir {
			if redeclared := typeCheckRedeclarations(t, fs); redeclared != "" {
				t.Fatalf("accepted names whose code does not build: %s: %s", dir, redeclared)
			}
		}
	})
}

// typeCheckRedeclarations type-checks each package among files (imports
// left unresolved) and returns the first error saying that a name is
// declared twice, or "".
func typeCheckRedeclarations(t *testing.T, files []render.RenderedFile) string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs := map[string][]*ast.File{}
	for _, f := range files {
		file, err := parser.ParseFile(fset, f.Path, f.Content, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s does not parse: %v", f.Path, err)
		}
		pkgs[file.Name.Name] = append(pkgs[file.Name.Name], file)
	}
	found := ""
	for name, fs := range pkgs {
		conf := types.Config{Importer: fakeImporter{}, Error: func(err error) {
			if msg := err.Error(); found == "" && (strings.Contains(msg, "redeclared") || strings.Contains(msg, "already declared")) {
				found = msg
			}
		}}
		conf.Check(name, fset, fs, nil)
	}
	return found
}

// fakeImporter gives every import an empty package: only declarations
// within the package matter here.
type fakeImporter struct{}

func (fakeImporter) Import(path string) (*types.Package, error) {
	p := types.NewPackage(path, filepath.Base(path))
	p.MarkComplete()
	return p, nil
}
