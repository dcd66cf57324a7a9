package e2e

import (
	"context"
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"
)

// consumerGroup is the group id the full preset's order-events consumer uses.
const consumerGroup = "orders-order-events"

// position is where a message landed in the topic.
type position struct {
	partition int32
	offset    int64
}

// produceEvents writes n messages to the outbox topic, as another service
// would, each with its own event id, spread over the aggregates, and returns
// where each landed (by event id). It returns once all are in the topic.
func produceEvents(t *testing.T, brokers string, n int) map[string]position {
	t.Helper()
	cl := kafkaClient(t, brokers, kgo.DefaultProduceTopic(outboxTopic), kgo.ProducerLinger(0))
	defer cl.Close()
	placed := map[string]position{}
	const perCall = 100
	for sent := 0; sent < n; {
		var batch []*kgo.Record
		for ; len(batch) < perCall && sent < n; sent++ {
			batch = append(batch, &kgo.Record{
				Key:     fmt.Appendf(nil, "agg-%d", sent%aggregates),
				Value:   strconv.AppendInt(nil, int64(sent), 10),
				Headers: []kgo.RecordHeader{{Key: "event_id", Value: fmt.Appendf(nil, "e2e-%d", sent)}},
			})
		}
		ctx, cancel := context.WithTimeout(context.Background(), hang)
		results := cl.ProduceSync(ctx, batch...)
		cancel()
		if err := results.FirstErr(); err != nil {
			t.Fatalf("producing: %v", err)
		}
		for _, r := range results {
			placed[string(r.Record.Headers[0].Value)] = position{r.Record.Partition, r.Record.Offset}
		}
	}
	return placed
}

// processedEvents returns the event ids the consumer has recorded as handled.
func processedEvents(t *testing.T, pool *pgxpool.Pool) map[string]bool {
	t.Helper()
	rows, err := pool.Query(context.Background(), "SELECT event_id FROM processed_event WHERE consumer = 'order-events' AND dead_lettered_at IS NULL")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out[id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitProcessed waits until the consumer has handled at least n events;
// every event handled is progress.
func waitProcessed(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	waitCount(t, "events handled by the consumer", n, func() int {
		var got int
		if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM processed_event WHERE dead_lettered_at IS NULL").Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	})
}

// Scenario 6: SIGTERM while the consumer works through a backlog, several
// times over; each restarted consumer resumes right after the offsets the
// last one committed, and in the end every message has been handled at least
// once. The backlog is a fixed number of messages, produced up front: the
// test waits on how many are handled, never on how fast.
func TestConsumerResumesAfterCommit(t *testing.T) {
	e2eOnly(t)
	const (
		trials   = 5   // SIGTERMs mid-stream
		perTrial = 200 // messages each process handles before its SIGTERM
		// Twenty times what the trials ask for: the consumer handles
		// batches of 100 at tens of thousands of messages a second, so
		// between two looks at the database (20ms apart) it can run a
		// thousand past its perTrial; each SIGTERM must still come with
		// messages waiting.
		backlog = 20 * trials * perTrial
	)
	rig := newFullRig(t, fullService)
	placed := produceEvents(t, rig.brokers, backlog)
	committed := map[int32]int64{} // by the processes so far
	var redelivered int
	var shutdowns []time.Duration
	// run starts a consumer and lets it work until the database holds
	// handled events.
	run := func(name string, handled int) *service {
		svc := rig.start(name, nil)
		waitProcessed(t, rig.pool, handled)
		return svc
	}
	// checkResumed checks that the process did not re-read below the offsets
	// committed before it started.
	checkResumed := func(svc *service, before map[int32]int64) {
		for _, l := range svc.logs.all() {
			if l.str("msg") != "event already processed" {
				continue
			}
			redelivered++
			if at := placed[l.str("event_id")]; at.offset < before[at.partition] {
				t.Errorf("%s read event %s at %d/%d again, below the committed offset %d", svc.name, l.str("event_id"), at.partition, at.offset, before[at.partition])
			}
		}
	}
	for i := range trials {
		before := committed
		svc := run(fmt.Sprintf("consumer %d", i), (i+1)*perTrial)
		sent := svc.signal(syscall.SIGTERM)
		if code := svc.wait(); code != 0 {
			t.Fatalf("%s: exit %d after SIGTERM mid-stream, want 0", svc.name, code)
		}
		shutdowns = append(shutdowns, svc.endAt.Sub(sent))

		// What the processes handled is exactly what they committed: the
		// message in hand at SIGTERM was finished and its offset committed.
		committed = committedOffsets(t, rig.brokers, consumerGroup, outboxTopic)
		handled := processedEvents(t, rig.pool)
		if len(handled) >= backlog {
			t.Fatalf("after %s: all %d messages handled before the SIGTERM; the backlog is too small to stop mid-stream", svc.name, backlog)
		}
		for id, at := range placed {
			below := at.offset < committed[at.partition]
			switch {
			case below && !handled[id]:
				t.Errorf("after %s: event %s at %d/%d is below the committed offset %d but was never handled: lost", svc.name, id, at.partition, at.offset, committed[at.partition])
			case !below && handled[id]:
				t.Errorf("after %s: event %s at %d/%d was handled but its offset is not committed (%d): it comes back after a restart", svc.name, id, at.partition, at.offset, committed[at.partition])
			}
		}
		checkResumed(svc, before)
		if t.Failed() {
			t.FailNow()
		}
	}

	last := run("consumer, last", len(placed))
	last.stop()
	checkResumed(last, committed)
	handled := processedEvents(t, rig.pool)
	for id := range placed {
		if !handled[id] {
			t.Errorf("event %s was never handled", id)
		}
	}
	t.Logf("scenario 6, Kafka consumer SIGTERM mid-stream + restart: %d/%d trials passed; %d messages, every one handled, each restart resumed at the committed offsets, %d delivered twice; SIGTERM to exit median %v",
		trials, trials, len(placed), redelivered, median(shutdowns).Round(time.Millisecond))
}
