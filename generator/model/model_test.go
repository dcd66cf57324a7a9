package model

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

func validAnswers() answers.Answers {
	return answers.Answers{Name: "orders"}.WithDefaults()
}

func TestNewModelDefaults(t *testing.T) {
	m, err := newModel(validAnswers())
	if err != nil {
		t.Fatal(err)
	}
	if m.Module != "example.com/orders" || !m.HTTP || m.Outbox || m.HTTPPort != 8080 {
		t.Errorf("model = %+v", m)
	}
	if got, want := m.Ladder.Worst(), 41*time.Second; got != want {
		t.Errorf("worst case = %v, want %v (10s + 25s + 1s + 5s)", got, want)
	}
}

// TestNewModelRejects covers bad answers: each must be an *InputError that
// names the field.
func TestNewModelRejects(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*answers.Answers)
		field string // InputError.Field
		msg   string // part of the message
	}{
		{"empty name", func(a *answers.Answers) { a.Name = "" }, "name", "empty"},
		{"upper case name", func(a *answers.Answers) { a.Name = "Orders" }, "name", "upper-case"},
		{"name with slash", func(a *answers.Answers) { a.Name = "a/b" }, "name", "path separator"},
		{"name with dot dot", func(a *answers.Answers) { a.Name = "..orders" }, "name", "'..'"},
		{"name with underscore", func(a *answers.Answers) { a.Name = "order_events" }, "name", "DNS-1123"},
		{"name starting with digit", func(a *answers.Answers) { a.Name = "1orders" }, "name", "DNS-1123"},
		{"name ending with dash", func(a *answers.Answers) { a.Name = "orders-" }, "name", "DNS-1123"},
		{"name with space", func(a *answers.Answers) { a.Name = "my orders" }, "name", "DNS-1123"},
		{"name too long", func(a *answers.Answers) { a.Name = strings.Repeat("a", 64) }, "name", "63"},
		{"go keyword", func(a *answers.Answers) { a.Name = "func" }, "name", "Go keyword"},
		{"go keyword type", func(a *answers.Answers) { a.Name = "type" }, "name", "Go keyword"},
		{"module with space", func(a *answers.Answers) { a.Module = "example.com/my orders" }, "module", "not a valid Go module path"},
		{"module empty", func(a *answers.Answers) { a.Module = "" }, "module", "not a valid Go module path"},
		{"module leading slash", func(a *answers.Answers) { a.Module = "/orders" }, "module", "not a valid Go module path"},
		{"module with dot dot", func(a *answers.Answers) { a.Module = "example.com/../orders" }, "module", "not a valid Go module path"},
		{"unknown component", func(a *answers.Answers) { a.Components = []string{"http", "graphql"} }, "components", `unknown component "graphql"`},
		{"component twice", func(a *answers.Answers) { a.Components = []string{"http", "http"} }, "components", "twice"},
		{"no components", func(a *answers.Answers) { a.Components = nil }, "components", "none chosen"},
		{"port zero", func(a *answers.Answers) { a.HTTP.Port = 70000 }, "http.port", "not a TCP port"},
		{"negative grace", func(a *answers.Answers) { a.Timeouts.Grace = answers.Duration(-time.Second) }, "timeouts.grace", "must be positive"},
		{"zero margin", func(a *answers.Answers) { a.Timeouts.Margin = answers.Duration(0) }, "timeouts.margin", "must be positive"},
		{"grace too short", func(a *answers.Answers) { a.Timeouts.Grace = answers.Duration(30 * time.Second) }, "timeouts.grace", "30s is shorter than preStop 10s + HTTP drain 25s + close 1s + margin 5s = 41s"},
		{"drain too long", func(a *answers.Answers) { a.Timeouts.HTTPShutdown = answers.Duration(50 * time.Second) }, "timeouts.grace", "= 66s"},
		{"prestop too long", func(a *answers.Answers) { a.Timeouts.PreStop = answers.Duration(30 * time.Second) }, "timeouts.grace", "preStop 30s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := validAnswers()
			c.edit(&a)
			_, err := newModel(a)
			var ie *problem.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("NewModel: got %v, want an *InputError", err)
			}
			if ie.Field != c.field || !strings.Contains(ie.Error(), c.msg) {
				t.Errorf("error = %q (field %q), want field %q and %q in the message", ie, ie.Field, c.field, c.msg)
			}
			if strings.Contains(ie.Error(), "\n") {
				t.Errorf("error spans lines: %q", ie)
			}
		})
	}
}

