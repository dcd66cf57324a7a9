package consumer

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/segmentio/kafka-go"

	"example.com/orders/internal/benchtest"
)

// The baselines' settings, the consumer's defaults written out here so that
// this file depends on the consumer's public API only (New, Run, Close,
// Metrics), whatever client it is built on.
const (
	baselinePartitions = 6
	baselineBatch      = 100 // KAFKA_<NAME>_BATCH_SIZE's default
	baselineMaxWait    = 100 * time.Millisecond
	baselineLinger     = 5 * time.Millisecond
	baselineEventID    = "event_id" // the header the relay writes the event id in
)

// baselineMarkProcessed is the consumer's dedup insert (MarkEventsProcessed
// in db/queries/processed_event.sql), written out for the same reason.
const baselineMarkProcessed = `INSERT INTO processed_event (consumer, event_id)
SELECT $1::text, unnest($2::text[])
ON CONFLICT (consumer, event_id) DO NOTHING
RETURNING event_id`

// BenchmarkConsumerBaselines sets the generated consumer against two
// baselines that read the same topic contents in the same iteration, with
// the same batch size (100, the default), the same kfake cluster and the
// same PostgreSQL:
//
//	handwritten  the simplest correct batched consumer of the same durable
//	             work, on a kafka-go group Reader: fetch up to a batch
//	             (5 ms linger), BEGIN, the same processed_event insert of
//	             the batch's sorted ids, a no-op handler per new id,
//	             COMMIT, then one synchronous offset commit for the batch
//	limit        the same Reader and batches, one offset commit per batch,
//	             no database work: what the client and broker allow
//	consumer     the generated Consumer (New, Run, Close) with a no-op
//	             handler, its metrics telling when a message is committed
//
// Each iteration produces a backlog to a new topic (not timed), then runs
// the three in turn, each in a group of its own, starting one further
// along each iteration so that a busy moment of the machine falls on each
// in turn. Each is timed from its first handler call (or where it would
// be) to its last offset commit: joining the group and the first batch's
// fetch are not timed.
//
//	{consumer,handwritten,limit}-msgs/s
//	consumer/handwritten-%, consumer/limit-%, handwritten/limit-%
func BenchmarkConsumerBaselines(b *testing.B) {
	_, pool := benchtest.Postgres(b, "../../db/migrations")
	brokers := benchtest.Kafka(b, "events", baselinePartitions)
	messages := 20000
	if testing.Short() {
		messages = 1000
	}
	b.Logf("%d messages, %d partitions, batch %d, kfake", messages, baselinePartitions, baselineBatch)
	runs := []struct {
		name string
		run  func(b *testing.B, brokers []string, pool *pgxpool.Pool, topic string, n int) time.Duration
	}{
		{"consumer", runGenerated},
		{"handwritten", func(b *testing.B, brokers []string, pool *pgxpool.Pool, topic string, n int) time.Duration {
			return runBaseline(b, brokers, topic, "handwritten", n, pool)
		}},
		{"limit", func(b *testing.B, brokers []string, _ *pgxpool.Pool, topic string, n int) time.Duration {
			return runBaseline(b, brokers, topic, "limit", n, nil)
		}},
	}
	took := make([]time.Duration, len(runs))
	turn := benchtest.Turn() // which run goes first: one further along each sample
	for b.Loop() {
		topic := fmt.Sprintf("baseline-%d", turn)
		baselineBacklog(b, brokers, topic, messages)
		for k := range runs {
			i := (turn + k) % len(runs)
			took[i] += runs[i].run(b, brokers, pool, topic, messages)
		}
		turn++
	}
	total := float64(messages * b.N)
	rate := func(i int) float64 { return total / took[i].Seconds() }
	b.ReportMetric(0, "ns/op") // an iteration also produces the backlog: not a figure
	for i, r := range runs {
		b.ReportMetric(rate(i), r.name+"-msgs/s")
	}
	b.ReportMetric(100*rate(0)/rate(1), "consumer/handwritten-%")
	b.ReportMetric(100*rate(0)/rate(2), "consumer/limit-%")
	b.ReportMetric(100*rate(1)/rate(2), "handwritten/limit-%")
}

// baselineBacklog creates topic and writes n messages shaped like the
// outbox relay's (aggregate key, small JSON payload, event id header).
func baselineBacklog(b *testing.B, brokers []string, topic string, n int) {
	b.Helper()
	ctx := context.Background()
	client := &kafka.Client{Addr: kafka.TCP(brokers...)}
	resp, err := client.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{Topic: topic, NumPartitions: baselinePartitions, ReplicationFactor: 1}}})
	if err == nil {
		err = resp.Errors[topic]
	}
	if err != nil {
		b.Fatalf("creating %s: %v", topic, err)
	}
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: topic, Balancer: &kafka.Hash{}, RequiredAcks: kafka.RequireAll,
		BatchSize: 500, BatchTimeout: time.Millisecond}
	defer w.Close()
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		msgs[i] = kafka.Message{
			Key:     fmt.Appendf(nil, "agg-%d", i%100),
			Value:   []byte(`{"order_id":"order-000042","customer_id":"customer-7","total":1999,"currency":"EUR","items":3}`),
			Headers: []kafka.Header{{Key: baselineEventID, Value: []byte(rand.Text())}},
		}
	}
	for i := 0; i < n; i += 500 {
		if err := w.WriteMessages(ctx, msgs[i:min(i+500, n)]...); err != nil {
			b.Fatal(err)
		}
	}
}

