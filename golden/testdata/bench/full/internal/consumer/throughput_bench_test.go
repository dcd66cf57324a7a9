package consumer

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
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

// benchPartitions is the partition count of each benchmark topic.
const benchPartitions = 6

// BenchmarkConsumer measures how fast the generated consumer works through a
// backlog, for batch sizes 1 (one transaction and one offset commit per
// message, as before issue 22), 10, 100 (the default) and 500, next to a raw
// kafka-go Reader in a consumer group, with a no-op handler and a
// synchronous commit per message, reading the same messages in the same
// iteration. Each iteration produces a backlog to a new topic
// (benchPartitions partitions; not timed), then times the raw Reader, then
// the consumer, each in a group of its own, from the first message it gets
// to the last one committed (joining the group is not timed):
//
//	raw-msgs/s       the raw Reader
//	consumer-msgs/s  the consumer: processed_event insert, a no-op handler,
//	                 commit, offset commit, per batch
//	consumer/raw-%   the ratio of the two
//
// The PostgreSQL settings that decide the cost of a commit are logged.
func BenchmarkConsumer(b *testing.B) {
	_, pool := benchtest.Postgres(b, "../../db/migrations")
	brokers := benchtest.Kafka(b, "events", benchPartitions)
	var fsync, syncCommit, version string
	err := pool.QueryRow(context.Background(), "SELECT current_setting('fsync'), current_setting('synchronous_commit'), current_setting('server_version')").
		Scan(&fsync, &syncCommit, &version)
	if err != nil {
		b.Fatal(err)
	}
	messages := 20000
	if testing.Short() {
		messages = 1000
	}
	b.Logf("%d messages, %d partitions, kfake; PostgreSQL %s, fsync=%s, synchronous_commit=%s", messages, benchPartitions, version, fsync, syncCommit)
	topics := 0
	for _, size := range []int{1, 10, 100, 500} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			var rawTime, consumerTime time.Duration
			for b.Loop() {
				topics++
				topic := fmt.Sprintf("bench-%d", topics)
				produceBacklog(b, brokers, topic, messages)
				rawTime += readRaw(b, brokers, topic, messages)
				consumerTime += consume(b, brokers, pool, topic, size, messages)
			}
			total := float64(messages * b.N)
			rawRate, consumerRate := total/rawTime.Seconds(), total/consumerTime.Seconds()
			b.ReportMetric(0, "ns/op") // an iteration also produces the backlog: not a figure
			b.ReportMetric(rawRate, "raw-msgs/s")
			b.ReportMetric(consumerRate, "consumer-msgs/s")
			b.ReportMetric(100*consumerRate/rawRate, "consumer/raw-%")
		})
	}
}

// produceBacklog creates topic and writes n messages shaped like the outbox
// relay's (aggregate key, small JSON payload, event_id header) to it.
func produceBacklog(b *testing.B, brokers []string, topic string, n int) {
	b.Helper()
	ctx := context.Background()
	client := &kafka.Client{Addr: kafka.TCP(brokers...)}
	resp, err := client.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{Topic: topic, NumPartitions: benchPartitions, ReplicationFactor: 1}}})
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
			Headers: []kafka.Header{{Key: EventIDHeader, Value: []byte(rand.Text())}},
		}
	}
	for i := 0; i < n; i += 500 {
		if err := w.WriteMessages(ctx, msgs[i:min(i+500, n)]...); err != nil {
			b.Fatal(err)
		}
	}
}

// readRaw reads n messages of topic with a kafka-go Reader in a group of its
// own, as the consumer's reader is set up (MaxWait, synchronous commits,
// from the first offset), committing each message, and returns the time from
// the first message to the last commit.
func readRaw(b *testing.B, brokers []string, topic string, n int) time.Duration {
	b.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, GroupID: "raw-" + topic, Topic: topic,
		MaxWait: maxWait, CommitInterval: 0, StartOffset: kafka.FirstOffset})
	defer r.Close()
	ctx := context.Background()
	var start time.Time
	for i := range n {
		msg, err := r.FetchMessage(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			start = time.Now()
		}
		if err := r.CommitMessages(ctx, msg); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// consume runs the consumer with batch size size over topic until it has
// handled and committed n messages, and returns the time from its first
// handler call to then.
func consume(b *testing.B, brokers []string, pool *pgxpool.Pool, topic string, size, n int) time.Duration {
	b.Helper()
	metrics := NewMetrics(prometheus.NewRegistry())
	h := &firstCall{}
	dlq := NewDeadLetterWriter(brokers, time.Second)
	defer dlq.Close()
	c := New(Config{
		Name: "bench-" + topic, Brokers: brokers, Topic: topic, Group: "consumer-" + topic,
		HandlerTimeout: 10 * time.Second, CommitTimeout: 5 * time.Second, CloseTimeout: time.Second,
		MaxAttempts: 5, DeadLetterTopic: topic + ".dlq", BatchSize: size, Pool: pool, Metrics: metrics,
	}, h, dlq, slog.New(slog.NewTextHandler(b.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go c.Run(ctx, &wg)
	// Handled counts messages once their batch and its offsets are committed.
	deadline := time.Now().Add(5 * time.Minute) // only catches a hang
	for testutil.ToFloat64(metrics.Handled.WithLabelValues(c.Name())) < float64(n) {
		if time.Now().After(deadline) {
			b.Fatalf("the consumer handled %v of %d messages in 5 minutes", testutil.ToFloat64(metrics.Handled.WithLabelValues(c.Name())), n)
		}
		time.Sleep(time.Millisecond)
	}
	took := time.Since(h.started())
	cancel()
	wg.Wait()
	closeCtx, closeCancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer closeCancel()
	c.Close(closeCtx)
	return took
}

// firstCall is a no-op handler that notes when it was first called.
type firstCall struct {
	once  sync.Once
	start atomic.Pointer[time.Time]
}

func (h *firstCall) Handle(context.Context, pgx.Tx, kafka.Message) error {
	h.once.Do(func() { now := time.Now(); h.start.Store(&now) })
	return nil
}

func (h *firstCall) started() time.Time { return *h.start.Load() }