func TestNewModelAcceptsHyphenatedName(t *testing.T) {
	a := answers.Answers{Name: "order-events", Module: "github.com/acme/order-events"}.WithDefaults()
	if _, err := newModel(a); err != nil {
		t.Fatal(err)
	}
}

func TestLadderSuggestsAFit(t *testing.T) {
	a := validAnswers()
	a.Timeouts.Grace = answers.Duration(30 * time.Second)
	_, err := newModel(a)
	// The worker drain is on every service's ladder (your parts drain in it).
	if err == nil || !strings.Contains(err.Error(), "use grace 41s or more, or shorten http_shutdown and worker_drain to 14s") {
		t.Fatalf("err = %v", err)
	}
	// The suggested values fit.
	a.Timeouts.HTTPShutdown, a.Timeouts.WorkerDrain = answers.Duration(14*time.Second), answers.Duration(14*time.Second)
	if _, err := newModel(a); err != nil {
		t.Errorf("suggested http_shutdown and worker_drain 14s do not fit: %v", err)
	}
	a = validAnswers()
	a.Timeouts.Grace = answers.Duration(41 * time.Second)
	if _, err := newModel(a); err != nil {
		t.Errorf("suggested grace 41s does not fit: %v", err)
	}
}

// Drains run side by side: when two are past the fit, the hint names both
// (shortening one gains nothing). When the close budget alone would make
// the ladder fit, the hint says that too. Each suggestion fits.
func TestLadderSuggestsEveryNumberThatWouldFit(t *testing.T) {
	a := validAnswers()
	a.Components = []string{"http", "asynq"}
	a.Timeouts.Grace = answers.Duration(30 * time.Second)
	_, err := newModel(a.WithDefaults())
	if err == nil || !strings.Contains(err.Error(), "or shorten http_shutdown, asynq_shutdown and worker_drain to 14s") {
		t.Fatalf("err = %v, want every drain past the fit named", err)
	}
	a.Timeouts.HTTPShutdown, a.Timeouts.AsynqShutdown, a.Timeouts.WorkerDrain = answers.Duration(14*time.Second), answers.Duration(14*time.Second), answers.Duration(14*time.Second)
	a.Timeouts.TaskTimeout = answers.Duration(10 * time.Second)
	if _, err := newModel(a.WithDefaults()); err != nil {
		t.Errorf("the suggested 14s for all three does not fit: %v", err)
	}

	a = validAnswers()
	a.Timeouts.CloseBudget = answers.Duration(30 * time.Second)
	_, err = newModel(a)
	if err == nil || !strings.Contains(err.Error(), "or shorten http_shutdown and worker_drain to 15s, or shorten close_budget to 20s") {
		t.Fatalf("err = %v, want the close budget suggested", err)
	}
	a.Timeouts.CloseBudget = answers.Duration(20 * time.Second)
	if _, err := newModel(a); err != nil {
		t.Errorf("the suggested close_budget 20s does not fit: %v", err)
	}
}

