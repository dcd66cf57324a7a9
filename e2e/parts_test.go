package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
)

// partsService is the http preset after `gsgen add worker tick --interval
// 1s --timeout 5s --scope replica` (a fleet worker would bring PostgreSQL
// for its lease: fleet_test.go runs those), with the user's worker function and a part of the
// user's in internal/parts: both hold work in hand for a while after they
// are told to stop, and log what they do.
var partsService = &variant{name: "parts", preset: "http",
	answers: func(a *answers.Answers) {
		a.Workers = []answers.WorkerAnswers{{Name: "tick", Interval: answers.Duration(time.Second), Timeout: answers.Duration(5 * time.Second), Scope: answers.ScopeReplica}}
	},
	files: map[string]string{
		"internal/worker/tick.go": `package worker

import (
	"context"
	"time"

	"example.com/orders/internal/parts"
)

// Tick holds each run for 500ms, then says whether its context was cut.
func Tick(ctx context.Context, d parts.Deps) error {
	d.Logger.Info("e2e run started")
	time.Sleep(500 * time.Millisecond)
	d.Logger.Info("e2e run finished", "ctx_err", ctx.Err())
	return nil
}
`,
		"internal/parts/parts.go": `package parts

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

type holder struct{ log *slog.Logger }

func (h holder) Name() string { return "e2e part" }

// Run waits for the shutdown, then finishes 300ms of work in hand.
func (h holder) Run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	h.log.Info("e2e part running")
	<-ctx.Done()
	time.Sleep(300 * time.Millisecond)
	h.log.Info("e2e part returned")
}

func (h holder) Close(ctx context.Context) error {
	h.log.Info("e2e part closing")
	return nil
}

func New(d Deps) []Part { return []Part{holder{d.Logger}} }
`,
	}}

// An added worker and a part of the user's drain in order under SIGTERM:
// the run in hand finishes on a context shutdown did not cut and no run
// starts after it; the part returns; only then is the drain over; the part
// closes in step 4, before the admin listener; the process exits 0.
func TestWorkerAndUserPartDrainInOrder(t *testing.T) {
	e2eOnly(t)
	_, bin := partsService.build(t)
	svc := start(t, "parts", bin, nil)
	svc.waitLog(msgIs("e2e part running"))

	// Once runs have finished, the service exports every worker metric its
	// dashboard and alerts read (a run's time is recorded after its function
	// returns, so the wait is on the scrape, not on the run's log line).
	var workerQueries []string
	m := variantModel(t, partsService)
	for _, q := range append(m.DashboardQueries(), m.AlertQueries()...) {
		if strings.Contains(q, "_worker_") {
			workerQueries = append(workerQueries, q)
		}
	}
	if len(workerQueries) == 0 {
		t.Error("the dashboard and alerts of a service with a worker read none of the worker metrics")
	}
	waitExported(t, svc, "worker metrics the dashboard and alerts read, exported", workerQueries)
	// SIGTERM while a run is in hand: after a run has started and before it
	// finishes. A run that finished first is no failure of the service: wait
	// for the next one.
	for {
		started := svc.logs.count(msgIs("e2e run started"))
		svc.waitLogs(started+1, msgIs("e2e run started"))
		if svc.logs.count(msgIs("e2e run finished")) == started {
			break
		}
	}
	svc.signal(syscall.SIGTERM)
	if code := svc.wait(); code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0", code)
	}

	// Where each line first appears; for the runs, where the last one ends.
	order := map[string]int{}
	started, finished, startedAfterSignal := 0, 0, 0
	signalled := false
	for i, l := range svc.logs.all() {
		key := l.str("msg") + " " + l.str("part")
		if _, seen := order[key]; !seen || l.str("msg") == "e2e run finished" {
			order[key] = i
		}
		switch l.str("msg") {
		case "shutdown started":
			signalled = true
		case "e2e run started":
			started++
			if signalled {
				startedAfterSignal++
			}
		case "e2e run finished":
			finished++
			if l["ctx_err"] != nil {
				t.Errorf("a run's context ended early: %v", l["ctx_err"])
			}
		}
	}
	if startedAfterSignal > 0 {
		t.Errorf("%d runs started after SIGTERM", startedAfterSignal)
	}
	if started != finished {
		t.Errorf("%d runs started, %d finished: the run in hand at SIGTERM was cut", started, finished)
	}
	for _, before := range [][2]string{
		{"shutdown started ", "e2e part returned "},
		{"e2e run finished ", "drained workers"},
		{"e2e part returned ", "drained workers"},
		{"drained workers", "e2e part closing "},
		{"e2e part closing ", "closed e2e part"},
		{"closed e2e part", "closed admin listener"},
	} {
		a, okA := order[before[0]]
		b, okB := order[before[1]]
		if !okA || !okB || a >= b {
			t.Errorf("want %q before %q in the log (at %d, %v and %d, %v)", before[0], before[1], a, okA, b, okB)
		}
	}
}
