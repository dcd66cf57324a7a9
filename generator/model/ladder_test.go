package model

import (
	"errors"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// A ladder built by hand, with no Model: the values check and draw
// themselves.
func TestLadderWithoutAModel(t *testing.T) {
	l := Ladder{PreStop: 5 * time.Second, Close: 3 * time.Second, Margin: 2 * time.Second, Grace: 30 * time.Second,
		Drains: []Drain{{Name: "HTTP drain", Key: "http_shutdown", D: 15 * time.Second}, {Name: "worker drain", Key: "worker_drain", D: 10 * time.Second}}}
	if got := l.LongestDrain().Key; got != "http_shutdown" {
		t.Errorf("LongestDrain = %s, want http_shutdown", got)
	}
	if l.Worst() != 25*time.Second || l.Slack() != 5*time.Second {
		t.Errorf("Worst %v, Slack %v; want 25s, 5s", l.Worst(), l.Slack())
	}
	if err := l.Check(); err != nil {
		t.Errorf("Check = %v, want nil", err)
	}
	if got := len(l.Phases()); got != 6 { // preStop, two drains, close, margin, slack
		t.Errorf("%d phases, want 6", got)
	}
	l.Grace = 20 * time.Second
	var broken *LadderError
	var in *problem.InputError
	if err := l.Check(); !errors.As(err, &broken) || !errors.As(err, &in) || in.Field != "timeouts.grace" {
		t.Fatalf("Check = %v, want a LadderError on timeouts.grace", err)
	}
}

func TestSumAndCeilSecond(t *testing.T) {
	b := Sum([]Term{{Name: "handler", Field: "kafka[0].handler_timeout", D: 2 * time.Second}, {Name: "commit", D: 500 * time.Millisecond}})
	if b.D != 2500*time.Millisecond || b.Field != "kafka[0].handler_timeout" {
		t.Errorf("Sum = %+v", b)
	}
	b.Limit = 2 * time.Second
	if !b.Exceeded() || b.LeastLimit() != b.D {
		t.Errorf("Exceeded %v, LeastLimit %v", b.Exceeded(), b.LeastLimit())
	}
	if got := CeilSecond(2500 * time.Millisecond); got != 3*time.Second {
		t.Errorf("CeilSecond(2.5s) = %v, want 3s", got)
	}
}