func TestLadderPhases(t *testing.T) {
	m, err := newModel(validAnswers())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range m.Ladder.Phases() {
		got = append(got, p.Name+" "+problem.Seconds(p.Start)+"-"+problem.Seconds(p.End))
	}
	want := "preStop 0s-10s, HTTP drain 10s-35s, worker drain 10s-30s, close 35s-36s, margin 36s-41s, slack 41s-60s"
	if strings.Join(got, ", ") != want {
		t.Errorf("phases = %s\nwant     %s", strings.Join(got, ", "), want)
	}
	timeline := m.Ladder.Timeline(60)
	for _, s := range []string{"preStop", "HTTP drain", "SIGKILL", "at 60s"} {
		if !strings.Contains(timeline, s) {
			t.Errorf("timeline lacks %q:\n%s", s, timeline)
		}
	}
}

func TestComponentAnswersRejected(t *testing.T) {
	with := func(comps ...string) answers.Answers { return answers.Answers{Name: "orders", Components: comps} }
	cases := []struct {
		name  string
		a     answers.Answers
		field string
		msg   string
	}{
		{"task timeout over asynq shutdown", func() answers.Answers {
			a := with("http", "asynq")
			a.Timeouts.TaskTimeout = answers.Duration(30 * time.Second)
			return a
		}(), "timeouts.task_timeout", "longer than asynq ShutdownTimeout 25s"},
		{"sub-second task timeout", func() answers.Answers {
			a := with("http", "asynq")
			a.Timeouts.TaskTimeout = answers.Duration(1500 * time.Millisecond)
			return a
		}(), "timeouts.task_timeout", "whole number of seconds"},
		{"unknown asynq mode", func() answers.Answers { a := with("asynq"); a.Asynq.Mode = "threads"; return a }(), "asynq.mode", "unknown mode"},
		{"outbox batch over worker drain", func() answers.Answers {
			a := with("outbox")
			a.Outbox.BatchTimeout = answers.Duration(30 * time.Second)
			return a
		}(), "outbox.batch_timeout", "longer than worker drain 20s"},
		{"consumer handler over worker drain", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "pay", HandlerTimeout: answers.Duration(time.Minute)}}
			return a
		}(), "kafka[0].handler_timeout", "longer than worker drain"},
		{"consumer handler and commit over worker drain", func() answers.Answers {
			a := with("kafka")
			a.Timeouts.WorkerDrain = answers.Duration(12 * time.Second)
			a.Consumers = []answers.ConsumerAnswers{{Name: "pay"}}
			return a
		}(), "kafka[0].handler_timeout", "consumer pay handler timeout 10s + commit timeout 5s = 15s is longer than worker drain 12s (worker_drain)"},
		{"dead-letter topic is the topic read", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "pay", Topic: "payments", DeadLetterTopic: "payments"}}
			return a
		}(), "kafka[0].dead_letter_topic", "is the topic the consumer reads"},
		{"default dead-letter topic too long", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "pay", Topic: strings.Repeat("t", 249)}}
			return a
		}(), "kafka[0].dead_letter_topic", "not a valid Kafka topic name"},
		{"max attempts beyond reason", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "pay", MaxAttempts: 1000}}
			return a
		}(), "kafka[0].max_attempts", "1000 is more than 100"},
		{"batch size beyond the cap", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "pay", BatchSize: 10001}}
			return a
		}(), "kafka[0].batch_size", "10001 is more than 10000"},
		{"batch size negative", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "pay", BatchSize: -1}}
			return a
		}(), "kafka[0].batch_size", "must not be negative"},
		{"commit timeout of days", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "pay", CommitTimeout: answers.Duration(48 * time.Hour)}}
			return a
		}(), "kafka[0].commit_timeout", "more than 24h"},
		{"consumer names twice", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "pay"}, {Name: "pay"}}
			return a
		}(), "kafka[1].name", "used twice"},
		{"consumer name with path", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "../pay"}}
			return a
		}(), "kafka[0].name", "not a valid name"},
		{"bad topic", func() answers.Answers { a := with("outbox"); a.Outbox.Topic = "a topic"; return a }(), "outbox.topic", "not a valid Kafka topic"},
		{"outbox attempts over the cap", func() answers.Answers { a := with("outbox"); a.Outbox.MaxAttempts = 1001; return a }(), "outbox.max_attempts", "1001 is more than 1000"},
		{"outbox attempts negative", func() answers.Answers { a := with("outbox"); a.Outbox.MaxAttempts = -1; return a }(), "outbox.max_attempts", "must not be negative"},
		{"outbox backoff min over max", func() answers.Answers {
			a := with("outbox")
			a.Outbox.BackoffMin, a.Outbox.BackoffMax = answers.Duration(2*time.Minute), answers.Duration(time.Minute)
			return a
		}(), "outbox.backoff_min", "120s is longer than outbox.backoff_max 60s"},
		{"outbox backoff min over the default max", func() answers.Answers {
			a := with("outbox")
			a.Outbox.BackoffMin = answers.Duration(90 * time.Second)
			return a
		}(), "outbox.backoff_min", "longer than outbox.backoff_max 60s"},
		{"outbox backoff max over a day", func() answers.Answers {
			a := with("outbox")
			a.Outbox.BackoffMax = answers.Duration(25 * time.Hour)
			return a
		}(), "outbox.backoff_max", "more than 24h"},
		{"cleaner alone", with("cleaner"), "cleaners", "no table to clean"},
		{"cleaner on unknown table", func() answers.Answers {
			a := with("outbox", "cleaner")
			a.Cleaners = []answers.CleanerAnswers{{Name: "sessions", Table: "session", Column: "expires_at"}}
			return a
		}(), "cleaners[0].table", "not defined by this service's migrations"},
		{"cleaner column injection", func() answers.Answers {
			a := with("outbox", "cleaner")
			a.Cleaners = []answers.CleanerAnswers{{Name: "x", Table: "outbox_event", Column: "dispatched_at; drop table x"}}
			return a
		}(), "cleaners[0].column", "not a plain SQL identifier"},
		// Names that collide once mapped.
		{"consumers events2 and events-2", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "events2"}, {Name: "events-2"}}
			return a
		}(), "kafka[1].name", `"events-2" and kafka[0].name "events2" both become the Go name "Events2Consumer"`},
		{"consumers a-b and a--b", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "a-b"}, {Name: "a--b"}}
			return a
		}(), "kafka[1].name", "both become the Go name"},
		{"cleaners x2 and x-2", func() answers.Answers {
			a := with("outbox", "cleaner")
			a.Cleaners = []answers.CleanerAnswers{{Name: "x2", Table: "outbox_event", Column: "dispatched_at"}, {Name: "x-2", Table: "outbox_event", Column: "dispatched_at"}}
			return a
		}(), "cleaners[1].name", `"x-2" and cleaners[0].name "x2" both become the Go name "X2Cleaner"`},
		{"one group for two consumers", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "a", Group: "shared"}, {Name: "b", Group: "shared"}}
			return a
		}(), "kafka[1].group", `both become the Kafka group "shared"`},
		{"group with a newline", func() answers.Answers {
			a := with("kafka")
			a.Consumers = []answers.ConsumerAnswers{{Name: "a", Group: "g\n# injected"}}
			return a
		}(), "kafka[0].group", "not a consumer group id gsgen accepts"},
		// Kubernetes names with their suffixes.
		{"config and worker names over 63", func() answers.Answers {
			a := with("asynq")
			a.Name = strings.Repeat("w", 57)
			return a
		}(), "name", "\", 64 characters long; Kubernetes allows 63; use a name of at most 56 characters"},
		{"secret name over 63", func() answers.Answers {
			a := with("outbox")
			a.Name = strings.Repeat("p", 55)
			return a
		}(), "name", "-postgres\", 64 characters long; Kubernetes allows 63; use a name of at most 54 characters"},
		// Counts the service's config.go would refuse, or overflow on.
		{"outbox batch size over the service's limit", func() answers.Answers { a := with("outbox"); a.Outbox.BatchSize = 3000000000; return a }(),
			"outbox.batch_size", "3000000000 is more than 10000, the most the service accepts"},
		{"outbox relays over the outbox's slots", func() answers.Answers { a := with("outbox"); a.Outbox.Relays = 17; return a }(),
			"outbox.relays", "17 is more than 16, the most the service accepts"},
		{"asynq concurrency over the service's limit", func() answers.Answers { a := with("asynq"); a.Asynq.Concurrency = 1001; return a }(),
			"asynq.concurrency", "at most 1000"},
		{"cleaner batch over the service's limit", func() answers.Answers {
			a := with("outbox", "cleaner")
			a.Cleaners = []answers.CleanerAnswers{{Name: "x", Table: "outbox_event", Column: "dispatched_at", BatchSize: 10001}}
			return a
		}(), "cleaners[0].batch_size", "at most 10000"},
		{"retention of centuries", func() answers.Answers {
			a := with("outbox", "cleaner")
			a.Cleaners = []answers.CleanerAnswers{{Name: "x", Table: "outbox_event", Column: "dispatched_at", Retention: answers.Duration(200 * 365 * 24 * time.Hour)}}
			return a
		}(), "cleaners[0].retention", "at most 87600h"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := newModel(c.a.WithDefaults())
			var ie *problem.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InputError", err)
			}
			if ie.Field != c.field || !strings.Contains(ie.Error(), c.msg) {
				t.Errorf("error = %q (field %q), want field %q and %q", ie, ie.Field, c.field, c.msg)
			}
		})
	}
}

