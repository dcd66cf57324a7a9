package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator"
)

// shutdownStep is one step of design §5 as the service logs it: its parts
// first ("stopped", "drained" or "closed" lines), then the step line.
type shutdownStep struct {
	n     int
	name  string
	parts []string // "drained http": msg and part
	// inOrder: the parts must come in this order (closing: dependents first,
	// the pool last); otherwise they run in parallel and any order is right.
	inOrder bool
}

// fullShutdown is the order the full preset must stop in.
var fullShutdown = []shutdownStep{
	{1, "readiness", nil, true},
	{2, "stop intake", []string{"stopped asynq"}, true},
	{3, "drain", []string{"drained http", "drained workers", "drained asynq"}, false},
	{4, "close", []string{"closed kafka writer", "closed kafka reader order-events", "closed kafka dead-letter writer", "closed asynq client", "closed postgres pool"}, true},
}

// checkShutdownLog checks the shutdown lines of a service's log against
// want: each step after its parts, the steps in order, each line with a
// duration and no error, then "shutdown complete" with exit 0. It returns
// the total the service logged and the steps' durations.
func checkShutdownLog(t *testing.T, s *service, want []shutdownStep) (total time.Duration, steps []string) {
	t.Helper()
	var lines []logLine
	for _, l := range s.logs.all() {
		switch l.str("msg") {
		case "shutdown step", "stopped", "drained", "closed", "shutdown complete":
			lines = append(lines, l)
		}
	}
	next := func() (logLine, bool) {
		if len(lines) == 0 {
			return nil, false
		}
		l := lines[0]
		lines = lines[1:]
		if _, err := l.took(); err != nil {
			t.Errorf("%s: %q %s has no duration: %v", s.name, l.str("msg"), l.str("part")+l.str("name"), err)
		}
		if l.str("err") != "" {
			t.Errorf("%s: %s %s failed: %s", s.name, l.str("msg"), l.str("part"), l.str("err"))
		}
		return l, true
	}
	for _, step := range want {
		var parts []string
		for range step.parts {
			l, ok := next()
			if !ok || l.str("msg") == "shutdown step" {
				t.Fatalf("%s: step %d (%s) logged parts %v, want %v", s.name, step.n, step.name, parts, step.parts)
			}
			parts = append(parts, l.str("msg")+" "+l.str("part"))
		}
		wantParts := slices.Clone(step.parts)
		if !step.inOrder {
			slices.Sort(parts)
			slices.Sort(wantParts)
		}
		if !slices.Equal(parts, wantParts) {
			t.Errorf("%s: step %d (%s) logged parts %v, want %v", s.name, step.n, step.name, parts, step.parts)
		}
		l, ok := next()
		if !ok || l.str("msg") != "shutdown step" || l.num("step") != step.n || l.str("name") != step.name {
			t.Fatalf("%s: after the parts of step %d (%s) came %v, want the step's line", s.name, step.n, step.name, l)
		}
		steps = append(steps, fmt.Sprintf("%d %s %s", step.n, step.name, l.str("took")))
	}
	l, ok := next()
	if !ok || l.str("msg") != "shutdown complete" || l.num("exit") != 0 {
		t.Fatalf("%s: after the last step came %v, want shutdown complete with exit 0", s.name, l)
	}
	total, _ = l.took()
	return total, steps
}

// budget is what gsgen's ladder gives the process itself to stop, from its
// answers file: the longest drain plus the close budget (preStop and the
// margin lie outside the process).
func budget(t *testing.T, preset string) time.Duration {
	t.Helper()
	name := filepath.Join("..", "golden", preset+".yaml")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	a, err := generator.ParseAnswersFile(name, data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := generator.NewModel(a.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return m.Ladder.LongestDrain().D + m.Ladder.Close
}

// Scenarios 7 and 8: an idle full service stops in design §5's order, each
// step timed, within its budget; the time from SIGTERM to exit is logged.
func TestShutdownOrderAndIdleLatency(t *testing.T) {
	e2eOnly(t)
	const trials = 5
	rig := newFullRig(t, fullService)
	limit := budget(t, "full")
	var latencies, totals []time.Duration
	var probes []string
	var steps []string
	for i := range trials {
		svc := rig.start(fmt.Sprintf("full, idle %d", i), nil)
		svc.waitLog(msgIs("consumer started"))
		watch := watchProbes("http://"+svc.addr, svc.exited)
		sent := svc.signal(syscall.SIGTERM)
		if code := svc.wait(); code != 0 {
			t.Fatalf("%s: exit %d after SIGTERM, want 0", svc.name, code)
		}
		watch.wg.Wait()
		latencies = append(latencies, svc.endAt.Sub(sent))
		// Within budget is the service's own verdict: a part that overruns
		// its timeout logs an error and the exit code is 1 (checked above).
		total, s := checkShutdownLog(t, svc, fullShutdown)
		totals = append(totals, total)
		probes = append(probes, watch.summary())
		steps = s
	}
	t.Logf("scenario 7, shutdown order of the full preset: %d/%d trials in design §5's order (readiness; stop intake; drains http, workers, asynq in parallel; kafka writer, kafka reader, dead-letter writer, asynq client, postgres pool last), each step and part timed, under the %v budget; steps of the last trial: %s",
		trials, trials, limit, strings.Join(steps, ", "))
	t.Logf("scenario 8, idle shutdown of the full preset: SIGTERM to exit median %v (min %v, max %v over %d trials); logged shutdown total median %v",
		median(latencies).Round(time.Millisecond), slices.Min(latencies).Round(time.Millisecond), slices.Max(latencies).Round(time.Millisecond), trials, median(totals).Round(time.Millisecond))
	t.Logf("scenario 7, probes polled on new connections between SIGTERM and exit, per trial: %s", strings.Join(probes, "; "))
}

// Scenario 7, second part: a second SIGTERM while a request holds the drain
// open ends the process at once with exit 1.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	e2eOnly(t)
	rig := newFullRig(t, fullService)
	svc := rig.start("full, second signal", nil)
	slow := make(chan response, 1)
	go func() {
		slow <- get(&http.Client{Timeout: time.Minute}, "http://"+svc.addr+"/e2e/slow?for=1m")
	}()
	svc.waitLog(msgIs("e2e request started"))
	svc.signal(syscall.SIGTERM)
	svc.waitLog(func(l logLine) bool { return l.str("msg") == "shutdown step" && l.num("step") == 2 })
	sent := svc.signal(syscall.SIGTERM)
	if code := svc.wait(); code != 1 {
		t.Fatalf("exit %d after a second SIGTERM during the drain, want 1", code)
	}
	svc.waitLog(msgIs("second signal, exiting before shutdown completed"))
	if n := svc.logs.count(msgIs("shutdown complete")) + svc.logs.count(func(l logLine) bool { return l.str("msg") == "shutdown step" && l.num("step") == 3 }); n != 0 {
		t.Errorf("the drain ended before the process did: the second signal did not cut it short")
	}
	if r := <-slow; r.status == http.StatusOK {
		t.Errorf("the held request completed; it should have been cut by the exit")
	}
	t.Logf("scenario 7, second SIGTERM during a drain held open by a 1m request: 1/1 trial passed; exit 1 %v after the second signal",
		svc.endAt.Sub(sent).Round(time.Millisecond))
}
