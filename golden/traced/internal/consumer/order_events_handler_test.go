package consumer

import (
	"context"
	"log/slog"
	"testing"

	"github.com/segmentio/kafka-go"

	"example.com/orders/internal/testenv"
)

// TestOrderEventsHandler shows how to test the handler against a real
// PostgreSQL: each case gets a schema of its own with the service's
// migrations applied (testenv.Postgres), and hands the handler messages in
// one transaction, as the consumer does with a batch. Extend it as you add
// work to Handle: give a case its messages and check what the work left
// behind. (consumer_test.go runs whole consumers against an in-process
// Kafka, and checks that an event delivered twice is handled once.)
func TestOrderEventsHandler(t *testing.T) {
	event := func(id string) kafka.Message {
		eventID := kafka.Header{Key: EventIDHeader, Value: []byte(id)}
		return kafka.Message{Topic: "events", Key: []byte("order-1"), Value: []byte(`{"status":"paid"}`), Headers: []kafka.Header{eventID}}
	}
	for _, tc := range []struct {
		name  string
		batch []kafka.Message // in the order Kafka delivers them
	}{
		{"one event", []kafka.Message{event("evt-1")}},
		{"two events", []kafka.Message{event("evt-1"), event("evt-2")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool, _ := testenv.Postgres(t)
			ctx := context.Background()
			h := NewOrderEventsHandler(slog.New(slog.NewTextHandler(t.Output(), nil)))
			tx, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			for _, msg := range tc.batch {
				if err := h.Handle(ctx, tx, msg); err != nil {
					t.Fatalf("Handle(%s): %v", EventID(msg), err)
				}
			}
			// The consumer commits the batch's transaction after the last
			// message: Handle must leave it open.
			if err := tx.Commit(ctx); err != nil {
				t.Fatalf("committing after Handle: %v; Handle must not commit or roll back tx", err)
			}
		})
	}
}