// A task timeout must end TaskMargin before asynq's ShutdownTimeout: equal
// is refused with both numbers and what would fit (for the example task and
// a task type of the user's), one second less fits, and allow_requeue still
// accepts it, with a warning.
func TestTaskTimeoutNeedsAMarginUnderShutdownTimeout(t *testing.T) {
	a := answers.Answers{Name: "orders", Components: []string{"http", "asynq"}}
	a.Timeouts.TaskTimeout = answers.Duration(25 * time.Second)
	_, err := newModel(a.WithDefaults())
	want := "timeouts.task_timeout: asynq task timeout 25s leaves less than 1s to spare under asynq ShutdownTimeout 25s (asynq_shutdown)"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "use timeouts.task_timeout 24s or less, or raise asynq_shutdown to at least 26s") {
		t.Fatalf("err = %v, want %q and what would fit", err, want)
	}
	for _, fix := range []func(*answers.Answers){
		func(a *answers.Answers) { a.Timeouts.TaskTimeout = answers.Duration(24 * time.Second) },
		func(a *answers.Answers) { a.Timeouts.AsynqShutdown = answers.Duration(26 * time.Second) },
	} {
		b := a
		fix(&b)
		if _, err := newModel(b.WithDefaults()); err != nil {
			t.Errorf("the suggested fit is refused: %v", err)
		}
	}

	b := a
	b.Tasks = []answers.TaskAnswers{{Type: "report:build", Timeout: answers.Duration(25 * time.Second)}}
	b.Timeouts.TaskTimeout = answers.Duration(20 * time.Second)
	if _, err := newModel(b.WithDefaults()); err == nil || !strings.Contains(err.Error(), "tasks[0].timeout: task report:build timeout 25s leaves less than 1s to spare") {
		t.Errorf("a task type at the shutdown timeout: err = %v", err)
	}

	a.Asynq.AllowRequeue = true
	m, err := newModel(a.WithDefaults())
	if err != nil {
		t.Fatalf("with allow_requeue: %v", err)
	}
	if w := strings.Join(m.Warnings(), "\n"); !strings.Contains(w, "timeouts.task_timeout") {
		t.Errorf("no warning for the allowed task timeout: %q", w)
	}
}

