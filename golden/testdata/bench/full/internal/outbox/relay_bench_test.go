package outbox

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"

	"example.com/orders/internal/benchtest"
)

const (
	benchTopic      = "events"
	benchPartitions = 10
	benchAggregates = 100 // distinct keys, spread over the partitions by the writer's hash
	// benchBatchTimeout is OUTBOX_BATCH_TIMEOUT's default: it sets the writer's
	// write timeout and retries, as in main.
	benchBatchTimeout = 10 * time.Second
)

// benchPayload is the size of a small JSON event.
var benchPayload = []byte(`{"order_id":"order-000042","customer_id":"customer-7","total":1999,"currency":"EUR","items":3}`)

// BenchmarkRelay measures how fast the relay empties a backlog of events,
// Postgres to Kafka, for batch sizes 50 (the default), 200 and 500, next to
// the rate of a raw kafka-go writer, set up as the relay's (NewWriter), that
// writes the same messages in calls of the same size to the same brokers in
// the same run. Each iteration times both over one backlog:
//
//	raw-events/s    WriteMessages alone
//	relay-events/s  the relay's batches: lock, publish, mark dispatched, commit
//	relay/raw-%     the ratio of the two
//	ms/batch        one relay batch, to set against WORKER_DRAIN_TIMEOUT
//
// The relay runs drain, what Run does on each tick, so the poll interval
// does not count; inserting the backlog is not timed.
func BenchmarkRelay(b *testing.B) {
	_, pool := benchtest.Postgres(b, "../../db/migrations")
	brokers := benchtest.Kafka(b, benchTopic, benchPartitions)
	events := 10000
	if testing.Short() {
		events = 1000
	}
	for _, size := range []int{50, 200, 500} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			cfg := Config{
				BatchSize:       size,
				PollInterval:    time.Second,
				BatchTimeout:    benchBatchTimeout,
				Ordered:         true, // the default
				MaxAttempts:     10,
				BackoffMin:      time.Second,
				BackoffMax:      time.Minute,
				MaxMessageBytes: 1 << 20,
			}
			raw := NewWriter(brokers, cfg)
			defer raw.Close()
			relayWriter := NewWriter(brokers, cfg)
			defer relayWriter.Close()
			relay := NewRelay(pool, relayWriter, cfg, slog.New(slog.NewTextHandler(b.Output(), nil)))

			var rawTime, relayTime time.Duration
			for b.Loop() {
				rawTime += writeRaw(b, raw, events, size)
				storeBacklog(b, pool, events)
				start := time.Now()
				relay.drain(context.Background(), newSweep(0, 1))
				relayTime += time.Since(start)
				if n := pending(b, pool); n != 0 {
					b.Fatalf("the relay stopped with %d of %d events pending (its error is logged above)", n, events)
				}
			}
			total := float64(events * b.N)
			rawRate := total / rawTime.Seconds()
			relayRate := total / relayTime.Seconds()
			b.ReportMetric(0, "ns/op") // an iteration also inserts the backlog: not a figure
			b.ReportMetric(rawRate, "raw-events/s")
			b.ReportMetric(relayRate, "relay-events/s")
			b.ReportMetric(100*relayRate/rawRate, "relay/raw-%")
			b.ReportMetric(1000*relayTime.Seconds()/(total/float64(size)), "ms/batch")
		})
	}
}

