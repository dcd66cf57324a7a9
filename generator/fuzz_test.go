package generator

import (
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
		a, err := ParseAnswersFile("gsgen.yaml", data)
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
		written, err := MarshalAnswersFile(m.Answers)
		if err != nil {
			t.Fatalf("writing gsgen.yaml of a valid model: %v", err)
		}
		back, err := ParseAnswersFile("gsgen.yaml", written)
		if err != nil {
			t.Fatalf("the gsgen.yaml gsgen writes does not read back: %v\n%s", err, written)
		}
		again, err := NewModel(back.WithDefaults())
		if err != nil {
			t.Fatalf("the gsgen.yaml gsgen writes is refused on a re-run: %v\n%s", err, written)
		}
		if diff := cmp.Diff(m, again, cmpopts.IgnoreUnexported(Model{})); diff != "" {
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
		a := Answers{Name: name, Module: module, Components: SplitList(components)}
		a.HTTP.Port = port
		for i, d := range []int64{prestop, grace, httpShutdown, workerDrain, asynqShutdown, taskTimeout, closeBudget, margin} {
			*TimeoutFields[i].Of(&a.Timeouts) = Duration(d)
		}
		a.Outbox = OutboxAnswers{Topic: outboxTopic, BatchSize: batchSize, BatchTimeout: Duration(batchTimeout), Unordered: unordered}
		a.Asynq = AsynqAnswers{Mode: asynqMode, Concurrency: concurrency, AllowRequeue: allowRequeue}
		if consumers != "" {
			// --consumer NAME[:TOPIC], repeated; here comma-separated.
			for c := range strings.SplitSeq(consumers, ",") {
				n, topic, _ := strings.Cut(c, ":")
				a.Consumers = append(a.Consumers, ConsumerAnswers{Name: n, Topic: topic})
			}
		}

		m, err := NewModel(a.WithDefaults())
		if err != nil {
			requireInputError(t, err)
			return
		}
		checkModel(t, m)
		plan, err := Plan(m)
		if err != nil {
			t.Fatalf("valid model, but no file plan: %v", err)
		}
		if _, err := Render(m, plan); err != nil {
			t.Fatalf("valid model, but its files do not render: %v", err)
		}
	})
}

// requireInputError fails unless err is bad input, which the CLI reports
// with exit 2 naming the field.
func requireInputError(t *testing.T, err error) {
	t.Helper()
	var input *InputError
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
func checkModel(t *testing.T, m *Model) {
	t.Helper()
	l := m.Ladder
	for _, d := range []time.Duration{l.Grace, l.Close, l.Margin} {
		if d <= 0 {
			t.Fatalf("accepted a timeout of %v in ladder %+v", d, l)
		}
	}
	// Without HTTP no Service routes to the pod: no preStop, and only then.
	if (l.PreStop <= 0) == m.HTTP {
		t.Fatalf("preStop %v in the ladder of a service with http %v", l.PreStop, m.HTTP)
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
