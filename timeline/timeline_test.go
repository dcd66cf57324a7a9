package timeline

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// A drain that outlives the grace period: the kubelet's SIGKILL cut it,
// and the log just ends.
func TestPastSIGKILL(t *testing.T) {
	slow := strings.Replace(step1, `"2026-01-02T10:00:00.001Z"`, `"2026-01-02T10:00:55Z"`, 1)
	slow = strings.Replace(slow, `"msg":"shutdown step","service":"orders","step":1,"name":"readiness","took":"1ms"`, `"msg":"drained","service":"orders","part":"workers","took":"54.9s"`, 1)
	s, err := read(t, started, step1, step2, slow)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanFor(fullModel(t), s.Service, "testdata/orders")
	if err != nil {
		t.Fatal(err)
	}
	tl := New(s, plan)
	// preStop 10s + 55s: the axis runs past the grace period to show it.
	if tl.End != 65*time.Second || tl.Grace != 60*time.Second {
		t.Errorf("axis ends at %v, SIGKILL at %v; want 65s and 60s", tl.End, tl.Grace)
	}
	if _, zoomed := tl.Zoom(); zoomed {
		t.Error("zoomed in on a shutdown as long as the grace period")
	}
	text := tl.Text(0)
	for _, want := range []string{
		`the log ends 55s after SIGTERM with no "shutdown complete"`,
		"65s of the 60s grace period, 5s past SIGKILL",
		"not finished: step 3 drain had not ended",
		`not finished: http logged no "drained": still running at the end`,
		"over budget: workers drained took 54.9s, 34.9s more than its 20s (worker_drain)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	// The overrun drawn past the budget, up to the end of the axis.
	if !regexp.MustCompile(`\n  workers +\| +#+!+\| `).MatchString(text) {
		t.Errorf("workers' bar is not 20s of # then ! to the end:\n%s", text)
	}
}

func TestShort(t *testing.T) {
	for d, want := range map[time.Duration]string{
		661:                     "661ns",
		58159 * time.Nanosecond: "58.16µs",
		113646320:               "113.6ms",
		1002018134:              "1.002s",
		30172336185:             "30.17s",
		4814999999:              "4.815s", // not 4.8149999999999995s
		65 * time.Second:        "65s",
		0:                       "0s",
	} {
		if got := short(d); got != want {
			t.Errorf("short(%d) = %s, want %s", d, got, want)
		}
	}
}
