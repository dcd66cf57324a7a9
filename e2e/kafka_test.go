package e2e

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// slowBroker holds every Produce request for a while when switched on: a
// broker under load, so a batch is still in flight when the signal comes.
type slowBroker struct {
	on   atomic.Bool
	held chan struct{} // receives when a Produce request is being held
}

func slowDown(c *kfake.Cluster, d time.Duration) *slowBroker {
	s := &slowBroker{held: make(chan struct{}, 1)}
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		if s.on.Load() {
			select {
			case s.held <- struct{}{}:
			default:
			}
			// Asleep, not blocking: the cluster serves other requests
			// meanwhile (a consumer's fetches, other relays' produces), as
			// a slow broker does, instead of making them queue behind it.
			c.SleepControl(func() { time.Sleep(d) })
		}
		return nil, nil, false // not handled: the cluster then processes the request as usual
	})
	return s
}

// waitHeld returns once a Produce request is being held.
func (s *slowBroker) waitHeld(t *testing.T) {
	t.Helper()
	select {
	case <-s.held:
	case <-time.After(hang):
		t.Fatalf("no Produce request reached the broker within %v", hang)
	}
}

func kafkaClient(t *testing.T, brokers string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(strings.Split(brokers, ",")...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// readTopic returns every record in topic, ordered by partition and offset.
func readTopic(t *testing.T, brokers, topic string) []*kgo.Record {
	t.Helper()
	cl := kafkaClient(t, brokers, kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	ends := endOffsets(t, brokers, topic)
	next := map[int32]int64{}
	reached := func() bool {
		for p, end := range ends {
			if next[p] < end {
				return false
			}
		}
		return true
	}
	var recs []*kgo.Record
	for !reached() {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("reading %s: %d records within %v, not all", topic, len(recs), hang)
		}
		fetches.EachError(func(topic string, p int32, err error) { t.Fatalf("reading %s/%d: %v", topic, p, err) })
		fetches.EachRecord(func(r *kgo.Record) {
			recs = append(recs, r)
			next[r.Partition] = r.Offset + 1
		})
	}
	slices.SortStableFunc(recs, func(a, b *kgo.Record) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
	})
	return recs
}

// endOffsets returns the offset after the last record of each partition.
func endOffsets(t *testing.T, brokers, topic string) map[int32]int64 {
	t.Helper()
	cl := kafkaClient(t, brokers)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		t.Fatalf("end offsets of %s: %v", topic, err)
	}
	out := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
	return out
}

// committedOffsets returns the group's committed offset per partition of topic.
func committedOffsets(t *testing.T, brokers, group, topic string) map[int32]int64 {
	t.Helper()
	cl := kafkaClient(t, brokers)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	offsets, err := kadm.NewClient(cl).FetchOffsets(ctx, group)
	if err == nil {
		err = offsets.Error()
	}
	if err != nil {
		t.Fatalf("committed offsets of group %s: %v", group, err)
	}
	out := map[int32]int64{}
	offsets.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic {
			out[o.Partition] = o.At
		}
	})
	return out
}

func header(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}
