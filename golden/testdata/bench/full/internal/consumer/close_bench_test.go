package consumer

import (
	"context"
	"crypto/rand"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"example.com/orders/internal/benchtest"
)

// benchCloseTimeout is CLOSE_TIMEOUT's default: the reader's heartbeat
// interval follows it (heartbeatInterval).
const benchCloseTimeout = time.Second

// BenchmarkCloseMidRebalance measures Consumer.Close while the consumer's
// group rebalances, the case issue 15 found running past CLOSE_TIMEOUT:
//
//	joining  a second member is closed while its JoinGroup waits for the
//	         first member to notice the rebalance and rejoin
//	member   the first member is closed at that moment
//	dead     a member is closed while the group waits for one that died
//	         without leaving: its session timeout (10 s, shorter than the
//	         rebalance timeout) decides
//
// Each iteration has a cluster of its own (kfake); close-ms is the figure, to
// set against CLOSE_TIMEOUT (1 s).
func BenchmarkCloseMidRebalance(b *testing.B) {
	// The first member handles a message: processed_event and the handler's
	// transaction are in PostgreSQL.
	_, pool := benchtest.Postgres(b, "../../db/migrations")
	for _, scenario := range []string{"joining", "member", "dead"} {
		b.Run(scenario, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				total += closeMidRebalance(b, scenario, pool)
			}
			b.ReportMetric(0, "ns/op") // an iteration also starts a cluster: not a figure
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "close-ms")
		})
	}
}

// closeMidRebalance sets up one scenario and returns how long the Close took.
func closeMidRebalance(b *testing.B, scenario string, pool *pgxpool.Pool) time.Duration {
	b.Helper()
	const topic, group = "events", "bench"
	cluster, err := kfake.NewCluster(kfake.SeedTopics(6, topic))
	if err != nil {
		b.Fatal(err)
	}
	defer cluster.Close()
	joins := make(chan struct{}, 16)
	cluster.ControlKey(int16(kmsg.JoinGroup), func(kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		select {
		case joins <- struct{}{}:
		default:
		}
		return nil, nil, false // not handled here: the cluster goes on as usual
	})
	brokers := cluster.ListenAddrs()
	deadLetters := NewDeadLetterWriter(brokers, benchCloseTimeout)
	defer deadLetters.Close()
	newConsumer := func(h Handler) *Consumer {
		return New(Config{Name: "bench", Brokers: brokers, Topic: topic, Group: group,
			HandlerTimeout: 10 * time.Second, CommitTimeout: 5 * time.Second, MaxAttempts: 5,
			DeadLetterTopic: topic + ".dlq", CloseTimeout: benchCloseTimeout, Pool: pool}, h, deadLetters, slog.New(slog.DiscardHandler))
	}
	closeNow := func(c *Consumer) time.Duration {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		if err := c.Close(ctx); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	drain := func() {
		for len(joins) > 0 {
			<-joins
		}
	}

	if scenario == "dead" {
		deadMember(b, brokers, group, topic)
		drain()
		c := newConsumer(nil)
		waitJoin(b, joins)
		return closeNow(c)
	}

	// A first member, known to have joined once it handles a message.
	got := &firstMessage{seen: make(chan struct{})}
	first := newConsumer(got)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go first.Run(ctx, &wg)
	produce(b, brokers, topic)
	select {
	case <-got.seen:
	case <-time.After(time.Minute):
		b.Fatal("the first member never got a message")
	}
	drain()
	second := newConsumer(nil)
	waitJoin(b, joins) // the second member's JoinGroup: the rebalance is on
	stop()
	wg.Wait()
	if scenario == "joining" {
		d := closeNow(second)
		closeNow(first)
		return d
	}
	d := closeNow(first)
	closeNow(second)
	return d
}

func waitJoin(b *testing.B, joins <-chan struct{}) {
	b.Helper()
	select {
	case <-joins:
	case <-time.After(time.Minute):
		b.Fatal("no JoinGroup reached the cluster")
	}
}

// firstMessage is a Handler that reports the first message it gets.
type firstMessage struct {
	seen chan struct{}
	once sync.Once
}

func (h *firstMessage) Handle(context.Context, pgx.Tx, kafka.Message) error {
	h.once.Do(func() { close(h.seen) })
	return nil
}

func produce(b *testing.B, brokers []string, topic string) {
	b.Helper()
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: topic, RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond}
	defer w.Close()
	msg := kafka.Message{Value: []byte("x"), Headers: []kafka.Header{{Key: EventIDHeader, Value: []byte(rand.Text())}}} // new each time, or processed_event would skip it
	if err := w.WriteMessages(context.Background(), msg); err != nil {
		b.Fatal(err)
	}
}

// deadMember joins group as a member of this service would (same session
// and rebalance timeouts), takes its assignment, and then says nothing more,
// as a replica killed with SIGKILL.
func deadMember(b *testing.B, brokers []string, group, topic string) {
	b.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Topics = []string{topic}
	join := func(member string) *kmsg.JoinGroupResponse {
		req := kmsg.NewPtrJoinGroupRequest()
		req.Group, req.MemberID, req.ProtocolType = group, member, "consumer"
		req.SessionTimeoutMillis = int32(sessionTimeout / time.Millisecond)
		req.RebalanceTimeoutMillis = int32(rebalanceTimeout / time.Millisecond)
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name, p.Metadata = "range", meta.AppendTo(nil)
		req.Protocols = append(req.Protocols, p)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			b.Fatal(err)
		}
		return resp
	}
	resp := join("")
	if resp.ErrorCode != 0 && resp.MemberID != "" { // MEMBER_ID_REQUIRED: join again with it
		resp = join(resp.MemberID)
	}
	if resp.ErrorCode != 0 {
		b.Fatalf("the dead member could not join: error code %d", resp.ErrorCode)
	}
	sync := kmsg.NewPtrSyncGroupRequest()
	sync.Group, sync.Generation, sync.MemberID = group, resp.Generation, resp.MemberID
	a := kmsg.NewSyncGroupRequestGroupAssignment()
	a.MemberID = resp.MemberID
	sync.GroupAssignment = append(sync.GroupAssignment, a)
	if _, err := sync.RequestWith(ctx, cl); err != nil {
		b.Fatal(err)
	}
}
