package generator

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func validAnswers() Answers {
	return Answers{Name: "orders"}.WithDefaults()
}

func TestNewModelDefaults(t *testing.T) {
	m, err := NewModel(validAnswers())
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
		edit  func(*Answers)
		field string // InputError.Field
		msg   string // part of the message
	}{
		{"empty name", func(a *Answers) { a.Name = "" }, "name", "empty"},
		{"upper case name", func(a *Answers) { a.Name = "Orders" }, "name", "upper-case"},
		{"name with slash", func(a *Answers) { a.Name = "a/b" }, "name", "path separator"},
		{"name with dot dot", func(a *Answers) { a.Name = "..orders" }, "name", "'..'"},
		{"name with underscore", func(a *Answers) { a.Name = "order_events" }, "name", "DNS-1123"},
		{"name starting with digit", func(a *Answers) { a.Name = "1orders" }, "name", "DNS-1123"},
		{"name ending with dash", func(a *Answers) { a.Name = "orders-" }, "name", "DNS-1123"},
		{"name with space", func(a *Answers) { a.Name = "my orders" }, "name", "DNS-1123"},
		{"name too long", func(a *Answers) { a.Name = strings.Repeat("a", 64) }, "name", "63"},
		{"go keyword", func(a *Answers) { a.Name = "func" }, "name", "Go keyword"},
		{"go keyword type", func(a *Answers) { a.Name = "type" }, "name", "Go keyword"},
		{"module with space", func(a *Answers) { a.Module = "example.com/my orders" }, "module", "not a valid Go module path"},
		{"module empty", func(a *Answers) { a.Module = "" }, "module", "not a valid Go module path"},
		{"module leading slash", func(a *Answers) { a.Module = "/orders" }, "module", "not a valid Go module path"},
		{"module with dot dot", func(a *Answers) { a.Module = "example.com/../orders" }, "module", "not a valid Go module path"},
		{"unknown component", func(a *Answers) { a.Components = []string{"http", "grpc"} }, "components", `unknown component "grpc"`},
		{"component twice", func(a *Answers) { a.Components = []string{"http", "http"} }, "components", "twice"},
		{"no components", func(a *Answers) { a.Components = nil }, "components", "none chosen"},
		{"port zero", func(a *Answers) { a.HTTP.Port = 70000 }, "http.port", "not a TCP port"},
		{"negative grace", func(a *Answers) { a.Timeouts.Grace = Duration(-time.Second) }, "timeouts.grace", "must be positive"},
		{"zero margin", func(a *Answers) { a.Timeouts.Margin = Duration(0) }, "timeouts.margin", "must be positive"},
		{"grace too short", func(a *Answers) { a.Timeouts.Grace = Duration(30 * time.Second) }, "timeouts.grace", "30s is shorter than preStop 10s + HTTP drain 25s + close 1s + margin 5s = 41s"},
		{"drain too long", func(a *Answers) { a.Timeouts.HTTPShutdown = Duration(50 * time.Second) }, "timeouts.grace", "= 66s"},
		{"prestop too long", func(a *Answers) { a.Timeouts.PreStop = Duration(30 * time.Second) }, "timeouts.grace", "preStop 30s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := validAnswers()
			c.edit(&a)
			_, err := NewModel(a)
			var ie *InputError
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
	a := Answers{Name: "order-events", Module: "github.com/acme/order-events"}.WithDefaults()
	if _, err := NewModel(a); err != nil {
		t.Fatal(err)
	}
}

func TestLadderSuggestsAFit(t *testing.T) {
	a := validAnswers()
	a.Timeouts.Grace = Duration(30 * time.Second)
	_, err := NewModel(a)
	if err == nil || !strings.Contains(err.Error(), "use grace 41s or more, or shorten http_shutdown to 14s") {
		t.Fatalf("err = %v", err)
	}
	// The suggested values fit.
	a.Timeouts.HTTPShutdown = Duration(14 * time.Second)
	if _, err := NewModel(a); err != nil {
		t.Errorf("suggested http_shutdown 14s does not fit: %v", err)
	}
	a = validAnswers()
	a.Timeouts.Grace = Duration(41 * time.Second)
	if _, err := NewModel(a); err != nil {
		t.Errorf("suggested grace 41s does not fit: %v", err)
	}
}

func TestLadderPhases(t *testing.T) {
	m, err := NewModel(validAnswers())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range m.Ladder.Phases() {
		got = append(got, p.Name+" "+Seconds(p.Start)+"-"+Seconds(p.End))
	}
	want := "preStop 0s-10s, HTTP drain 10s-35s, close 35s-36s, margin 36s-41s, slack 41s-60s"
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

func TestGoDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		25 * time.Second:        "25 * time.Second",
		time.Second:             "time.Second",
		500 * time.Millisecond:  "500 * time.Millisecond",
		90 * time.Second:        "90 * time.Second",
		2 * time.Minute:         "2 * time.Minute",
		168 * time.Hour:         "168 * time.Hour",
		1500 * time.Microsecond: "1500 * time.Microsecond",
	} {
		if got := GoDuration(d); got != want {
			t.Errorf("GoDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestComponentAnswersRejected(t *testing.T) {
	with := func(comps ...string) Answers { return Answers{Name: "orders", Components: comps} }
	cases := []struct {
		name  string
		a     Answers
		field string
		msg   string
	}{
		{"task timeout over asynq shutdown", func() Answers {
			a := with("http", "asynq")
			a.Timeouts.TaskTimeout = Duration(30 * time.Second)
			return a
		}(), "timeouts.task_timeout", "longer than asynq ShutdownTimeout 25s"},
		{"sub-second task timeout", func() Answers {
			a := with("http", "asynq")
			a.Timeouts.TaskTimeout = Duration(1500 * time.Millisecond)
			return a
		}(), "timeouts.task_timeout", "whole number of seconds"},
		{"unknown asynq mode", func() Answers { a := with("asynq"); a.Asynq.Mode = "threads"; return a }(), "asynq.mode", "unknown mode"},
		{"outbox batch over worker drain", func() Answers {
			a := with("outbox")
			a.Outbox.BatchTimeout = Duration(30 * time.Second)
			return a
		}(), "outbox.batch_timeout", "longer than worker drain 20s"},
		{"consumer handler over worker drain", func() Answers {
			a := with("kafka")
			a.Consumers = []ConsumerAnswers{{Name: "pay", HandlerTimeout: Duration(time.Minute)}}
			return a
		}(), "kafka[0].handler_timeout", "longer than worker drain"},
		{"consumer names twice", func() Answers {
			a := with("kafka")
			a.Consumers = []ConsumerAnswers{{Name: "pay"}, {Name: "pay"}}
			return a
		}(), "kafka[1].name", "used twice"},
		{"consumer name with path", func() Answers { a := with("kafka"); a.Consumers = []ConsumerAnswers{{Name: "../pay"}}; return a }(), "kafka[0].name", "not a valid name"},
		{"bad topic", func() Answers { a := with("outbox"); a.Outbox.Topic = "a topic"; return a }(), "outbox.topic", "not a valid Kafka topic"},
		{"cleaner alone", with("cleaner"), "cleaners", "no table to clean"},
		{"cleaner on unknown table", func() Answers {
			a := with("outbox", "cleaner")
			a.Cleaners = []CleanerAnswers{{Name: "sessions", Table: "session", Column: "expires_at"}}
			return a
		}(), "cleaners[0].table", "not defined by this service's migrations"},
		{"cleaner column injection", func() Answers {
			a := with("outbox", "cleaner")
			a.Cleaners = []CleanerAnswers{{Name: "x", Table: "outbox_event", Column: "dispatched_at; drop table x"}}
			return a
		}(), "cleaners[0].column", "not a plain SQL identifier"},
		// Names that collide once mapped.
		{"consumers events2 and events-2", func() Answers {
			a := with("kafka")
			a.Consumers = []ConsumerAnswers{{Name: "events2"}, {Name: "events-2"}}
			return a
		}(), "kafka[1].name", `"events-2" and kafka[0].name "events2" both become the Go name "Events2Consumer"`},
		{"consumers a-b and a--b", func() Answers {
			a := with("kafka")
			a.Consumers = []ConsumerAnswers{{Name: "a-b"}, {Name: "a--b"}}
			return a
		}(), "kafka[1].name", "both become the Go name"},
		{"cleaners x2 and x-2", func() Answers {
			a := with("outbox", "cleaner")
			a.Cleaners = []CleanerAnswers{{Name: "x2", Table: "outbox_event", Column: "dispatched_at"}, {Name: "x-2", Table: "outbox_event", Column: "dispatched_at"}}
			return a
		}(), "cleaners[1].name", `"x-2" and cleaners[0].name "x2" both become the Go name "X2Cleaner"`},
		{"one group for two consumers", func() Answers {
			a := with("kafka")
			a.Consumers = []ConsumerAnswers{{Name: "a", Group: "shared"}, {Name: "b", Group: "shared"}}
			return a
		}(), "kafka[1].group", `both become the Kafka group "shared"`},
		{"group with a newline", func() Answers {
			a := with("kafka")
			a.Consumers = []ConsumerAnswers{{Name: "a", Group: "g\n# injected"}}
			return a
		}(), "kafka[0].group", "not a consumer group id gsgen accepts"},
		// Kubernetes names with their suffixes.
		{"config and worker names over 63", func() Answers {
			a := with("asynq")
			a.Name = strings.Repeat("w", 57)
			return a
		}(), "name", "\", 64 characters long; Kubernetes allows 63; use a name of at most 56 characters"},
		{"secret name over 63", func() Answers {
			a := with("outbox")
			a.Name = strings.Repeat("p", 55)
			return a
		}(), "name", "-postgres\", 64 characters long; Kubernetes allows 63; use a name of at most 54 characters"},
		// Counts the service's config.go would refuse, or overflow on.
		{"outbox batch size over the service's limit", func() Answers { a := with("outbox"); a.Outbox.BatchSize = 3000000000; return a }(),
			"outbox.batch_size", "3000000000 is more than 10000, the most the service accepts"},
		{"asynq concurrency over the service's limit", func() Answers { a := with("asynq"); a.Asynq.Concurrency = 1001; return a }(),
			"asynq.concurrency", "at most 1000"},
		{"cleaner batch over the service's limit", func() Answers {
			a := with("outbox", "cleaner")
			a.Cleaners = []CleanerAnswers{{Name: "x", Table: "outbox_event", Column: "dispatched_at", BatchSize: 10001}}
			return a
		}(), "cleaners[0].batch_size", "at most 10000"},
		{"retention of centuries", func() Answers {
			a := with("outbox", "cleaner")
			a.Cleaners = []CleanerAnswers{{Name: "x", Table: "outbox_event", Column: "dispatched_at", Retention: Duration(200 * 365 * 24 * time.Hour)}}
			return a
		}(), "cleaners[0].retention", "at most 87600h"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewModel(c.a.WithDefaults())
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InputError", err)
			}
			if ie.Field != c.field || !strings.Contains(ie.Error(), c.msg) {
				t.Errorf("error = %q (field %q), want field %q and %q", ie, ie.Field, c.field, c.msg)
			}
		})
	}
}

// The limits gsgen checks are the ones the service's config.go enforces:
// one definition, written into the template.
func TestLimitsAreTheServicesOwn(t *testing.T) {
	a := Answers{Name: "orders", Components: []string{"http", "outbox", "asynq", "cleaner"}}.WithDefaults()
	_, files, err := Generate(a)
	if err != nil {
		t.Fatal(err)
	}
	var config string
	for _, f := range files {
		if f.Path == "internal/config/config.go" {
			config = string(f.Content)
		}
	}
	for env, limit := range map[string]int{"OUTBOX_BATCH_SIZE": limits.OutboxBatchSize, "CLEANER_OUTBOX_DISPATCHED_BATCH_SIZE": limits.CleanerBatchSize,
		"ASYNQ_CONCURRENCY": limits.AsynqConcurrency, "DATABASE_MAX_CONNS": limits.DatabaseMaxConns, "REDIS_DB": limits.RedisDB} {
		if !regexp.MustCompile(`"` + env + `", [a-zA-Z0-9]+, ` + strconv.Itoa(limit) + `\)`).MatchString(config) {
			t.Errorf("config.go does not bound %s by %d", env, limit)
		}
	}
	at := func(edit func(*Answers)) error { b := a; edit(&b); _, err := NewModel(b); return err }
	if err := at(func(b *Answers) { b.Outbox.BatchSize = limits.OutboxBatchSize }); err != nil {
		t.Errorf("the limit itself is refused: %v", err)
	}
	if err := at(func(b *Answers) { b.Outbox.BatchSize = limits.OutboxBatchSize + 1 }); err == nil {
		t.Error("one over the limit is accepted")
	}
}

func TestAllowRequeueAcceptsLongTasks(t *testing.T) {
	a := Answers{Name: "orders", Components: []string{"http", "asynq"}}
	a.Timeouts.TaskTimeout = Duration(30 * time.Second)
	a.Asynq.AllowRequeue = true
	m, err := NewModel(a.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if m.TaskServer.Dedicated || !m.TaskServer.AllowRequeue {
		t.Errorf("task server = %+v", m.TaskServer)
	}
}

// A processed_event cleaner deletes by the whole primary key: the same event
// id is recorded once per consumer, and may have expired for one only.
func TestProcessedEventCleanerUsesTheWholeKey(t *testing.T) {
	got := string(generatedFile(t, "db/queries/cleaners.sql", "kafka", "cleaner"))
	if !strings.Contains(got, "WHERE (consumer, event_id) IN (\n    SELECT consumer, event_id FROM processed_event") {
		t.Errorf("cleaners.sql:\n%s", got)
	}
}
