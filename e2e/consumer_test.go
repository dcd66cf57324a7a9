package e2e

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
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

// producer writes messages to the outbox topic continuously, as another
// service would, each with its own event id, and remembers where each landed.
type producer struct {
	stop, done chan struct{}
	// mu is held from sending a batch until its positions are recorded, so
	// positions never misses a message that is already in the topic.
	mu     sync.Mutex
	placed map[string]position // by event id
	err    error
}

func produceEvents(t *testing.T, brokers string) *producer {
	cl := kafkaClient(t, brokers, kgo.DefaultProduceTopic(outboxTopic), kgo.ProducerLinger(0))
	p := &producer{stop: make(chan struct{}), done: make(chan struct{}), placed: map[string]position{}}
	go func() {
		defer close(p.done)
		defer cl.Close()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; {
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
			var batch []*kgo.Record
			for range 10 {
				n++
				batch = append(batch, &kgo.Record{
					Key:     fmt.Appendf(nil, "agg-%d", n%aggregates),
					Value:   strconv.AppendInt(nil, int64(n), 10),
					Headers: []kgo.RecordHeader{{Key: "event_id", Value: fmt.Appendf(nil, "e2e-%d", n)}},
				})
			}
			p.mu.Lock()
			results := cl.ProduceSync(context.Background(), batch...)
			for _, r := range results {
				if r.Err == nil {
					p.placed[string(r.Record.Headers[0].Value)] = position{r.Record.Partition, r.Record.Offset}
				}
			}
			p.mu.Unlock()
			if p.err = results.FirstErr(); p.err != nil {
				return
			}
		}
	}()
	return p
}

// positions returns where every message in the topic so far landed.
func (p *producer) positions() map[string]position {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.placed)
}

// finish stops producing and returns where each message landed.
func (p *producer) finish(t *testing.T) map[string]position {
	t.Helper()
	close(p.stop)
	<-p.done
	if p.err != nil {
		t.Fatalf("producing: %v", p.err)
	}
	return p.placed
}

// processedEvents returns the event ids the consumer has recorded as handled.
func processedEvents(t *testing.T, pool *pgxpool.Pool) map[string]bool {
	t.Helper()
	rows, err := pool.Query(context.Background(), "SELECT event_id FROM processed_event WHERE consumer = 'order-events'")
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

// waitProcessed waits until the consumer has handled at least n events.
func waitProcessed(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		var got int
		if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM processed_event").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the consumer handled %d of %d events within %v", got, n, patience)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Scenario 6: SIGTERM while messages stream in, several times over; each
// restarted consumer resumes right after the offsets the last one committed,
// and in the end every message has been handled at least once.
func TestConsumerResumesAfterCommit(t *testing.T) {
	e2eOnly(t)
	const (
		trials   = 5   // SIGTERMs mid-stream
		perTrial = 200 // messages each process handles before its SIGTERM
	)
	rig := newFullRig(t, fullService)
	prod := produceEvents(t, rig.brokers)
	committed := map[int32]int64{} // by the processes so far
	var redelivered int
	var shutdowns []time.Duration
	// run starts a consumer, lets it work until the database holds handled
	// events, and checks that it did not re-read below the committed offsets.
	run := func(name string, handled int) *service {
		svc := rig.start(name, nil)
		waitProcessed(t, rig.pool, handled)
		return svc
	}
	checkResumed := func(svc *service, before map[int32]int64, placed map[string]position) {
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
		placed := prod.positions()
		committed = committedOffsets(t, rig.brokers, consumerGroup, outboxTopic)
		handled := processedEvents(t, rig.pool)
		for id, at := range placed {
			below := at.offset < committed[at.partition]
			switch {
			case below && !handled[id]:
				t.Errorf("after %s: event %s at %d/%d is below the committed offset %d but was never handled: lost", svc.name, id, at.partition, at.offset, committed[at.partition])
			case !below && handled[id]:
				t.Errorf("after %s: event %s at %d/%d was handled but its offset is not committed (%d): it comes back after a restart", svc.name, id, at.partition, at.offset, committed[at.partition])
			}
		}
		checkResumed(svc, before, placed)
		if t.Failed() {
			t.FailNow()
		}
	}

	placed := prod.finish(t)
	last := run("consumer, last", len(placed))
	last.stop()
	checkResumed(last, committed, placed)
	handled := processedEvents(t, rig.pool)
	for id := range placed {
		if !handled[id] {
			t.Errorf("event %s was never handled", id)
		}
	}
	t.Logf("scenario 6, Kafka consumer SIGTERM mid-stream + restart: %d/%d trials passed; %d messages, every one handled, each restart resumed at the committed offsets, %d delivered twice; SIGTERM to exit median %v",
		trials, trials, len(placed), redelivered, median(shutdowns).Round(time.Millisecond))
}
