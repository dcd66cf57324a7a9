package render

import (
	"go/format"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/templates"
)

// BenchmarkRenderWorkers renders the full preset one file at a time and
// with a worker per CPU. To alternate the two (-count repeats each in turn,
// not the pair), compile once and loop:
//
//	go test -c -o render.test ./generator/render && cd generator/render
//	for i in 1 2 3 4 5; do for w in 1 2; do
//	  ../../render.test -test.run '^$' -test.bench "RenderWorkers/workers=$w\$"; done; done
func BenchmarkRenderWorkers(b *testing.B) {
	m := defaultModel(b, answers.Answers{Name: "orders", Components: []string{"http", "outbox", "asynq", "kafka", "cleaner"}})
	plan, err := Plan(m)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("workers="+strconv.Itoa(n), func(b *testing.B) {
			defer func(old int) { renderWorkers = old }(renderWorkers)
			renderWorkers = n
			for b.Loop() {
				if _, err := Render(m, plan); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewSteps times, one at a time, the steps of `gsgen new` of the
// full preset after planning, so the cost of each is a figure of its own
// (docs/benchmarks.md section 1): parsing every template, executing them, gofmt of the
// files still formatted at run time and of every Go file (what render did
// before templates were made clean), the check of the rendered Go's
// declarations (the compressed base: generator's BenchmarkLockAndBase). To alternate the steps, compile
// once and loop:
//
//	go test -c -o render.test ./generator/render && cd generator/render
//	for i in 1 2 3 4 5 6 7; do for s in parse execute gofmt-listed gofmt-listed-for-names gofmt-all check-declarations; do
//	  ../../render.test -test.run '^$' -test.bench "NewSteps/$s\$" -test.benchtime 20x; done; done
func BenchmarkNewSteps(b *testing.B) {
	a := answers.Answers{Name: "orders", Components: []string{"http", "outbox", "asynq", "kafka", "cleaner"},
		Consumers: []answers.ConsumerAnswers{{Name: "order-events", Topic: "events"}}}
	m := defaultModel(b, a)
	plan, err := Plan(m)
	if err != nil {
		b.Fatal(err)
	}
	root, err := parsed()
	if err != nil {
		b.Fatal(err)
	}
	var raw [][]byte
	var listed, goFiles int
	for _, f := range plan {
		body, err := renderRaw(root, m, f, nil)
		if err != nil {
			b.Fatal(err)
		}
		raw = append(raw, body)
		if f.ext() == ".go" {
			goFiles++
			if _, ok := formattedAtRunTime[f.Template]; ok {
				listed++
			}
		}
	}
	b.Logf("%d files planned, %d Go, %d still formatted at run time", len(plan), goFiles, listed)
	gofmt := func(b *testing.B, only func(PlannedFile) bool) {
		for b.Loop() {
			for i, f := range plan {
				if f.ext() == ".go" && only(f) {
					if _, err := format.Source(raw[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := parseTemplates(templates.FS); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("execute", func(b *testing.B) {
		for b.Loop() {
			for _, f := range plan {
				if _, err := renderRaw(root, m, f, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("gofmt-listed", func(b *testing.B) {
		gofmt(b, func(f PlannedFile) bool { _, ok := formattedAtRunTime[f.Template]; return ok })
	})
	// Of those, the ones listed because names of the user's change what
	// gofmt makes of them, not because they await a rewrite elsewhere.
	b.Run("gofmt-listed-for-names", func(b *testing.B) {
		gofmt(b, func(f PlannedFile) bool {
			why, ok := formattedAtRunTime[f.Template]
			return ok && !strings.HasPrefix(why, "not yet made clean")
		})
	})
	b.Run("gofmt-all", func(b *testing.B) { gofmt(b, func(PlannedFile) bool { return true }) })
	files, err := renderService(a.WithDefaults(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("check-declarations", func(b *testing.B) {
		for b.Loop() {
			if err := CheckGo(m, files); err != nil {
				b.Fatal(err)
			}
		}
	})
}
