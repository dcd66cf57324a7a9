package e2e

import (
	"context"
	"fmt"
	"maps"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kfake"
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
	return r.startWith(name, brokers, nil)
}

// startWith starts a relay process with settings of its own on top of
// start's.
func (r *relayRig) startWith(name, brokers string, settings map[string]string) *service {
	r.t.Helper()
	env := map[string]string{
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
	}
	maps.Copy(env, settings)
	return start(r.t, name, r.bin, env)
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
	return insertEventsFrom(pool, make([]int, aggregates))
}

// insertEventsFrom is insertEvents numbering each aggregate's events on
// from seq (len(seq) aggregates), which it takes over.
func insertEventsFrom(pool *pgxpool.Pool, seq []int) *inserter {
	in := &inserter{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(in.done)
		tick := time.NewTicker(insertEvery)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-in.stop:
				return
			case <-tick.C:
			}
			agg := i % len(seq)
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
	return r.checkDeliveryOf(brokers, "true")
}

// checkDeliveryOf is checkDelivery for the outbox rows that match where,
// the events that must have been delivered.
func (r *relayRig) checkDeliveryOf(brokers, where string) delivery {
	r.t.Helper()
	t := r.t
	type event struct{ aggregate, seq string }
	stored := map[string]event{}
	rows, err := r.pool.Query(context.Background(), "SELECT id::text, aggregate_id, convert_from(payload, 'UTF8'), dispatched_at IS NOT NULL FROM outbox_event WHERE "+where)
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

// Scenario 4b: four replicas at once, each with two relay loops
// (OUTBOX_RELAYS), over a backlog spread across every slot while inserts
// keep coming; two replicas stop gracefully while the others run, then the
// last two. Each replica publishes, no event is published twice, none is
// lost, and each aggregate's order holds.
func TestOutboxFourReplicas(t *testing.T) {
	e2eOnly(t)
	const trials = 2
	rig := newRelayRig(t)
	var events int
	var perReplica [4]int
	for i := range trials {
		// The broker at full speed: the slowed one holds every request in
		// turn, the whole cluster's, which eight loops would queue on past
		// their write timeout.
		brokers, _ := rig.trial()
		// A backlog of 64 aggregates (every slot has some), then the
		// inserter's events on top (insertEvents' aggregates agg-0 to agg-7
		// are among them, numbered on from the backlog).
		next := make([]int, 64)
		storeEvents(t, rig.pool, outboxTopic, 3000, next)
		in := insertEventsFrom(rig.pool, next[:aggregates])
		var replicas [4]*service
		for j := range replicas {
			replicas[j] = rig.startWith(fmt.Sprintf("relay trial %d, replica %d", i, j), brokers, map[string]string{"OUTBOX_RELAYS": "2"})
		}
		// Every replica at work at once.
		for j, r := range replicas {
			waitCount(t, fmt.Sprintf("batches published by replica %d", j), 2, func() int { return batches(r) })
		}
		replicas[0].stop()
		replicas[1].stop()
		// The two left publish on, inserts still coming.
		left := batches(replicas[2]) + batches(replicas[3])
		waitCount(t, "batches published by the two replicas left", left+4, func() int { return batches(replicas[2]) + batches(replicas[3]) })
		in.finish(t)
		rig.waitDispatched()
		replicas[2].stop()
		replicas[3].stop()
		d := rig.checkDelivery(brokers)
		if d.duplicates > 0 {
			t.Errorf("trial %d: %d events published twice by four replicas stopped gracefully", i, d.duplicates)
		}
		events += d.events
		for j, r := range replicas {
			perReplica[j] += batches(r)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("scenario 4b, four replicas of two relay loops: %d/%d trials passed; %d events, 0 duplicates, none lost, order kept; batches published by each replica %v",
		trials, trials, events, perReplica)
}

// storeEvents stores n events in one transaction, one INSERT each as
// business code would, aggregate after aggregate in turn, numbering each
// aggregate's events on from next (which it advances), like insertEvents.
func storeEvents(t *testing.T, pool *pgxpool.Pool, topic string, n int, next []int) {
	t.Helper()
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		for i := range n {
			agg := i % len(next)
			next[agg]++
			batch.Queue("INSERT INTO outbox_event (aggregate_id, topic, payload) VALUES ($1, $2, $3)",
				fmt.Sprintf("agg-%d", agg), topic, []byte(strconv.Itoa(next[agg])))
		}
		return tx.SendBatch(context.Background(), batch).Close()
	})
	if err != nil {
		t.Fatalf("storing outbox events: %v", err)
	}
}

// storeEvent stores one event and returns its id.
func storeEvent(t *testing.T, pool *pgxpool.Pool, topic, aggregate, payload string) string {
	t.Helper()
	var id string
	err := pool.QueryRow(context.Background(), "INSERT INTO outbox_event (aggregate_id, topic, payload) VALUES ($1, $2, $3) RETURNING id::text",
		aggregate, topic, []byte(payload)).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// isFailedLook matches the relay's line for a look that failed as a whole.
func isFailedLook(l logLine) bool {
	return l.str("level") == "ERROR" && strings.HasPrefix(l.str("msg"), "outbox batch failed")
}

// Scenario 5: one event Kafka refuses (its topic does not exist) among 1000
// good ones, with the real binary. The good ones are all delivered, each
// aggregate in order; the refused one is parked after OUTBOX_MAX_ATTEMPTS,
// logged once at error level with its id, and the later event of its
// aggregate waits behind it.
func TestOutboxRefusedEventIsParked(t *testing.T) {
	e2eOnly(t)
	rig := newRelayRig(t)
	brokers, _ := rig.trial()
	next := make([]int, aggregates)
	storeEvents(t, rig.pool, outboxTopic, 500, next)
	refused := storeEvent(t, rig.pool, "no-such-topic", "agg-refused", "1")
	behind := storeEvent(t, rig.pool, outboxTopic, "agg-refused", "2")
	storeEvents(t, rig.pool, outboxTopic, 500, next)

	const attempts = 3
	svc := rig.startWith("relay with a refused event", brokers, map[string]string{
		"OUTBOX_MAX_ATTEMPTS": strconv.Itoa(attempts),
		"OUTBOX_BACKOFF_MIN":  "10ms",
		"OUTBOX_BACKOFF_MAX":  "40ms",
	})
	waitCount(t, "events dispatched", 1000, func() int {
		return rig.count("SELECT count(*) FROM outbox_event WHERE dispatched_at IS NOT NULL")
	})
	waitCount(t, "events parked", 1, func() int { return rig.count("SELECT count(*) FROM outbox_event WHERE parked_at IS NOT NULL") })
	svc.stop()

	d := rig.checkDeliveryOf(brokers, "aggregate_id <> 'agg-refused'")
	var n int
	var lastError string
	if err := rig.pool.QueryRow(context.Background(), "SELECT attempts, last_error FROM outbox_event WHERE id = $1 AND parked_at IS NOT NULL", refused).Scan(&n, &lastError); err != nil {
		t.Fatalf("the refused event %s is not parked: %v", refused, err)
	}
	if n != attempts || !strings.Contains(lastError, "Unknown Topic Or Partition") {
		t.Errorf("refused event parked after %d attempts with %q, want %d and Kafka's error", n, lastError, attempts)
	}
	if rig.count(fmt.Sprintf("SELECT count(*) FROM outbox_event WHERE id = '%s' AND dispatched_at IS NULL AND attempts = 0", behind)) != 1 {
		t.Errorf("the event behind the refused one (%s) was tried or published: ordered mode must hold it", behind)
	}
	parked := svc.logs.count(func(l logLine) bool {
		return l.str("level") == "ERROR" && strings.HasPrefix(l.str("msg"), "outbox event parked") && l.str("event_id") == refused
	})
	if parked != 1 {
		t.Errorf("%d error lines name the parked event %s, want 1", parked, refused)
	}
	t.Logf("scenario 5, an event to a missing topic among 1000: %d delivered in order, %d duplicates; the refused one parked after %d attempts, its aggregate's next event held; %d error line naming it",
		d.events, d.duplicates, n, parked)
}

// Scenario 6: Kafka goes down for about ten seconds while events keep
// coming, then comes back on the same ports with its records. No event is
// lost or charged an attempt; the relay backs off, so it logs far fewer
// error lines than it has poll intervals in the outage.
func TestOutboxKafkaDownUnderLoad(t *testing.T) {
	e2eOnly(t)
	rig := newRelayRig(t)
	if _, err := rig.pool.Exec(context.Background(), "TRUNCATE outbox_event"); err != nil {
		t.Fatal(err)
	}
	k := newRestartableKafka(t, outboxTopic, "e2e-idle")
	in := insertEvents(rig.pool)
	const pollInterval = 20 * time.Millisecond // start's OUTBOX_POLL_INTERVAL
	svc := rig.startWith("relay, Kafka down", k.brokers, map[string]string{
		// Waits of 0.25, 0.5, 1, 2, 2, 2 ... s: eight failed looks are about ten seconds.
		"OUTBOX_BACKOFF_MIN": "250ms",
		"OUTBOX_BACKOFF_MAX": "2s",
	})
	svc.waitLog(msgIs("outbox batch published"))

	k.down()
	downAt := time.Now()
	const failedLooks = 8
	svc.waitLogs(failedLooks, isFailedLook)
	k.up()
	outage := time.Since(downAt)
	svc.waitLog(msgIs("outbox publishing again"))
	stored := in.finish(t)
	rig.waitDispatched()
	svc.stop()

	d := rig.checkDelivery(k.brokers)
	if n := rig.count("SELECT count(*) FROM outbox_event WHERE attempts > 0 OR parked_at IS NOT NULL"); n != 0 {
		t.Errorf("%d events were charged an attempt or parked for Kafka's outage", n)
	}
	errorLines := svc.logs.count(isFailedLook)
	polls := int(outage / pollInterval)
	if errorLines*10 > polls {
		t.Errorf("%d error lines for an outage of %d poll intervals: the relay did not back off", errorLines, polls)
	}
	t.Logf("scenario 6, Kafka down %v under load: %d events stored, %d records, none lost, %d duplicates (batches cut by the outage), order kept, none charged; %d error lines for %d poll intervals",
		outage.Round(100*time.Millisecond), stored, d.records, d.duplicates, errorLines, polls)
}

// restartableKafka is a Kafka cluster that can go down and come back on the
// same ports with the records it had, as brokers that restart do.
type restartableKafka struct {
	t       *testing.T
	dir     string // where kfake keeps its data
	ports   []int
	topics  []string
	cluster *kfake.Cluster // nil while down
	brokers string         // KAFKA_BROKERS
}

func newRestartableKafka(t *testing.T, topics ...string) *restartableKafka {
	t.Helper()
	k := &restartableKafka{t: t, dir: t.TempDir(), topics: topics}
	k.up()
	addrs := k.cluster.ListenAddrs()
	for _, a := range addrs {
		_, port, err := net.SplitHostPort(a)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := strconv.Atoi(port)
		k.ports = append(k.ports, p)
	}
	k.brokers = strings.Join(addrs, ",")
	t.Cleanup(func() {
		if k.cluster != nil {
			k.cluster.Close()
		}
	})
	return k
}

// up starts the brokers: on new ports the first time, on the same ones after.
func (k *restartableKafka) up() {
	k.t.Helper()
	opts := []kfake.Opt{kfake.DataDir(k.dir), kfake.SeedTopics(partitions, k.topics...)}
	if k.ports != nil {
		opts = append(opts, kfake.Ports(k.ports...))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		k.t.Fatalf("starting Kafka: %v", err)
	}
	k.cluster = c
}

// down stops every broker: connections are refused until up.
func (k *restartableKafka) down() {
	k.cluster.Close()
	k.cluster = nil
}