// writeRaw writes events messages shaped like the relay's (key, payload,
// event id header) in calls of size messages, and returns how long the calls took.
func writeRaw(b *testing.B, w *kafka.Writer, events, size int) time.Duration {
	b.Helper()
	msgs := make([]kafka.Message, events)
	for i := range msgs {
		msgs[i] = kafka.Message{
			Topic:   benchTopic,
			Key:     fmt.Appendf(nil, "agg-%d", i%benchAggregates),
			Value:   benchPayload,
			Headers: []kafka.Header{{Key: EventIDHeader, Value: []byte(rand.Text())}},
		}
	}
	start := time.Now()
	for i := 0; i < events; i += size {
		if err := w.WriteMessages(context.Background(), msgs[i:min(i+size, events)]...); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// storeBacklog empties outbox_event and stores events pending rows with COPY.
func storeBacklog(b *testing.B, pool *pgxpool.Pool, events int) {
	b.Helper()
	ctx := context.Background()
	if _, err := pool.Exec(ctx, "TRUNCATE outbox_event"); err != nil {
		b.Fatal(err)
	}
	rows := make([][]any, events)
	for i := range rows {
		rows[i] = []any{fmt.Sprintf("agg-%d", i%benchAggregates), benchTopic, benchPayload}
	}
	_, err := pool.CopyFrom(ctx, pgx.Identifier{"outbox_event"}, []string{"aggregate_id", "topic", "payload"}, pgx.CopyFromRows(rows))
	if err != nil {
		b.Fatal(err)
	}
	// Fresh statistics, as autovacuum would have after a real backlog built up.
	if _, err := pool.Exec(ctx, "ANALYZE outbox_event"); err != nil {
		b.Fatal(err)
	}
}

func pending(b *testing.B, pool *pgxpool.Pool) int {
	b.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM outbox_event WHERE dispatched_at IS NULL").Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkRelayLoops measures how the relay's rate grows with its loops
// (OUTBOX_RELAYS) at the default batch size, ordered: each iteration
// empties one backlog with 1, 2 and 4 loops of one relay, and times a raw
// writer too, in an order that turns round from one iteration to the next,
// so that a busy moment of the machine does not fall on one of them only.
//
//	relays=N-events/s  N loops emptying the backlog
//	relays=N/1-x       the same, over one loop's rate in the same iteration
//	relays=N/raw-%     the same, over the raw writer's rate
func BenchmarkRelayLoops(b *testing.B) {
	_, pool := benchtest.Postgres(b, "../../db/migrations")
	brokers := benchtest.Kafka(b, benchTopic, benchPartitions)
	events := 10000
	if testing.Short() {
		events = 1000
	}
	const size = 50
	cfg := Config{
		BatchSize:       size,
		PollInterval:    time.Second,
		BatchTimeout:    benchBatchTimeout,
		Ordered:         true,
		MaxAttempts:     10,
		BackoffMin:      time.Second,
		BackoffMax:      time.Minute,
		MaxMessageBytes: 1 << 20,
	}
	raw := NewWriter(brokers, cfg)
	defer raw.Close()
	loops := []int{1, 2, 4}
	relays := map[int]*Relay{}
	for _, n := range loops {
		w := NewWriter(brokers, cfg)
		defer w.Close()
		c := cfg
		c.Relays = n
		relays[n] = NewRelay(pool, w, c, slog.New(slog.NewTextHandler(b.Output(), nil)))
	}
	// Each iteration runs the raw writer and every relay, in turn, starting
	// one further along each time.
	runs := append([]int{0}, loops...) // 0 is the raw writer
	took := map[int]time.Duration{}
	turn := 0
	for b.Loop() {
		for k := range runs {
			n := runs[(turn+k)%len(runs)]
			if n == 0 {
				took[0] += writeRaw(b, raw, events, size)
				continue
			}
			storeBacklog(b, pool, events)
			took[n] += drainWith(relays[n], n)
			if p := pending(b, pool); p != 0 {
				b.Fatalf("%d loops stopped with %d of %d events pending (their error is logged above)", n, p, events)
			}
		}
		turn++
	}
	total := float64(events * b.N)
	rate := func(n int) float64 { return total / took[n].Seconds() }
	b.ReportMetric(0, "ns/op") // an iteration also inserts the backlogs: not a figure
	for _, n := range loops {
		b.ReportMetric(rate(n), fmt.Sprintf("relays=%d-events/s", n))
		b.ReportMetric(100*rate(n)/rate(0), fmt.Sprintf("relays=%d/raw-%%", n))
		if n > 1 {
			b.ReportMetric(rate(n)/rate(1), fmt.Sprintf("relays=%d/1-x", n))
		}
	}
}

// drainWith runs drain in n loops at once, each with its own sweep, as Run
// does on a tick, and returns how long the slowest took.
func drainWith(r *Relay, n int) time.Duration {
	start := time.Now()
	var loops sync.WaitGroup
	for i := range n {
		loops.Go(func() { r.drain(context.Background(), newSweep(i, n)) })
	}
	loops.Wait()
	return time.Since(start)
}
