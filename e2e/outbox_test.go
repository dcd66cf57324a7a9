package e2e

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	outboxTopic = "events"
	// aggregates the inserted events belong to; each has its own sequence.
	aggregates = 8
	// insertEvery paces the inserts: about 400 events a second, more than the
	// slowed broker takes, so a backlog is waiting at every restart.
	insertEvery = 2 * time.Millisecond
)

// relayRig is one database and the worker service's binary, shared by the
// trials of an outbox scenario; each trial gets its own Kafka cluster and an
// empty outbox.
type relayRig struct {
	t     *testing.T
	bin   string
	dbURL string
	pool  *pgxpool.Pool
}

func newRelayRig(t *testing.T) *relayRig {
	dir, bin := workerService.build(t)
	dbURL, pool := newDatabase(t, dir)
	return &relayRig{t: t, bin: bin, dbURL: dbURL, pool: pool}
}

// trial empties the outbox and starts a Kafka cluster for one trial.
func (r *relayRig) trial() (brokers string, slow *slowBroker) {
	r.t.Helper()
	if _, err := r.pool.Exec(context.Background(), "TRUNCATE outbox_event"); err != nil {
		r.t.Fatal(err)
	}
	// The consumer of the worker preset reads a topic of its own, so that
	// only the relay is at work.
	c, brokers := newKafka(r.t, outboxTopic, "e2e-idle")
	return brokers, slowDown(c, 100*time.Millisecond)
}

func (r *relayRig) start(name, brokers string) *service {
	r.t.Helper()
	return start(r.t, name, r.bin, map[string]string{
		"DATABASE_URL":             r.dbURL,
		"KAFKA_BROKERS":            brokers,
		"KAFKA_ORDER_EVENTS_TOPIC": "e2e-idle",
		// A consumer group per process: a member killed with SIGKILL stays
		// in its group until its session times out (30s), and meanwhile a
		// new member's Reader.Close waits on the rebalance, past
		// CLOSE_TIMEOUT, so the restarted process would exit 1 for a reason
		// that has nothing to do with the relay.
		"KAFKA_ORDER_EVENTS_GROUP": "e2e-" + randomHex(4),
		"OUTBOX_POLL_INTERVAL":     "20ms",
		"LOG_LEVEL":                "debug", // the relay logs each published batch at debug
	})
}

// waitDispatched waits until every outbox row is dispatched. Call it once
// the inserts have finished; each dispatched row is progress.
func (r *relayRig) waitDispatched() {
	r.t.Helper()
	total := r.count("SELECT count(*) FROM outbox_event")
	waitCount(r.t, "outbox rows dispatched", total, func() int {
		return r.count("SELECT count(*) FROM outbox_event WHERE dispatched_at IS NOT NULL")
	})
}

// count runs a SELECT count(*) query.
func (r *relayRig) count(query string) int {
	r.t.Helper()
	var n int
	if err := r.pool.QueryRow(context.Background(), query).Scan(&n); err != nil {
		r.t.Fatal(err)
	}
	return n
}

// inserter stores outbox events continuously, the way business code does:
// one transaction per event, aggregate after aggregate, each aggregate's
// events numbered 1, 2, 3... in the payload.
type inserter struct {
	stop, done chan struct{}
	n          atomic.Int64
	err        error
}

func insertEvents(pool *pgxpool.Pool) *inserter {
	in := &inserter{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(in.done)
		seq := make([]int, aggregates)
		tick := time.NewTicker(insertEvery)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-in.stop:
				return
			case <-tick.C:
			}
			agg := i % aggregates
			seq[agg]++
			if _, in.err = pool.Exec(context.Background(),
				"INSERT INTO outbox_event (aggregate_id, topic, payload) VALUES ($1, $2, $3)",
				fmt.Sprintf("agg-%d", agg), outboxTopic, []byte(strconv.Itoa(seq[agg]))); in.err != nil {
				return
			}
			in.n.Add(1)
		}
	}()
	return in
}

