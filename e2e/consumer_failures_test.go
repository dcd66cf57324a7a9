package e2e

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"
)

// deadLetterTopic is where the full preset's consumer puts the messages it
// gives up on (KAFKA_ORDER_EVENTS_DLQ_TOPIC's default).
const deadLetterTopic = outboxTopic + ".dlq"

// badMessage is a message the consumer cannot handle, and what its dead
// letter must say.
type badMessage struct {
	name     string
	eventID  []byte
	attempts string // dlq_attempts
	why      string // in dlq_error
}

// Consumer failure paths: three bad messages ahead of 200 good ones, as real processes
// against PostgreSQL and kfake: one whose handler always fails, one whose
// handler panics, and one whose event id is a 16-byte binary UUID (not
// UTF-8). Each bad one ends in the dead-letter topic (the failing and the
// panicking after KAFKA_ORDER_EVENTS_MAX_ATTEMPTS attempts, the binary one at
// once) with its key, value and headers and why; every good one is handled
// once; every offset is committed; and the process, which recovered three
// panics, still shuts down cleanly. The test counts; it never times.
func TestConsumerDeadLettersBadMessages(t *testing.T) {
	e2eOnly(t)
	const (
		good        = 200
		maxAttempts = 3
	)
	bad := []badMessage{
		// e2eFault (testdata/overlay/consumer) fails and panics on these ids.
		{"failing handler", []byte("e2e-fail-1"), "3", "e2e failure for e2e-fail-1"},
		{"panicking handler", []byte("e2e-panic-1"), "3", "handler panicked: e2e panic for e2e-panic-1"},
		{"binary event id", []byte{0x01, 0x8f, 0xe2, 0xc4, 0x9a, 0x7b, 0x7c, 0x3d, 0x80, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56, 0x78}, "0", "is not valid UTF-8"},
	}
	rig := newFullRig(t, fullService)

	// The bad messages first, each on its aggregate's partition, so that good
	// ones wait behind them there, and others flow on the other partitions.
	var records []*kgo.Record
	for i, b := range bad {
		records = append(records, &kgo.Record{Key: []byte("bad-" + b.name), Value: []byte(b.name),
			Headers: []kgo.RecordHeader{{Key: "event_id", Value: b.eventID}, {Key: "trace_id", Value: []byte{byte('a' + i)}}}})
	}
	cl := kafkaClient(t, rig.brokers, kgo.DefaultProduceTopic(outboxTopic), kgo.ProducerLinger(0))
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	results := cl.ProduceSync(ctx, records...)
	cancel()
	cl.Close()
	if err := results.FirstErr(); err != nil {
		t.Fatalf("producing the bad messages: %v", err)
	}
	placed := produceEvents(t, rig.brokers, good)

	svc := rig.start("consumer", map[string]string{"KAFKA_ORDER_EVENTS_MAX_ATTEMPTS": "3"})
	waitProcessed(t, rig.pool, good)
	waitCount(t, "dead letters", len(bad), func() int { return topicSize(t, rig.brokers, deadLetterTopic) })
	ends := endOffsets(t, rig.brokers, outboxTopic)
	waitCount(t, "partitions committed to their end", len(ends), func() int {
		n := 0
		for p, at := range committedOffsets(t, rig.brokers, consumerGroup, outboxTopic) {
			if at == ends[p] {
				n++
			}
		}
		for _, end := range ends {
			if end == 0 {
				n++ // nothing to commit
			}
		}
		return n
	})
	svc.stop() // exit 0: the panics were recovered, and the shutdown is the ordered one

	handled := processedEvents(t, rig.pool)
	for id := range placed {
		if !handled[id] {
			t.Errorf("good event %s was never handled", id)
		}
	}
	if len(handled) != good {
		t.Errorf("%d events handled, want the %d good ones", len(handled), good)
	}
	// The two with a usable event id are recorded as dead-lettered, so a
	// redelivery of either would be skipped.
	var recorded []string
	rows, err := rig.pool.Query(context.Background(), "SELECT event_id FROM processed_event WHERE dead_lettered_at IS NOT NULL ORDER BY event_id")
	if err == nil {
		recorded, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"e2e-fail-1", "e2e-panic-1"}; !slices.Equal(recorded, want) {
		t.Errorf("events recorded as dead-lettered: %v, want %v", recorded, want)
	}

	letters := readTopic(t, rig.brokers, deadLetterTopic)
	if len(letters) != len(bad) {
		t.Fatalf("%d dead letters, want %d", len(letters), len(bad))
	}
	for i, b := range bad {
		letter := findLetter(letters, b.name)
		if letter == nil {
			t.Errorf("%s: no dead letter", b.name)
			continue
		}
		src := records[i] // ProduceSync filled in its partition and offset
		want := map[string]string{
			"dlq_attempts":         b.attempts,
			"dlq_source_topic":     outboxTopic,
			"dlq_source_partition": strconv.FormatInt(int64(src.Partition), 10),
			"dlq_source_offset":    strconv.FormatInt(src.Offset, 10),
			"dlq_group":            consumerGroup,
		}
		for key, value := range want {
			if got := header(letter, key); got != value {
				t.Errorf("%s: dead letter %s = %q, want %q", b.name, key, got, value)
			}
		}
		if got := header(letter, "dlq_error"); !strings.Contains(got, b.why) {
			t.Errorf("%s: dead letter dlq_error = %q, want it to say %q", b.name, got, b.why)
		}
		if !bytes.Equal(letter.Key, src.Key) || !bytes.Equal([]byte(header(letter, "event_id")), b.eventID) || header(letter, "trace_id") != string(src.Headers[1].Value) {
			t.Errorf("%s: dead letter key %q, headers %v: want the message's own key and headers", b.name, letter.Key, letter.Headers)
		}
	}

	panics, lettered := 0, 0
	for _, l := range svc.logs.all() {
		switch l.str("msg") {
		case "handler panicked":
			panics++
			if !strings.Contains(l.str("stack"), "e2eFault") {
				t.Errorf("a panic was logged without its stack: %v", l)
			}
		case "message dead-lettered":
			lettered++
		}
	}
	if panics != maxAttempts || lettered != len(bad) {
		t.Errorf("logged %d panics and %d dead letters, want %d and %d", panics, lettered, maxAttempts, len(bad))
	}
	t.Logf("consumer failure paths, bad messages among %d good ones: %d dead-lettered (failing handler and panic after %d attempts, binary event id at once), every good one handled once, every offset committed, exit 0",
		good, len(bad), maxAttempts)
}

// findLetter is the dead letter whose value is value.
func findLetter(letters []*kgo.Record, value string) *kgo.Record {
	for _, r := range letters {
		if string(r.Value) == value {
			return r
		}
	}
	return nil
}

// topicSize is how many records topic holds.
func topicSize(t *testing.T, brokers, topic string) int {
	t.Helper()
	var n int64
	for _, end := range endOffsets(t, brokers, topic) {
		n += end
	}
	return int(n)
}
