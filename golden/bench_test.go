package golden

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var (
	benchServices = flag.Bool("bench-services", false,
		"run the benchmarks of golden/testdata/bench/<preset> over golden/<preset> and print their figures (or set GSGEN_BENCH=1)")
	benchCount = flag.Int("bench-count", 5, "samples of each benchmark with -bench-services")
)

// TestBench runs the benchmarks of golden/testdata/bench/<preset> (files
// ending in _bench_test.go, and helpers) against the generated code of
// golden/<preset>, in a temporary copy as TestIntegration does, and logs each
// figure as the median of -bench-count samples with min and max (run with
// -v to see them). Each sample is one iteration (-benchtime 1x). It asserts
// no figure: a benchmark fails only when what it measures goes wrong.
//
// It runs only when asked, as it takes minutes: -bench-services or
// GSGEN_BENCH=1 for the figures, GSGEN_BENCH=short for one short sample of
// each (the benchmarks' -short mode), which is what CI runs so they cannot rot.
func TestBench(t *testing.T) {
	count, short := *benchCount, false
	switch mode := os.Getenv("GSGEN_BENCH"); {
	case mode == "short":
		count, short = 1, true
	case *benchServices || mode == "1":
	default:
		t.Skip("service benchmarks run only with -bench-services, GSGEN_BENCH=1 or GSGEN_BENCH=short")
	}
	overlays, err := filepath.Glob(filepath.Join("testdata", "bench", "*"))
	if err != nil {
		t.Fatal(err)
	}
	requires := testRequirements(t)
	for _, overlay := range overlays {
		preset := filepath.Base(overlay)
		t.Run(preset, func(t *testing.T) {
			dir := serviceWithOverlay(t, preset, overlay, requires)
			args := []string{"test", "-run", "^$", "-bench", ".", "-benchtime", "1x",
				"-count", strconv.Itoa(count), "-timeout", "30m"}
			if short {
				args = append(args, "-short")
			}
			out := goCmd(t, dir, append(args, benchPackages(t, overlay)...)...)
			t.Logf("go %s\n%s", strings.Join(args, " "), out)
			t.Logf("median (min–max) of %d samples:\n%s", count, summarize(out))
		})
	}
}

// benchPackages lists the overlay's packages that hold benchmarks, as
// ./relative paths, so that go test builds only those.
func benchPackages(t *testing.T, overlay string) []string {
	t.Helper()
	var pkgs []string
	err := filepath.WalkDir(overlay, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, "_bench_test.go") {
			return err
		}
		rel, err := filepath.Rel(overlay, filepath.Dir(p))
		if err == nil && !slices.Contains(pkgs, "./"+filepath.ToSlash(rel)) {
			pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil || len(pkgs) == 0 {
		t.Fatalf("no *_bench_test.go files in %s (%v)", overlay, err)
	}
	return pkgs
}

// summarize reads `go test -bench` output and returns, for each benchmark
// and each of its metrics, the median of its samples with min and max.
func summarize(out string) string {
	type metric struct{ bench, unit string }
	samples := map[metric][]float64{}
	var order []metric
	for line := range strings.Lines(out) {
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		// "BenchmarkRelay/batch=50-2  1  45000 raw-events/s  ...": name with
		// -GOMAXPROCS, iterations, then value-unit pairs.
		name := fields[0]
		if i := strings.LastIndex(name, "-"); i > 0 {
			name = name[:i]
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			m := metric{name, fields[i+1]}
			if _, seen := samples[m]; !seen {
				order = append(order, m)
			}
			samples[m] = append(samples[m], v)
		}
	}
	benchWidth, unitWidth := 0, 0
	for _, m := range order {
		benchWidth, unitWidth = max(benchWidth, len(m.bench)), max(unitWidth, len(m.unit))
	}
	var sb strings.Builder
	for _, m := range order {
		s := samples[m]
		sort.Float64s(s)
		median := s[len(s)/2]
		if len(s)%2 == 0 {
			median = (s[len(s)/2-1] + s[len(s)/2]) / 2
		}
		fmt.Fprintf(&sb, "%-*s  %-*s %9s  (%s–%s, n=%d)\n", benchWidth, m.bench, unitWidth, m.unit,
			figure(median), figure(s[0]), figure(s[len(s)-1]), len(s))
	}
	return sb.String()
}

// figure prints a number with as many digits as a benchmark figure deserves.
func figure(v float64) string {
	if v >= 100 || v <= -100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