// finish stops inserting and returns how many events were stored.
func (in *inserter) finish(t *testing.T) int {
	t.Helper()
	close(in.stop)
	<-in.done
	if in.err != nil {
		t.Fatalf("inserting outbox events: %v", in.err)
	}
	return int(in.n.Load())
}

// delivery is what the topic holds compared with the outbox.
type delivery struct {
	events     int // rows in the outbox
	records    int // records in the topic
	duplicates int // records of an event published before
}

// checkDelivery reads the topic and checks it against the outbox: every row
// dispatched and published, nothing unknown, and each aggregate's events in
// the order they were stored (counting first deliveries: a repeat after a
// crash is a duplicate, not a reordering).
func (r *relayRig) checkDelivery(brokers string) delivery {
	r.t.Helper()
	t := r.t
	type event struct{ aggregate, seq string }
	stored := map[string]event{}
	rows, err := r.pool.Query(context.Background(), "SELECT id::text, aggregate_id, convert_from(payload, 'UTF8'), dispatched_at IS NOT NULL FROM outbox_event")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var e event
		var dispatched bool
		if err := rows.Scan(&id, &e.aggregate, &e.seq, &dispatched); err != nil {
			t.Fatal(err)
		}
		if !dispatched {
			t.Errorf("event %s is still pending", id)
		}
		stored[id] = e
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	recs := readTopic(t, brokers, outboxTopic)
	d := delivery{events: len(stored), records: len(recs)}
	seen := map[string]bool{}
	last := map[string]int{}
	for _, rec := range recs {
		id := header(rec, "event_id")
		e, ok := stored[id]
		switch {
		case !ok:
			t.Errorf("record %d/%d carries event id %q, which is not in the outbox", rec.Partition, rec.Offset, id)
			continue
		case string(rec.Key) != e.aggregate || string(rec.Value) != e.seq:
			t.Errorf("record %d/%d of event %s: key %q value %q, want %q %q", rec.Partition, rec.Offset, id, rec.Key, rec.Value, e.aggregate, e.seq)
		case seen[id]:
			d.duplicates++
			continue
		}
		seen[id] = true
		seq, _ := strconv.Atoi(e.seq)
		if seq <= last[e.aggregate] {
			t.Errorf("%s: event %d published after event %d (record %d/%d): order per aggregate broken", e.aggregate, seq, last[e.aggregate], rec.Partition, rec.Offset)
		}
		last[e.aggregate] = seq
	}
	lost := 0
	for id := range stored {
		if !seen[id] {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d events never reached Kafka", lost, len(stored))
	}
	return d
}

// batches counts the batches a relay process published, from its debug log.
func batches(s *service) int { return s.logs.count(msgIs("outbox batch published")) }

// publishedAfterSignal reports whether the process published a batch after
// it logged the start of its shutdown: the batch in flight was finished.
func publishedAfterSignal(s *service) bool {
	started := false
	for _, l := range s.logs.all() {
		switch l.str("msg") {
		case "shutdown started":
			started = true
		case "outbox batch published":
			if started {
				return true
			}
		}
	}
	return false
}

// interruptMidBatch runs one trial: a relay publishes a backlog that keeps
// growing, gets sig while the slowed broker holds one of its batches, and a
// restarted relay publishes the rest. It returns the interrupted process,
// when the signal was sent, and what reached Kafka.
func (r *relayRig) interruptMidBatch(trial int, sig syscall.Signal) (*service, time.Time, delivery) {
	r.t.Helper()
	brokers, slow := r.trial()
	slow.on.Store(true)
	in := insertEvents(r.pool)
	old := r.start(fmt.Sprintf("relay trial %d, %v", trial, sig), brokers)
	slow.waitHeld(r.t)
	sent := old.signal(sig)
	old.wait()
	slow.on.Store(false)
	restarted := r.start(fmt.Sprintf("relay trial %d, restarted", trial), brokers)
	restarted.waitLog(msgIs("outbox batch published"))
	in.finish(r.t)
	r.waitDispatched()
	restarted.stop()
	return old, sent, r.checkDelivery(brokers)
}

// Scenario 2: SIGTERM while a batch is in flight (the broker holds it), then
// a restart: every event is in Kafka exactly once, in order per aggregate.
func TestOutboxGracefulRestart(t *testing.T) {
	e2eOnly(t)
	const trials = 20
	rig := newRelayRig(t)
	var events, records int
	var shutdowns []time.Duration
	for i := range trials {
		old, sent, d := rig.interruptMidBatch(i, syscall.SIGTERM)
		if old.code != 0 {
			t.Errorf("trial %d: exit %d after SIGTERM mid-batch, want 0", i, old.code)
		}
		if !publishedAfterSignal(old) {
			t.Errorf("trial %d: the batch in flight at SIGTERM was not finished (no batch published after the signal)", i)
		}
		if d.duplicates > 0 {
			t.Errorf("trial %d: %d events published twice after a graceful shutdown", i, d.duplicates)
		}
		if t.Failed() {
			t.FailNow()
		}
		shutdowns = append(shutdowns, old.endAt.Sub(sent))
		events += d.events
		records += d.records
	}
	t.Logf("scenario 2, outbox SIGTERM mid-batch + restart: %d/%d trials passed; %d events, %d records, 0 duplicates, order kept; shutdown with a batch held 100ms per produce request: median %v",
		trials, trials, events, records, median(shutdowns).Round(time.Millisecond))
}

// Scenario 3: SIGKILL while a batch is in flight, then a restart: no event
// is lost; the batch that was cut may be published again (counted).
func TestOutboxSIGKILL(t *testing.T) {
	e2eOnly(t)
	const trials = 10
	rig := newRelayRig(t)
	var events, duplicates, withDuplicates int
	for i := range trials {
		_, _, d := rig.interruptMidBatch(i, syscall.SIGKILL)
		if t.Failed() {
			t.FailNow()
		}
		events += d.events
		duplicates += d.duplicates
		if d.duplicates > 0 {
			withDuplicates++
		}
	}
	t.Logf("scenario 3, outbox SIGKILL mid-batch + restart: %d/%d trials passed; %d events, none lost; %d duplicates (the killed batch published again) in %d trials",
		trials, trials, events, duplicates, withDuplicates)
}

// Scenario 4: two replicas over one database during a rolling update (both
// run, then the old one stops): in the default ordered mode no event is
// published twice and each aggregate's order holds.
func TestOutboxTwoReplicas(t *testing.T) {
	e2eOnly(t)
	const trials = 3
	rig := newRelayRig(t)
	var events, batchesOld, batchesNew int
	for i := range trials {
		brokers, slow := rig.trial()
		// A slightly slow broker, so one replica's batch is still in flight
		// when the other polls.
		slow.on.Store(true)
		in := insertEvents(rig.pool)
		old := rig.start(fmt.Sprintf("relay trial %d, old replica", i), brokers)
		replacement := rig.start(fmt.Sprintf("relay trial %d, new replica", i), brokers)
		// Both replicas at work: each has published batches while the other
		// was running (the advisory lock lets one publish at a time).
		waitCount(t, "batches published by the old replica", 2, func() int { return batches(old) })
		waitCount(t, "batches published by the new replica", 2, func() int { return batches(replacement) })
		old.stop()
		slow.on.Store(false)
		// The new replica alone, inserts still coming.
		alone := batches(replacement)
		waitCount(t, "batches published by the new replica alone", alone+2, func() int { return batches(replacement) })
		in.finish(t)
		rig.waitDispatched()
		replacement.stop()
		d := rig.checkDelivery(brokers)
		if d.duplicates > 0 {
			t.Errorf("trial %d: %d events published twice by two replicas in ordered mode", i, d.duplicates)
		}
		events += d.events
		batchesOld += batches(old)
		batchesNew += batches(replacement)
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("scenario 4, two replicas (rolling update): %d/%d trials passed; %d events, 0 duplicates, order kept; batches published by the old replicas %d, by the new ones %d",
		trials, trials, events, batchesOld, batchesNew)
}
