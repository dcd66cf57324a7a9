package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const (
	testTopic      = "events"
	testPartitions = 6
	waitLimit      = 60 * time.Second // generous: the machine may be slow; nothing here is timed
)

// insertEvents stores n events spread over aggregates agg-0..agg-(aggregates-1)
// in one transaction, one INSERT each, as business code would. Each payload
// is "<aggregate>/<sequence within the aggregate>".
func insertEvents(t *testing.T, pool *pgxpool.Pool, n, aggregates int) {
	t.Helper()
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		for i := range n {
			agg := fmt.Sprintf("agg-%d", i%aggregates)
			batch.Queue("INSERT INTO outbox_event (aggregate_id, topic, payload) VALUES ($1, $2, $3)",
				agg, testTopic, []byte(fmt.Sprintf("%s/%d", agg, i/aggregates)))
		}
		return tx.SendBatch(ctx, batch).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

func pendingEvents(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM outbox_event WHERE dispatched_at IS NULL").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func newCluster(t *testing.T, topic string) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.SeedTopics(testPartitions, topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// consumeAll reads topic from the start until it holds want records with
// distinct event ids, then checks that the topic holds no more than that (no
// duplicates) and returns the records in partition order.
func consumeAll(t *testing.T, c *kfake.Cluster, topic string, want int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var records []*kgo.Record
	seen := map[string]bool{}
	for len(seen) < want {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("got %d distinct events of %d before the deadline", len(seen), want)
		}
		fetches.EachRecord(func(r *kgo.Record) {
			records = append(records, r)
			seen[eventID(t, r)] = true
		})
	}

	// The end offsets count every record ever written: more than want means
	// something was published twice.
	req := kmsg.NewPtrListOffsetsRequest()
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	for p := range int32(testPartitions) {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition = p
		rp.Timestamp = -1 // latest
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	var total int64
	for _, shard := range cl.RequestSharded(ctx, req) {
		if shard.Err != nil {
			t.Fatal(shard.Err)
		}
		for _, tp := range shard.Resp.(*kmsg.ListOffsetsResponse).Topics {
			for _, p := range tp.Partitions {
				total += p.Offset
			}
		}
	}
	if total != int64(want) {
		t.Fatalf("topic holds %d records, want %d: some event was published more than once", total, want)
	}
	return records
}

func eventID(t *testing.T, r *kgo.Record) string {
	t.Helper()
	for _, h := range r.Headers {
		if h.Key == EventIDHeader {
			return string(h.Value)
		}
	}
	t.Fatalf("record at %d/%d has no %s header", r.Partition, r.Offset, EventIDHeader)
	return ""
}

// checkOrder checks that each aggregate's events arrived in the order they
// were stored, keyed by the aggregate id.
func checkOrder(t *testing.T, records []*kgo.Record) {
	t.Helper()
	next := map[string]int{}
	for _, r := range records {
		agg, seq, _ := strings.Cut(string(r.Value), "/")
		if string(r.Key) != agg {
			t.Fatalf("record %q has key %q, want the aggregate id %q", r.Value, r.Key, agg)
		}
		n, _ := strconv.Atoi(seq)
		if n != next[agg] {
			t.Fatalf("aggregate %s: got event %d, want %d (out of order)", agg, n, next[agg])
		}
		next[agg]++
	}
}

func testRelay(t *testing.T, pool *pgxpool.Pool, c *kfake.Cluster, cfg Config) *Relay {
	w := NewWriter(c.ListenAddrs(), cfg.BatchSize, cfg.BatchTimeout)
	t.Cleanup(func() { w.Close() })
	return NewRelay(pool, w, cfg, slog.New(slog.NewTextHandler(t.Output(), nil)))
}

// waitGroup waits for wg, failing the test if that takes too long.
func waitGroup(t *testing.T, wg *sync.WaitGroup) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after ctx was cancelled")
	}
}

// The example's PlaceOrder stores an event that the relay then publishes,
// keyed by the order id, with the row's id in the event-id header.
func TestPlaceOrderEventReachesKafka(t *testing.T) {
	pool := testPool(t)
	c := newCluster(t, ExampleTopic)
	if err := PlaceOrder(context.Background(), pool, OrderPlaced{OrderID: "order-42", Total: 1999}); err != nil {
		t.Fatal(err)
	}
	var id string
	if err := pool.QueryRow(context.Background(), "SELECT id::text FROM outbox_event").Scan(&id); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	r := testRelay(t, pool, c, Config{BatchSize: 50, PollInterval: 10 * time.Millisecond, BatchTimeout: 10 * time.Second, Ordered: true})
	wg.Add(1)
	go r.Run(ctx, &wg)
	rec := consumeAll(t, c, ExampleTopic, 1)[0]
	cancel()
	waitGroup(t, &wg)

	if string(rec.Key) != "order-42" || eventID(t, rec) != id || !strings.Contains(string(rec.Value), `"order_id":"order-42"`) {
		t.Fatalf("record key=%q event-id=%q value=%s, want key order-42, event-id %s", rec.Key, eventID(t, rec), rec.Value, id)
	}
}

func TestRelayPublishesEachEventOnceInOrder(t *testing.T) {
	for _, tc := range []struct {
		name      string
		relays    int
		ordered   bool
		batchSize int
	}{
		{"one relay", 1, true, 50},
		{"two relays, ordered", 2, true, 10},
		{"two relays, unordered", 2, false, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := testPool(t)
			c := newCluster(t, testTopic)
			const events = 300
			insertEvents(t, pool, events, 7)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			for range tc.relays {
				r := testRelay(t, pool, c, Config{BatchSize: tc.batchSize, PollInterval: 10 * time.Millisecond,
					BatchTimeout: 10 * time.Second, Ordered: tc.ordered})
				wg.Add(1)
				go r.Run(ctx, &wg)
			}

			records := consumeAll(t, c, testTopic, events)
			cancel()
			waitGroup(t, &wg)
			if tc.ordered {
				checkOrder(t, records)
			}
			if n := pendingEvents(t, pool); n != 0 {
				t.Fatalf("%d events still pending after all were published", n)
			}
		})
	}
}

// A batch that is being published when shutdown cancels ctx is still
// published, marked and committed: Run returns only after that.
func TestRelayFinishesBatchInFlightWhenCancelled(t *testing.T) {
	pool := testPool(t)
	c := newCluster(t, testTopic)

	// Hold every Produce request until released, and say when the first arrives.
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		select {
		case <-release:
		default:
			once.Do(func() { close(held) })
			c.SleepControl(func() { <-release })
		}
		return nil, nil, false // let the cluster handle it
	})

	const events = 20
	insertEvents(t, pool, events, 3)
	r := testRelay(t, pool, c, Config{BatchSize: 50, PollInterval: 10 * time.Millisecond,
		BatchTimeout: 10 * time.Second, Ordered: true})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go r.Run(ctx, &wg)

	select {
	case <-held:
	case <-time.After(waitLimit):
		t.Fatal("the relay never produced")
	}
	cancel()
	// Give a relay that wrongly obeys ctx the time to abandon the batch.
	time.Sleep(200 * time.Millisecond)
	close(release)
	waitGroup(t, &wg)

	if n := pendingEvents(t, pool); n != 0 {
		t.Fatalf("%d events still pending: the batch in flight was abandoned on cancel", n)
	}
	checkOrder(t, consumeAll(t, c, testTopic, events))
}