func TestAllowRequeueAcceptsLongTasks(t *testing.T) {
	a := answers.Answers{Name: "orders", Components: []string{"http", "asynq"}}
	a.Timeouts.TaskTimeout = answers.Duration(30 * time.Second)
	a.Asynq.AllowRequeue = true
	m, err := newModel(a.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if m.TaskServer.Dedicated || !m.TaskServer.AllowRequeue {
		t.Errorf("task server = %+v", m.TaskServer)
	}
}

// The relay's failure settings come from the answers, with defaults: ten
// attempts, waits from 1s doubling up to a minute.
func TestOutboxRetrySettings(t *testing.T) {
	for _, c := range []struct {
		name     string
		outbox   answers.OutboxAnswers
		attempts int
		min, max time.Duration
	}{
		{"defaults", answers.OutboxAnswers{}, 10, time.Second, time.Minute},
		{"answered", answers.OutboxAnswers{MaxAttempts: 5, BackoffMin: answers.Duration(200 * time.Millisecond), BackoffMax: answers.Duration(30 * time.Second)}, 5, 200 * time.Millisecond, 30 * time.Second},
		{"min equals max", answers.OutboxAnswers{BackoffMin: answers.Duration(time.Minute)}, 10, time.Minute, time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := newModel(answers.Answers{Name: "orders", Components: []string{"outbox"}, Outbox: c.outbox}.WithDefaults())
			if err != nil {
				t.Fatal(err)
			}
			if r := m.Relay; r.MaxAttempts != c.attempts || r.BackoffMin != c.min || r.BackoffMax != c.max {
				t.Errorf("relay %d attempts, backoff %v to %v; want %d, %v to %v", r.MaxAttempts, r.BackoffMin, r.BackoffMax, c.attempts, c.min, c.max)
			}
			if m.EventIDHeader != "event_id" {
				t.Errorf("event id header %q, want event_id: consumers of existing services read that name", m.EventIDHeader)
			}
		})
	}
}