// runGenerated runs the generated consumer over topic until it has handled
// and committed n messages, and returns the time from its first handler
// call to then.
func runGenerated(b *testing.B, brokers []string, pool *pgxpool.Pool, topic string, n int) time.Duration {
	b.Helper()
	metrics := NewMetrics(prometheus.NewRegistry())
	h := &baselineHandler{}
	dlq := NewDeadLetterWriter(brokers, time.Second)
	defer dlq.Close()
	c := New(Config{
		Name: "consumer-" + topic, Brokers: brokers, Topic: topic, Group: "consumer-" + topic,
		HandlerTimeout: 10 * time.Second, CommitTimeout: 5 * time.Second, CloseTimeout: time.Second,
		MaxAttempts: 5, DeadLetterTopic: topic + ".dlq", BatchSize: baselineBatch, Pool: pool, Metrics: metrics,
	}, h, dlq, slog.New(slog.NewTextHandler(b.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go c.Run(ctx, &wg)
	// Handled counts messages once their batch and its offsets are committed.
	handled := func() float64 { return testutil.ToFloat64(metrics.Handled.WithLabelValues(c.Name())) }
	deadline := time.Now().Add(5 * time.Minute) // only catches a hang
	for handled() < float64(n) {
		if time.Now().After(deadline) {
			b.Fatalf("the consumer handled %v of %d messages in 5 minutes", handled(), n)
		}
		time.Sleep(time.Millisecond)
	}
	took := time.Since(*h.first.Load())
	cancel()
	wg.Wait()
	closeCtx, closeCancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer closeCancel()
	c.Close(closeCtx)
	return took
}

// baselineHandler is a no-op handler that notes its first call, from
// whichever goroutine the consumer calls it.
type baselineHandler struct {
	once  sync.Once
	first atomic.Pointer[time.Time]
}

func (h *baselineHandler) Handle(context.Context, pgx.Tx, kafka.Message) error {
	h.once.Do(func() { now := time.Now(); h.first.Store(&now) })
	return nil
}

// runBaseline reads n messages of topic with a kafka-go group Reader in a
// group of its own, set up as a consumer's (MaxWait, commits only when
// asked, from the first offset, a batch of buffer), in batches of up to
// baselineBatch. With a pool it does the consumer's durable work per batch
// (the handwritten baseline); without, none (the limit). It returns the
// time from where its first handler call would be to the last offset commit.
func runBaseline(b *testing.B, brokers []string, topic, name string, n int, pool *pgxpool.Pool) time.Duration {
	b.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, GroupID: name + "-" + topic, Topic: topic,
		MaxWait: baselineMaxWait, CommitInterval: 0, QueueCapacity: baselineBatch, StartOffset: kafka.FirstOffset})
	defer r.Close()
	ctx := context.Background()
	var start time.Time
	batch := make([]kafka.Message, 0, baselineBatch)
	ids := make([]string, 0, baselineBatch)
	for done := 0; done < n; done += len(batch) {
		batch = batch[:0]
		msg, err := r.FetchMessage(ctx)
		if err != nil {
			b.Fatal(err)
		}
		batch = append(batch, msg)
		linger, cancel := context.WithTimeout(ctx, baselineLinger)
		for len(batch) < baselineBatch {
			msg, err := r.FetchMessage(linger)
			if err != nil {
				break // the linger is over
			}
			batch = append(batch, msg)
		}
		cancel()
		// The clock starts where the first handler call would be, as the
		// consumer's does: after the first batch is fetched, and in the
		// handwritten baseline after its insert too.
		handler := func() {
			if start.IsZero() {
				start = time.Now()
			}
		}
		if pool == nil {
			handler()
		} else {
			ids = ids[:0]
			for _, m := range batch {
				for _, h := range m.Headers {
					if h.Key == baselineEventID {
						ids = append(ids, string(h.Value))
					}
				}
			}
			if err := markProcessed(ctx, pool, name+"-"+topic, ids, handler); err != nil {
				b.Fatal(err)
			}
		}
		if err := r.CommitMessages(ctx, batch...); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// markProcessed is the handwritten consumer's transaction: the batch's ids,
// sorted as the consumer sorts them, into processed_event, handler (a
// no-op) for each new one, COMMIT.
func markProcessed(ctx context.Context, pool *pgxpool.Pool, consumer string, ids []string, handler func()) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) // no-op after Commit
	rows, err := tx.Query(ctx, baselineMarkProcessed, consumer, slices.Sorted(slices.Values(ids)))
	if err != nil {
		return err
	}
	fresh, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for range fresh {
		handler() // a handler would do its work here, on tx
	}
	return tx.Commit(ctx)
}
