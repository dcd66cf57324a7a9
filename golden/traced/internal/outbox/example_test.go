package outbox

// This file is yours, like example.go: gsgen created it once and never
// overwrites it. It shows how to test your own code that stores events with
// the harness the relay's tests use: testenv.Postgres gives a test a schema
// of its own with the migrations applied, testenv.Kafka an in-process Kafka
// broker. Copy the pattern for your own code.

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"example.com/orders/internal/testenv"
)

// PlaceOrder stores its event in the outbox, pending, in the transaction of
// the order: it is there as soon as PlaceOrder returns.
func TestPlaceOrderStoresItsEvent(t *testing.T) {
	pool, _ := testenv.Postgres(t)
	ctx := context.Background()
	order := OrderPlaced{OrderID: "order-42", Total: 1999}
	if err := PlaceOrder(ctx, pool, order); err != nil {
		t.Fatal(err)
	}

	var aggregate, topic string
	var payload []byte
	var dispatched bool
	err := pool.QueryRow(ctx, "SELECT aggregate_id, topic, payload, dispatched_at IS NOT NULL FROM outbox_event").
		Scan(&aggregate, &topic, &payload, &dispatched)
	if err != nil {
		t.Fatal(err)
	}
	var stored OrderPlaced
	if err := json.Unmarshal(payload, &stored); err != nil {
		t.Fatal(err)
	}
	if aggregate != order.OrderID || topic != ExampleTopic || stored != order || dispatched {
		t.Errorf("stored event: aggregate %q, topic %q, payload %+v, dispatched %v; want %q, %q, %+v, pending",
			aggregate, topic, stored, dispatched, order.OrderID, ExampleTopic, order)
	}
}

// PlaceOrder waits while another transaction of the same order is open,
// and stores its event after that one's: the order of the events is the
// order of the transactions.
func TestPlaceOrderWaitsForTheOrdersOtherWriter(t *testing.T) {
	pool, _ := testenv.Postgres(t)
	ctx := context.Background()
	other, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback(ctx)
	if err := lockAggregate(ctx, other, "order-42"); err != nil {
		t.Fatal(err)
	}
	placed := make(chan error, 1)
	go func() { placed <- PlaceOrder(ctx, pool, OrderPlaced{OrderID: "order-42", Total: 1999}) }()

	// PlaceOrder is waiting once PostgreSQL shows its statement waiting for
	// the lock; it cannot have stored its event yet.
	testenv.WaitFor(t, "PlaceOrder waiting for the order's lock", 1, func() (int, error) {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks AS l JOIN pg_stat_activity AS a USING (pid)
WHERE l.locktype = 'advisory' AND NOT l.granted AND a.query LIKE '%example-order:%'`).Scan(&n)
		return n, err
	})
	select {
	case err := <-placed:
		t.Fatalf("PlaceOrder returned (%v) while another transaction of the order was open", err)
	default:
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-placed; err != nil {
		t.Fatal(err)
	}
}

// The relay publishes what PlaceOrder stored: keyed by the order id, with
// the outbox row's id in the EventIDHeader header.
func TestPlaceOrderEventReachesKafka(t *testing.T) {
	pool, _ := testenv.Postgres(t)
	_, brokers := testenv.Kafka(t, ExampleTopic)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := PlaceOrder(ctx, pool, OrderPlaced{OrderID: "order-42", Total: 1999}); err != nil {
		t.Fatal(err)
	}

	cfg := Config{BatchSize: 10, PollInterval: 10 * time.Millisecond, BatchTimeout: 10 * time.Second, Ordered: true,
		MaxAttempts: 3, BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		MaxMessageBytes: 1 << 20, LockName: testenv.Unique("example-")}
	writer := NewWriter(brokers, cfg)
	defer writer.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go NewRelay(pool, writer, cfg, slog.New(slog.NewTextHandler(t.Output(), nil))).Run(ctx, &wg)
	defer wg.Wait()
	defer cancel() // runs first: the relay stops, then the test waits for it

	// Read what the relay published; one message is all the test expects.
	reader := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, Topic: ExampleTopic, GroupID: testenv.Unique("example-"), MaxWait: 100 * time.Millisecond})
	defer reader.Close()
	readCtx, stop := context.WithTimeout(ctx, testenv.Hang)
	defer stop()
	msg, err := reader.ReadMessage(readCtx)
	if err != nil {
		t.Fatalf("no event reached Kafka: %v", err)
	}
	var id string
	if err := pool.QueryRow(ctx, "SELECT id::text FROM outbox_event").Scan(&id); err != nil {
		t.Fatal(err)
	}
	var eventID string
	for _, h := range msg.Headers {
		if h.Key == EventIDHeader {
			eventID = string(h.Value)
		}
	}
	if string(msg.Key) != "order-42" || eventID != id {
		t.Errorf("message key %q, event id %q; want order-42 and the outbox row's id %s", msg.Key, eventID, id)
	}
}
