package outbox

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	mathrand "math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
//	pg-trips/batch  the relay's round trips to PostgreSQL per batch of
//	                events (counted on its connections, see countTrips), the
//	                looks at windows that came back short included
//
// The relay runs drain, what Run does on each tick, so the poll interval
// does not count; inserting the backlog is not timed.
func BenchmarkRelay(b *testing.B) {
	dbURL, pool := benchtest.Postgres(b, "../../db/migrations")
	relayPool, trips := countTrips(b, dbURL)
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
			relay := NewRelay(relayPool, relayWriter, cfg, slog.New(slog.NewTextHandler(b.Output(), nil)))

			var rawTime, relayTime time.Duration
			var relayTrips int64
			for b.Loop() {
				rawTime += writeRaw(b, raw, events, size)
				storeBacklog(b, pool, events)
				before, _ := trips.Load()
				start := time.Now()
				if err := relay.drain(context.Background(), relay.writer, newSweep(0, 0, 1)); err != nil {
					b.Fatal(err)
				}
				relayTime += time.Since(start)
				after, _ := trips.Load()
				relayTrips += after - before
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
			b.ReportMetric(float64(relayTrips)/(total/float64(size)), "pg-trips/batch")
		})
	}
}

// countTrips returns a pool on dbURL whose connections count their round
// trips to PostgreSQL and the time spent waiting in them (see tripConn).
func countTrips(b *testing.B, dbURL string) (*pgxpool.Pool, *trips) {
	b.Helper()
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		b.Fatal(err)
	}
	t := new(trips)
	cfg.ConnConfig.DialFunc = t.dial(cfg.ConnConfig.DialFunc)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool, t
}

// trips counts round trips to PostgreSQL on the connections dialled
// through dial, and the time from each trip's first write to the first
// byte of its answer: the time the caller waits on PostgreSQL.
type trips struct {
	count  atomic.Int64
	waited atomic.Int64 // nanoseconds
}

func (t *trips) dial(dial pgconn.DialFunc) pgconn.DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &tripConn{Conn: c, trips: t}, nil
	}
}

// Load returns the trips so far and the time waited in them.
func (t *trips) Load() (int64, time.Duration) {
	return t.count.Load(), time.Duration(t.waited.Load())
}

// tripConn counts a trip at a write after a read (or at the first write),
// so a pipeline (pgx.Batch), which pgx writes whole before it reads,
// counts once. One goroutine writes; pgx may read from another at the
// same time.
type tripConn struct {
	net.Conn
	trips *trips
	wrote atomic.Bool  // written since the last read: a further write is the same trip
	since atomic.Int64 // the trip's first write, in Unix nanoseconds
}

func (c *tripConn) Write(p []byte) (int, error) {
	if !c.wrote.Load() {
		c.since.Store(time.Now().UnixNano())
		c.wrote.Store(true)
		c.trips.count.Add(1)
	}
	return c.Conn.Write(p)
}

// Read ends a trip once the answer arrives: pgx may start a read before it
// has written all of a pipeline.
func (c *tripConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.wrote.Swap(false) {
		c.trips.waited.Add(time.Now().UnixNano() - c.since.Load())
	}
	return n, err
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
// (OUTBOX_RELAYS) and its replicas at the default batch size, ordered: each
// iteration empties one backlog with 1, 2 and 4 loops of one relay, then
// with 2 and 4 relays of one loop each, with writers of their own, as
// replicas have; and times a raw writer too. They take turns in an order
// that turns round from one iteration to the next, so that a busy moment of
// the machine does not fall on one of them only.
//
//	relays=N-events/s    N loops of one relay (one writer) emptying the backlog
//	replicas=N-events/s  N relays of one loop each, a writer each
//	...-events/s / 1     the same, over one loop's rate: relays=N/1-x, replicas=N/1-x
//	.../raw-%            the same, over the raw writer's rate
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
	newRelay := func(loops int) *Relay {
		w := NewWriter(brokers, cfg)
		b.Cleanup(func() { w.Close() })
		c := cfg
		c.Relays = loops
		return NewRelay(pool, w, c, slog.New(slog.NewTextHandler(b.Output(), nil)))
	}
	type run struct {
		name   string
		drains []func() error // run at once; nil is the raw writer
	}
	runs := []run{{name: "raw"}}
	for _, n := range []int{1, 2, 4} {
		r := newRelay(n)
		var drains []func() error
		for i := range n {
			// A writer per loop, as Run gives them.
			w := r.writer
			if i > 0 {
				w = r.loopWriter()
				b.Cleanup(func() { w.Close() })
			}
			drains = append(drains, func() error { return r.drain(context.Background(), w, newSweep(0, i, n)) })
		}
		runs = append(runs, run{fmt.Sprintf("relays=%d", n), drains})
	}
	for _, n := range []int{2, 4} {
		var drains []func() error
		for range n {
			// Each at a window of its own choosing, as Run does.
			r, start := newRelay(1), mathrand.IntN(Slots)
			drains = append(drains, func() error { return r.drain(context.Background(), r.writer, newSweep(start, 0, 1)) })
		}
		runs = append(runs, run{fmt.Sprintf("replicas=%d", n), drains})
	}
	// Each iteration runs them all in turn, starting one further along
	// each time.
	took := make([]time.Duration, len(runs))
	turn := benchtest.Turn() // which run goes first: one further along each sample
	for b.Loop() {
		for k := range runs {
			i := (turn + k) % len(runs)
			if runs[i].drains == nil {
				took[i] += writeRaw(b, raw, events, size)
				continue
			}
			storeBacklog(b, pool, events)
			took[i] += drainAtOnce(b, runs[i].drains)
			if p := pending(b, pool); p != 0 {
				b.Fatalf("%s stopped with %d of %d events pending", runs[i].name, p, events)
			}
		}
		turn++
	}
	total := float64(events * b.N)
	rate := func(i int) float64 { return total / took[i].Seconds() }
	b.ReportMetric(0, "ns/op") // an iteration also inserts the backlogs: not a figure
	for i, r := range runs[1:] {
		i++
		b.ReportMetric(rate(i), r.name+"-events/s")
		b.ReportMetric(100*rate(i)/rate(0), r.name+"/raw-%")
		if i > 1 {
			b.ReportMetric(rate(i)/rate(1), r.name+"/1-x")
		}
	}
}

// drainAtOnce runs drains at once, as Run's loops do on a tick, and
// returns how long the slowest took. A drain's error fails b: a benchmark
// whose relay failed a batch measures nothing.
func drainAtOnce(b *testing.B, drains []func() error) time.Duration {
	b.Helper()
	start := time.Now()
	errs := make([]error, len(drains))
	var all sync.WaitGroup
	for i, drain := range drains {
		all.Go(func() { errs[i] = drain() })
	}
	all.Wait()
	took := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		b.Fatalf("a relay loop failed a batch: %v", err)
	}
	return took
}
