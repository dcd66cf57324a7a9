package bench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/render"
	"github.com/gsgen-dev/gsgen/generator/sqlc"
)

// The benchmarks below split `gsgen new -f golden/full.yaml` into its steps,
// so a profile (-cpuprofile) or the ns/op figures show which one dominates.
// sqlc runs in a child copy of the executable: here, of this test binary.

// fullAnswers reads golden/full.yaml with defaults applied, as `gsgen new -f` does.
func fullAnswers(b *testing.B) answers.Answers {
	b.Helper()
	name := filepath.Join("..", "golden", "full.yaml")
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	a, err := answers.ParseAnswersFile(name, data)
	if err != nil {
		b.Fatal(err)
	}
	return a.WithDefaults()
}

// BenchmarkGenerate is the whole in-memory pipeline: validate, plan,
// render with gofmt, sqlc (fork and exec), lock file.
func BenchmarkGenerate(b *testing.B) {
	a := fullAnswers(b)
	for b.Loop() {
		if _, _, err := generator.Generate(a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRender is Generate without sqlc: validate, plan, render with gofmt.
func BenchmarkRender(b *testing.B) {
	a := fullAnswers(b)
	for b.Loop() {
		m, err := generator.NewModel(a)
		if err != nil {
			b.Fatal(err)
		}
		plan, err := render.Plan(m)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := render.Render(m, plan); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSQLC is sqlc alone over the full preset's rendered SQL: temporary
// input files, the child process, reading its output back.
func BenchmarkSQLC(b *testing.B) {
	_, files, err := generator.Generate(fullAnswers(b))
	if err != nil {
		b.Fatal(err)
	}
	in := map[string][]byte{}
	for _, f := range files {
		in[f.Path] = f.Content
	}
	for b.Loop() {
		if _, err := sqlc.Generate(in); err != nil {
			b.Fatal(err)
		}
	}
}