// The ladder holds a consumer's handler and commit timeouts together inside
// the worker drain, and says what would fit: each shortened, or the drain raised.
func TestLadderAddsTheConsumersHandlerAndCommit(t *testing.T) {
	a := answers.Answers{Name: "orders", Components: []string{"kafka"}, Consumers: []answers.ConsumerAnswers{{Name: "pay", HandlerTimeout: answers.Duration(20 * time.Second)}}}
	_, err := newModel(a.WithDefaults())
	var ie *problem.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("handler 20s + commit 5s in a 20s drain: got %v, want an *InputError", err)
	}
	want := "kafka[0].handler_timeout: consumer pay handler timeout 20s + commit timeout 5s = 25s is longer than worker drain 20s (worker_drain): " +
		"the message in hand at SIGTERM could not finish, be dead-lettered if it failed, and commit before the reader closes; " +
		"use kafka[0].handler_timeout 15s or less, or raise worker_drain to at least 25s"
	if ie.Error() != want {
		t.Errorf("error\n %s\nwant\n %s", ie, want)
	}
	// The handler timeout alone equal to the drain used to pass; with the
	// commit after it, it cannot.
	a.Consumers[0].HandlerTimeout = answers.Duration(15 * time.Second)
	a.Consumers[0].CommitTimeout = answers.Duration(5 * time.Second)
	if _, err := newModel(a.WithDefaults()); err != nil {
		t.Errorf("handler 15s + commit 5s = the 20s drain: %v", err)
	}
}

