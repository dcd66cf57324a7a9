package model

import (
	"slices"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
)

// TestKindDefaults: each kind's defaults hook fills its answers, in the
// kinds' order (kafka's consumer reads the outbox's topic; kafka brings
// the cleaner, whose defaults then give it its cleaners), for the kinds
// components: lists and for those whose instances the answers list.
func TestKindDefaults(t *testing.T) {
	a := answers.Answers{Name: "orders", Components: []string{"outbox", "kafka"}, Outbox: answers.OutboxAnswers{Topic: "orders"},
		Workers: []answers.WorkerAnswers{{Name: "tick"}}, Tasks: []answers.TaskAnswers{{Type: "report:build"}},
		Timeouts: answers.TimeoutAnswers{WorkerDrain: answers.Duration(4 * time.Second)}}.WithDefaults()
	if a.Outbox.Relays != answers.DefaultOutboxRelays || a.Outbox.BatchSize != answers.DefaultOutboxBatchSize {
		t.Errorf("outbox = %+v", a.Outbox)
	}
	if len(a.Consumers) != 1 || a.Consumers[0].Topic != "orders" || a.Consumers[0].Group != "orders-events" || a.Consumers[0].DeadLetterTopic != "orders.dlq" {
		t.Errorf("consumers = %+v, want events reading the outbox's topic", a.Consumers)
	}
	if !slices.Equal(a.Components, []string{"outbox", "kafka", "cleaner"}) {
		t.Errorf("components = %v, want kafka to bring the cleaner", a.Components)
	}
	var cleaners []string
	for _, c := range a.Cleaners {
		cleaners = append(cleaners, c.Name)
		if c.Scope != answers.ScopeFleet || c.LeaseTTL == 0 || c.Interval == 0 || c.Retention == 0 {
			t.Errorf("cleaner %+v lacks its defaults", c)
		}
	}
	if !slices.Equal(cleaners, []string{"outbox-dispatched", "processed-events"}) || a.Cleaners[1].Retention != answers.Duration(answers.ProcessedEventRetention) {
		t.Errorf("cleaners = %+v", a.Cleaners)
	}
	if w := a.Workers[0]; w.Interval != answers.Duration(time.Minute) || w.Timeout != answers.Duration(4*time.Second) || w.Scope != answers.ScopeFleet {
		t.Errorf("worker = %+v, want its timeout held to the 4s worker drain", w)
	}
	if tk := a.Tasks[0]; tk.Timeout != answers.DefaultTimeouts.TaskTimeout || tk.Queue != answers.DefaultQueue || tk.MaxRetryOrDefault() != answers.DefaultTaskMaxRetry || tk.MaxRetry == nil {
		t.Errorf("task = %+v", tk)
	}
	// Not chosen: no defaults of asynq or grpc; asynq without http runs
	// in a worker of its own.
	if a.Asynq.Mode != "" || a.Asynq.Concurrency != 0 || a.GRPC != (answers.GRPCAnswers{}) {
		t.Errorf("asynq %+v, grpc %+v: defaults of kinds not chosen", a.Asynq, a.GRPC)
	}
	if got := (answers.Answers{Name: "orders", Components: []string{"asynq"}}).WithDefaults().Asynq.Mode; got != "dedicated" {
		t.Errorf("asynq without http: mode %q, want dedicated", got)
	}
	// Consumers listed without kafka take their defaults (for the model to
	// refuse them), but bring no cleaner.
	b := answers.Answers{Name: "orders", Consumers: []answers.ConsumerAnswers{{Name: "pay"}}}.WithDefaults()
	if b.Consumers[0].Group != "orders-pay" || slices.Contains(b.Components, "cleaner") {
		t.Errorf("consumer without kafka: %+v, components %v", b.Consumers, b.Components)
	}
	// Migrating an older gsgen.yaml says which answers a kind's defaults
	// added.
	_, notes, err := answers.MigrateAnswersFile("gsgen.yaml", []byte("name: orders\ncomponents: [http, outbox]\noutbox:\n  topic: events\n"))
	if err != nil || !slices.Contains(notes, "added outbox.relays: 2 (the default)") {
		t.Errorf("migration notes %q, %v: want the outbox's relays", notes, err)
	}
}
