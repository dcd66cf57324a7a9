package consumer

import (
	"context"
	"log/slog"
	"testing"

	"github.com/segmentio/kafka-go"

	"example.com/shop/internal/testenv"
)

// TestProductEventsHandler shows how to test the handler against a real
// PostgreSQL: each case gets a schema of its own with the service's
// migrations applied (testenv.Postgres), and hands the handler messages as
// Kafka would deliver them, redeliveries included. Extend it as you add work
// to Handle: give a case its messages and check what the work left behind.
// (consumer_test.go runs whole consumers against an in-process Kafka.)
func TestProductEventsHandler(t *testing.T) {
	event := func(id string) kafka.Message {
		eventID := kafka.Header{Key: EventIDHeader, Value: []byte(id)}
		return kafka.Message{Topic: "products", Key: []byte("order-1"), Value: []byte(`{"status":"paid"}`), Headers: []kafka.Header{eventID}}
	}
	for _, tc := range []struct {
		name       string
		deliveries []kafka.Message // in the order Kafka delivers them
		processed  int             // processed_event rows afterwards
	}{
		{"one event", []kafka.Message{event("evt-1")}, 1},
		{"an event delivered twice is handled once", []kafka.Message{event("evt-1"), event("evt-1")}, 1},
		{"two events", []kafka.Message{event("evt-1"), event("evt-2")}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool, _ := testenv.Postgres(t)
			h := NewProductEventsHandler(pool, slog.New(slog.NewTextHandler(t.Output(), nil)))
			for _, msg := range tc.deliveries {
				if err := h.Handle(context.Background(), msg); err != nil {
					t.Fatalf("Handle(%s): %v", EventID(msg), err)
				}
			}
			var processed int
			err := pool.QueryRow(context.Background(), "SELECT count(*) FROM processed_event WHERE consumer = $1", "product-events").Scan(&processed)
			if err != nil {
				t.Fatal(err)
			}
			if processed != tc.processed {
				t.Errorf("processed_event has %d rows for product-events, want %d", processed, tc.processed)
			}
		})
	}
}
