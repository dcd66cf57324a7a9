package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"

	"example.com/orders/internal/benchtest"
	"example.com/orders/internal/db"
)

// baselineSelect reads every pending row once, in the relay's order,
// through the pending index: one statement whose rows arrive as they are
// read.
const baselineSelect = `SELECT id, aggregate_id, topic, payload, attempts, traceparent
FROM outbox_event
WHERE dispatched_at IS NULL
ORDER BY created_at, id`

// BenchmarkRelayBaseline sets the relay at its default loops (2) and at one
// loop against the simplest programs that move the same rows to the same
// topic at the default batch size (50), each with a writer made by
// NewWriter (the relay's acks, batch size and timeouts):
//
//	select       one streaming SELECT of the pending rows, in the relay's
//	             order, each 50 rows one WriteMessages call of the relay's
//	             messages; nothing written back to PostgreSQL: the limit
//	select+mark  the same, and after each write the relay's own mark
//	             (MarkOutboxDispatched) of those 50 rows on a second
//	             connection, each mark its own transaction committed as the
//	             relay's are (synchronous_commit off): the same durable
//	             work as the relay's, without its locks, charges or checks
//	relays=N     the relay's drain with N loops, a writer per loop as Run
//	             gives them
//
// Neither baseline is a relay: one process, one stream, no slot locks (a
// second copy would publish the same rows), no row locks, no retries or
// parking, an aggregate's order kept only because one caller writes.
// Each iteration stores a backlog of the same rows (COPY, not timed) before
// each run, and the runs take turns, starting one further along each
// iteration. Connections are opened before the clock starts (warm).
//
//	{select,select+mark,relays=1,relays=2}-events/s
//	relays=N/select+mark-%, relays=N/select-%, select+mark/select-%
//	...-ms/batch         the run's time per 50 events
//	...-pg-ms/batch      of which waiting on PostgreSQL, summed over the
//	                     run's connections (two loops wait at once)
//	...-pg-trips/batch   round trips to PostgreSQL per 50 events (countTrips)
func BenchmarkRelayBaseline(b *testing.B) {
	dbURL, pool := benchtest.Postgres(b, "../../db/migrations")
	// The runs' connections count their round trips and waits; storing
	// and checking the backlog go through pool.
	counted, trips := countTrips(b, dbURL)
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
	var writers []*kafka.Writer
	newWriter := func() *kafka.Writer {
		w := NewWriter(brokers, cfg)
		b.Cleanup(func() { w.Close() })
		writers = append(writers, w)
		return w
	}
	stream, streamMark := newWriter(), newWriter()
	markConn := markConnection(b, dbURL, trips)
	type run struct {
		name  string
		drain func() time.Duration
	}
	runs := []run{
		{"select", func() time.Duration { return streamRows(b, counted, stream, size, nil) }},
		{"select+mark", func() time.Duration { return streamRows(b, counted, streamMark, size, markConn) }},
	}
	for _, n := range []int{1, 2} {
		c := cfg
		c.Relays = n
		r := NewRelay(counted, newWriter(), c, slog.New(slog.NewTextHandler(b.Output(), nil)))
		var drains []func() error
		for i := range n {
			w := r.writer
			if i > 0 {
				w = r.loopWriter() // a writer per loop, as Run gives them
				b.Cleanup(func() { w.Close() })
				writers = append(writers, w)
			}
			drains = append(drains, func() error { return r.drain(context.Background(), w, newSweep(0, i, n)) })
		}
		runs = append(runs, run{fmt.Sprintf("relays=%d", n), func() time.Duration { return drainAtOnce(b, drains) }})
	}
	warm(b, counted, writers)
	took, waited := make([]time.Duration, len(runs)), make([]time.Duration, len(runs))
	trip := make([]int64, len(runs))
	turn := benchtest.Turn() // which run goes first: one further along each sample
	for b.Loop() {
		for k := range runs {
			i := (turn + k) % len(runs)
			storeBacklog(b, pool, events)
			n0, w0 := trips.Load()
			took[i] += runs[i].drain()
			n1, w1 := trips.Load()
			trip[i] += n1 - n0
			waited[i] += w1 - w0
			// The limit leaves its rows pending; every other run must
			// have marked them all.
			if p := pending(b, pool); runs[i].name != "select" && p != 0 {
				b.Fatalf("%s stopped with %d of %d events pending", runs[i].name, p, events)
			}
		}
		turn++
	}
	total := float64(events * b.N)
	rate := func(i int) float64 { return total / took[i].Seconds() }
	b.ReportMetric(0, "ns/op") // an iteration also inserts the backlogs: not a figure
	batches := total / size
	for i, r := range runs {
		b.ReportMetric(rate(i), r.name+"-events/s")
		b.ReportMetric(1000*took[i].Seconds()/batches, r.name+"-ms/batch")
		b.ReportMetric(1000*waited[i].Seconds()/batches, r.name+"-pg-ms/batch")
		b.ReportMetric(float64(trip[i])/batches, r.name+"-pg-trips/batch")
	}
	b.ReportMetric(100*rate(1)/rate(0), "select+mark/select-%")
	for i, r := range runs[2:] {
		b.ReportMetric(100*rate(i+2)/rate(1), r.name+"/select+mark-%")
		b.ReportMetric(100*rate(i+2)/rate(0), r.name+"/select-%")
	}
}

