package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shutdownStep is one step of design §5 as the service logs it: its parts
// first ("stopped", "drained" or "closed" lines), then the step line.
type shutdownStep struct {
	n    int
	name string
	// parts run side by side, so any order is right ("drained http": msg
	// and part); then come in exactly this order after them.
	parts, then []string
}

// fullShutdown is the order the full preset must stop in: the clients close
// side by side, the pool after them, the admin listener last.
var fullShutdown = []shutdownStep{
	{1, "readiness", nil, nil},
	{2, "stop intake", []string{"stopped asynq"}, nil},
	{3, "drain", []string{"drained http", "drained workers", "drained asynq"}, nil},
	{4, "close", []string{"closed kafka writer", "closed kafka reader order-events", "closed kafka dead-letter writer", "closed asynq client"}, []string{"closed postgres pool", "closed admin listener"}},
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
		for range len(step.parts) + len(step.then) {
			l, ok := next()
			if !ok || l.str("msg") == "shutdown step" {
				t.Fatalf("%s: step %d (%s) logged parts %v, want %v then %v", s.name, step.n, step.name, parts, step.parts, step.then)
			}
			parts = append(parts, l.str("msg")+" "+l.str("part"))
		}
		sideBySide, after := slices.Clone(parts[:len(step.parts)]), parts[len(step.parts):]
		slices.Sort(sideBySide)
		if !slices.Equal(sideBySide, slices.Sorted(slices.Values(step.parts))) || !slices.Equal(after, step.then) {
			t.Errorf("%s: step %d (%s) logged parts %v, want %v in any order, then %v", s.name, step.n, step.name, parts, step.parts, step.then)
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
	m := presetModel(t, preset)
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
		watch := watchProbes("http://"+svc.admin, svc.exited)
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
	t.Logf("scenario 7, shutdown order of the full preset: %d/%d trials in design §5's order (readiness; stop intake; drains http, workers, asynq in parallel; kafka writer, kafka reader, dead-letter writer, asynq client side by side, then the postgres pool, the admin listener last), each step and part timed, under the %v budget; steps of the last trial: %s",
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
	slow := svc.slowRequests(&http.Client{Timeout: hang}, 1, time.Minute)
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

// Issue 15: eight consumers close side by side, so their readers, each
// leaving its group, fit in one CLOSE_TIMEOUT, and the pool still closes
// last; before, they closed one after another and went over budget.
func TestEightConsumersCloseWithinTheCloseBudget(t *testing.T) {
	e2eOnly(t)
	dir, bin := eightConsumers.build(t)
	dbURL, _ := newDatabase(t, dir)
	_, brokers := newKafka(t, outboxTopic)
	const trials = 3
	var closes []time.Duration
	for i := range trials {
		svc := start(t, fmt.Sprintf("eight consumers %d", i), bin, map[string]string{"DATABASE_URL": dbURL, "KAFKA_BROKERS": brokers})
		svc.waitLogs(8, msgIs("consumer started"))
		svc.stop() // exit 0: nothing over its budget
		readers := svc.logs.count(func(l logLine) bool {
			return l.str("msg") == "closed" && strings.HasPrefix(l.str("part"), "kafka reader ") && l.str("err") == ""
		})
		if readers != 8 {
			t.Fatalf("%s: %d readers closed cleanly, want 8\n%s", svc.name, readers, svc.logs)
		}
		step := svc.waitLog(func(l logLine) bool { return l.str("msg") == "shutdown step" && l.num("step") == 4 })
		took, _ := step.took()
		closes = append(closes, took)
		if n := svc.logs.count(msgIs("over budget")); n != 0 {
			t.Fatalf("%s: the close step went over its budget", svc.name)
		}
	}
	// Mid-rebalance: a second replica joins every group, and the first gets
	// SIGTERM while the groups rebalance. Its readers' Close waits for the
	// rebalance, which the readers' timeouts keep inside CLOSE_TIMEOUT.
	env := map[string]string{"DATABASE_URL": dbURL, "KAFKA_BROKERS": brokers}
	first := start(t, "eight consumers, first replica", bin, env)
	first.waitLogs(8, msgIs("consumer started"))
	second := start(t, "eight consumers, second replica", bin, env)
	second.waitLogs(8, msgIs("consumer started"))
	first.stop()
	second.stop()
	step := first.waitLog(func(l logLine) bool { return l.str("msg") == "shutdown step" && l.num("step") == 4 })
	t.Logf("eight consumers: %d/%d idle shutdowns closed 8 readers, the writers and then the pool inside CLOSE_TIMEOUT (close step median %v); a replica stopped while a second one joined its groups closed inside it too (%s)",
		trials, trials, median(closes).Round(time.Millisecond), step.str("took"))
}
