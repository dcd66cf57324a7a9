package model

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// The older kinds' flags read back what they were given and refuse a bad
// value naming the flag, as grpc's do (TestGRPCFlags).
func TestOlderKindsFlags(t *testing.T) {
	var a answers.Answers
	good := [][2]string{
		{"http-port", "9090"},
		{"outbox-topic", "orders"}, {"outbox-batch-size", "70"}, {"outbox-poll-interval", "250ms"},
		{"outbox-batch-timeout", "8s"}, {"outbox-unordered", "true"},
		{"asynq-mode", "dedicated"}, {"asynq-concurrency", "4"}, {"asynq-allow-requeue", "true"},
	}
	for _, x := range good {
		name, v := x[0], x[1]
		f := kindFlag(t, name)
		if err := f.Set(&a, v); err != nil {
			t.Fatalf("--%s %s: %v", name, v, err)
		}
		if got := f.Value(a); got != v {
			t.Errorf("--%s %s reads back %q", name, v, got)
		}
	}
	bad := []struct{ flag, value, msg string }{
		{"http-port", "70000", "70000 is not a TCP port"},
		{"http-port", "web", `"web" is not a TCP port`},
		{"outbox-batch-size", "0", "0 must be positive"},
		{"outbox-batch-size", "fifty", `"fifty" is not a whole number`},
		{"outbox-poll-interval", "0s", "0s must be positive"},
		{"outbox-batch-timeout", "soon", `"soon" is not a duration`},
		{"outbox-unordered", "maybe", `"maybe" is not true or false`},
		{"asynq-concurrency", "-1", "-1 must be positive"},
		{"asynq-allow-requeue", "yes please", `"yes please" is not true or false`},
	}
	for _, c := range bad {
		before := a.HTTP.Port + a.Outbox.BatchSize + a.Asynq.Concurrency
		var ie *problem.InputError
		err := kindFlag(t, c.flag).Set(&a, c.value)
		if !errors.As(err, &ie) || ie.Field != "--"+c.flag || !strings.Contains(ie.Msg, c.msg) || ie.Fix == "" {
			t.Errorf("--%s %s: %v, want an InputError on --%s saying %q, with a fix", c.flag, c.value, err, c.flag, c.msg)
		}
		if a.HTTP.Port+a.Outbox.BatchSize+a.Asynq.Concurrency != before || a.Outbox.PollInterval != answers.Duration(250*time.Millisecond) || a.Outbox.BatchTimeout != answers.Duration(8*time.Second) || !a.Outbox.Unordered || !a.Asynq.AllowRequeue {
			t.Errorf("--%s %s changed the answers", c.flag, c.value)
		}
	}
}

// A flag the interview asks names the answers path the generator's errors
// use, so that the prompt can check a typed answer against them.
func TestAskedKindFlagsNameTheirField(t *testing.T) {
	for _, f := range KindFlags() {
		if f.Title != "" && f.Field == "" {
			t.Errorf("--%s is asked (%q) but names no answers path", f.Name, f.Title)
		}
		if f.Bool != (f.Type == "bool") && f.Type != "" {
			t.Errorf("--%s: Bool %v with Type %q", f.Name, f.Bool, f.Type)
		}
	}
}