// warm opens, before any clock starts, what a run would otherwise open in
// its first sample: a connection of pool per loop (and one for the
// streaming SELECT), and each writer's connections and metadata, with one
// message each to the benchmark topic.
func warm(b *testing.B, pool *pgxpool.Pool, writers []*kafka.Writer) {
	b.Helper()
	ctx := context.Background()
	var conns []*pgxpool.Conn
	for range 3 {
		c, err := pool.Acquire(ctx)
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}
	for _, w := range writers {
		if err := w.WriteMessages(ctx, kafka.Message{Topic: benchTopic, Key: []byte("warm-up"), Value: benchPayload}); err != nil {
			b.Fatal(err)
		}
	}
}

// markConnection opens a connection of its own for the select+mark
// baseline, whose commits, like the relay's, do not wait for the WAL flush,
// counted in trips.
func markConnection(b *testing.B, dbURL string, trips *trips) *pgx.Conn {
	b.Helper()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		b.Fatal(err)
	}
	cfg.DialFunc = trips.dial(cfg.DialFunc)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, "SET synchronous_commit = off"); err != nil {
		b.Fatal(err)
	}
	return conn
}

// streamRows publishes every pending row with w, read by one streaming
// SELECT, size rows per WriteMessages call, and with mark non-nil marks each
// call's rows dispatched on it once the call returned. It returns how long
// that took, from the query to the last write or mark.
func streamRows(b *testing.B, pool *pgxpool.Pool, w *kafka.Writer, size int, mark *pgx.Conn) time.Duration {
	b.Helper()
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	msgs := make([]kafka.Message, 0, size)
	ids := make([]pgtype.UUID, 0, size)
	flush := func() {
		if len(msgs) == 0 {
			return
		}
		if err := w.WriteMessages(ctx, msgs...); err != nil {
			b.Fatal(err)
		}
		if mark != nil {
			if err := db.New(mark).MarkOutboxDispatched(ctx, ids); err != nil {
				b.Fatal(err)
			}
		}
		msgs, ids = msgs[:0], ids[:0]
	}
	start := time.Now()
	rows, err := conn.Query(ctx, baselineSelect)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var row db.LockOutboxBatchRow
		if err := rows.Scan(&row.ID, &row.AggregateID, &row.Topic, &row.Payload, &row.Attempts, &row.Traceparent); err != nil {
			b.Fatal(err)
		}
		msgs, ids = append(msgs, message(row)), append(ids, row.ID)
		if len(msgs) == size {
			flush()
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	flush()
	return time.Since(start)
}