// Kafka brings processed_event, and with it a cleaner, unless cleaners are
// listed: the answers' own list is taken as it is.
func TestKafkaBringsAProcessedEventCleaner(t *testing.T) {
	names := func(a answers.Answers) []string {
		var out []string
		for _, c := range a.WithDefaults().Cleaners {
			out = append(out, c.Name+":"+c.Table+"/"+c.Retention.String())
		}
		return out
	}
	for _, c := range []struct {
		name       string
		a          answers.Answers
		components []string
		cleaners   []string
	}{
		{"kafka alone", answers.Answers{Components: []string{"http", "kafka"}},
			[]string{"http", "kafka", "cleaner"}, []string{"processed-events:processed_event/336h"}},
		{"outbox, kafka and cleaner", answers.Answers{Components: []string{"outbox", "kafka", "cleaner"}},
			[]string{"outbox", "kafka", "cleaner"}, []string{"outbox-dispatched:outbox_event/168h", "processed-events:processed_event/336h"}},
		{"outbox and cleaner", answers.Answers{Components: []string{"outbox", "cleaner"}},
			[]string{"outbox", "cleaner"}, []string{"outbox-dispatched:outbox_event/168h"}},
		{"outbox without cleaner", answers.Answers{Components: []string{"outbox"}}, []string{"outbox"}, nil},
		{"listed cleaners win", answers.Answers{Components: []string{"kafka", "cleaner"}, Cleaners: []answers.CleanerAnswers{{Name: "events", Table: "processed_event", Column: "processed_at", Retention: answers.Duration(720 * time.Hour)}}},
			[]string{"kafka", "cleaner"}, []string{"events:processed_event/720h"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.a.Name = "orders"
			d := c.a.WithDefaults()
			if !slices.Equal(d.Components, c.components) {
				t.Errorf("components %v, want %v", d.Components, c.components)
			}
			if got := names(c.a); !slices.Equal(got, c.cleaners) {
				t.Errorf("cleaners %v, want %v", got, c.cleaners)
			}
			if _, err := newModel(d); err != nil {
				t.Errorf("NewModel: %v", err)
			}
			if again := d.WithDefaults(); !slices.Equal(again.Components, d.Components) || !slices.Equal(again.Cleaners, d.Cleaners) {
				t.Error("defaults applied twice differ from once: a re-run would change the service")
			}
		})
	}
}

// add and remove keep the processed_event cleaner sensible: adding kafka to
// a service with cleaners adds it, removing kafka removes it, and removing
// the last cleaner of a kafka service is refused (the defaults would bring
// it back on the next run).
func TestAddRemoveKeepTheProcessedEventCleaner(t *testing.T) {
	cleaners := func(a answers.Answers) []string {
		var out []string
		for _, c := range a.Cleaners {
			out = append(out, c.Name)
		}
		return out
	}
	full := answers.Answers{Name: "orders", Components: []string{"outbox", "kafka", "cleaner"}}.WithDefaults()
	noKafka, err := full.RemoveComponent(Kafka, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := cleaners(noKafka); !slices.Equal(got, []string{"outbox-dispatched"}) {
		t.Errorf("remove kafka: cleaners %v, want [outbox-dispatched]", got)
	}
	back, err := noKafka.AddConsumer(answers.ConsumerAnswers{Name: "pay"})
	if err != nil {
		t.Fatal(err)
	}
	if got := cleaners(back.WithDefaults()); !slices.Equal(got, []string{"outbox-dispatched", "processed-events"}) {
		t.Errorf("add kafka: cleaners %v, want [outbox-dispatched processed-events]", got)
	}

	httpKafka := answers.Answers{Name: "orders", Components: []string{"http", "kafka"}}.WithDefaults()
	gone, err := httpKafka.RemoveComponent(Kafka, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gone.Components, []string{"http"}) || len(gone.Cleaners) != 0 {
		t.Errorf("remove kafka from http+kafka: components %v, cleaners %v; want [http] and none (the cleaner came with kafka)", gone.Components, cleaners(gone))
	}
	for _, name := range []string{"processed-events", ""} {
		_, err := httpKafka.RemoveComponent(Cleaner, name)
		var ie *problem.InputError
		if !errors.As(err, &ie) || ie.Field != "cleaners" || !strings.Contains(ie.Msg, "keeps at least one cleaner") {
			t.Errorf("remove cleaner %q from a kafka service: %v, want refused", name, err)
		}
	}
}
