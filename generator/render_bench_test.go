package generator

import (
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkRenderWorkers renders the full preset one file at a time and
// with a worker per CPU. To alternate the two (-count repeats each in turn,
// not the pair), compile once and loop:
//
//	go test -c -o gen.test ./generator && cd generator
//	for i in 1 2 3 4 5; do for w in 1 2; do
//	  ../gen.test -test.run '^$' -test.bench "RenderWorkers/workers=$w\$"; done; done
func BenchmarkRenderWorkers(b *testing.B) {
	m := defaultModel(b, Answers{Name: "orders", Components: []string{"http", "outbox", "asynq", "kafka", "cleaner"}})
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
