package consumer

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// BenchmarkConsumerClients compares three ways for a group member to read a
// topic of 6 partitions (issue 27, part 9): kafka-go's group Reader, one
// stream merging the member's partitions (what the consumer is built on);
// kafka-go's ConsumerGroup and Generation API with a Reader per assigned
// partition; and franz-go's kgo with a goroutine per partition. The clients
// alone: kfake, no database, a no-op handler, a synchronous offset commit
// per batch of up to 100, the consumer's MaxWait, heartbeat, session and
// rebalance timeouts.
//
//	msgs/s               a backlog, from the first message handled to the
//	                     last one committed
//	other-partitions-ms  the first message of partition 0 holds its handler
//	                     (a message being retried: 2 s, 300 ms with -short);
//	                     time until the other five partitions are done
//	close-ms             a second member joins; the first is closed while
//	                     the group rebalances
func BenchmarkConsumerClients(b *testing.B) {
	messages, hold := 20000, 2*time.Second
	if testing.Short() {
		messages, hold = 1200, 300*time.Millisecond
	}
	for _, k := range []struct {
		name  string
		start func(brokers []string, group string, h clientHandler) clientMember
	}{
		{"kafka-go-reader", startClientReader},
		{"kafka-go-reader-per-partition", startClientPerPartition},
		{"kgo-goroutine-per-partition", startClientKgo},
	} {
		b.Run(k.name, func(b *testing.B) {
			var thr float64
			var others, closes time.Duration
			for b.Loop() {
				thr += clientThroughput(k.start, messages)
				others += clientPoison(k.start, 600, hold)
				closes += clientCloseMidRebalance(k.start)
			}
			b.ReportMetric(0, "ns/op") // an iteration starts clusters: not a figure
			b.ReportMetric(thr/float64(b.N), "msgs/s")
			b.ReportMetric(float64(others.Milliseconds())/float64(b.N), "other-partitions-ms")
			b.ReportMetric(float64(closes.Microseconds())/1000/float64(b.N), "close-ms")
		})
	}
}

const (
	clientTopic      = "events"
	clientPartitions = 6
	clientBatch      = 100
	clientMaxWait    = maxWait
	clientHeartbeat  = 250 * time.Millisecond
	clientSession    = sessionTimeout
	clientRebalance  = rebalanceTimeout
	// The merged-stream consumer's batch linger, before it moved to kgo.
	clientLinger = 5 * time.Millisecond
)

// clientHandler is called once per message; clientCommitted after each
// offset commit, with how many messages it covered.
type clientHandler func(partition int, offset int64)

var clientCommitted = func(int) {}

// clientMember is one member of a group, consuming until closed.
type clientMember interface{ close() }

func clientCluster() (*kfake.Cluster, []string) {
	c, err := kfake.NewCluster(kfake.SeedTopics(clientPartitions, clientTopic))
	if err != nil {
		panic(err)
	}
	return c, c.ListenAddrs()
}

func clientProduce(brokers []string, n int) {
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: clientTopic, RequiredAcks: kafka.RequireAll,
		Balancer: kafka.BalancerFunc(func(m kafka.Message, _ ...int) int { return m.Partition }), BatchTimeout: time.Millisecond, BatchSize: 1000}
	defer w.Close()
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		msgs[i] = kafka.Message{Partition: i % clientPartitions, Value: []byte("x")}
	}
	for len(msgs) > 0 {
		k := min(len(msgs), 1000)
		if err := w.WriteMessages(context.Background(), msgs[:k]...); err != nil {
			panic(err)
		}
		msgs = msgs[k:]
	}
}

type clientStart = func(brokers []string, group string, h clientHandler) clientMember

func clientThroughput(start clientStart, n int) float64 {
	c, brokers := clientCluster()
	defer c.Close()
	clientProduce(brokers, n)
	var done, first atomic.Int64
	finished := make(chan time.Time, 1)
	clientCommitted = func(k int) {
		if done.Add(int64(k)) == int64(n) {
			finished <- time.Now()
		}
	}
	defer func() { clientCommitted = func(int) {} }()
	m := start(brokers, "thr", func(int, int64) { first.CompareAndSwap(0, time.Now().UnixNano()) })
	end := <-finished
	m.close()
	return float64(n) / end.Sub(time.Unix(0, first.Load())).Seconds()
}

func clientPoison(start clientStart, n int, hold time.Duration) time.Duration {
	c, brokers := clientCluster()
	defer c.Close()
	clientProduce(brokers, n)
	others := n - n/clientPartitions
	var done, first atomic.Int64
	finished := make(chan time.Time, 1)
	m := start(brokers, "poison", func(p int, off int64) {
		first.CompareAndSwap(0, time.Now().UnixNano())
		if p == 0 && off == 0 {
			time.Sleep(hold)
			return
		}
		if p != 0 && done.Add(1) == int64(others) {
			finished <- time.Now()
		}
	})
	end := <-finished
	m.close()
	return end.Sub(time.Unix(0, first.Load()))
}

func clientCloseMidRebalance(start clientStart) time.Duration {
	c, brokers := clientCluster()
	defer c.Close()
	clientProduce(brokers, 60)
	joins := make(chan struct{}, 64)
	c.ControlKey(int16(kmsg.JoinGroup), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		select {
		case joins <- struct{}{}:
		default:
		}
		return nil, nil, false
	})
	got := make(chan struct{})
	var once sync.Once
	first := start(brokers, "close", func(int, int64) { once.Do(func() { close(got) }) })
	<-got
	for len(joins) > 0 {
		<-joins
	}
	second := start(brokers, "close", func(int, int64) {})
	<-joins // the second member's JoinGroup: the rebalance is on
	t := time.Now()
	first.close()
	d := time.Since(t)
	second.close()
	return d
}

// clientFetchBatch waits for a message, then takes what else r has within
// clientLinger, up to clientBatch messages, as the consumer's fetchBatch did.
func clientFetchBatch(ctx context.Context, r *kafka.Reader) ([]kafka.Message, error) {
	msg, err := r.FetchMessage(ctx)
	if err != nil {
		return nil, err
	}
	msgs := []kafka.Message{msg}
	lctx, cancel := context.WithTimeout(ctx, clientLinger)
	defer cancel()
	for len(msgs) < clientBatch {
		m, err := r.FetchMessage(lctx)
		if err != nil {
			break
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// --- kafka-go Reader: the generated consumer's shape, one merged stream.

type clientReaderMember struct {
	r    *kafka.Reader
	stop context.CancelFunc
	wg   sync.WaitGroup
}

func startClientReader(brokers []string, group string, h clientHandler) clientMember {
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, GroupID: group, Topic: clientTopic, MaxWait: clientMaxWait,
		QueueCapacity: clientBatch, SessionTimeout: clientSession, RebalanceTimeout: clientRebalance, HeartbeatInterval: clientHeartbeat,
		StartOffset: kafka.FirstOffset})
	ctx, stop := context.WithCancel(context.Background())
	m := &clientReaderMember{r: r, stop: stop}
	m.wg.Go(func() {
		for ctx.Err() == nil {
			msgs, err := clientFetchBatch(ctx, r)
			if err != nil {
				return
			}
			for _, m := range msgs {
				h(m.Partition, m.Offset)
			}
			r.CommitMessages(context.WithoutCancel(ctx), msgs...)
			clientCommitted(len(msgs))
		}
	})
	return m
}

func (m *clientReaderMember) close() { m.stop(); m.wg.Wait(); m.r.Close() }

// --- kafka-go ConsumerGroup + Generation: one Reader per assigned partition.

type clientPerPartitionMember struct {
	cg   *kafka.ConsumerGroup
	stop context.CancelFunc
	wg   sync.WaitGroup
}

func startClientPerPartition(brokers []string, group string, h clientHandler) clientMember {
	cg, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{ID: group, Brokers: brokers, Topics: []string{clientTopic},
		HeartbeatInterval: clientHeartbeat, SessionTimeout: clientSession, RebalanceTimeout: clientRebalance, StartOffset: kafka.FirstOffset})
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	m := &clientPerPartitionMember{cg: cg, stop: stop}
	m.wg.Go(func() {
		for {
			gen, err := cg.Next(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				continue
			}
			for _, a := range gen.Assignments[clientTopic] {
				gen.Start(func(gctx context.Context) {
					r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, Topic: clientTopic, Partition: a.ID, MaxWait: clientMaxWait, QueueCapacity: 10 * clientBatch})
					defer r.Close()
					r.SetOffset(a.Offset)
					for {
						msgs, err := clientFetchBatch(gctx, r)
						if err != nil {
							return
						}
						for _, m := range msgs {
							h(m.Partition, m.Offset)
						}
						gen.CommitOffsets(map[string]map[int]int64{clientTopic: {a.ID: msgs[len(msgs)-1].Offset + 1}})
						clientCommitted(len(msgs))
					}
				})
			}
		}
	})
	return m
}

func (m *clientPerPartitionMember) close() { m.stop(); m.cg.Close(); m.wg.Wait() }

// --- franz-go kgo: poll, hand each partition's records to its goroutine.

type clientKgoMember struct {
	cl   *kgo.Client
	stop context.CancelFunc
	wg   sync.WaitGroup
}

func startClientKgo(brokers []string, group string, h clientHandler) clientMember {
	var mu sync.Mutex
	workers := map[int32]chan []*kgo.Record{}
	var wwg sync.WaitGroup
	stopWorkers := func(cl *kgo.Client, lost map[string][]int32) {
		mu.Lock()
		for _, p := range lost[clientTopic] {
			if ch, ok := workers[p]; ok {
				close(ch)
				delete(workers, p)
			}
		}
		mu.Unlock()
		wwg.Wait() // each revoked partition's work is done and committed
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(clientTopic),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(clientMaxWait),
		kgo.SessionTimeout(clientSession), kgo.RebalanceTimeout(clientRebalance), kgo.HeartbeatInterval(clientHeartbeat),
		kgo.OnPartitionsRevoked(func(_ context.Context, cl *kgo.Client, lost map[string][]int32) { stopWorkers(cl, lost) }),
		kgo.OnPartitionsLost(func(_ context.Context, cl *kgo.Client, lost map[string][]int32) { stopWorkers(cl, lost) }),
	)
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	m := &clientKgoMember{cl: cl, stop: stop}
	m.wg.Go(func() {
		for {
			fs := cl.PollRecords(ctx, 10000)
			if fs.IsClientClosed() || ctx.Err() != nil {
				return
			}
			fs.EachPartition(func(p kgo.FetchTopicPartition) {
				if len(p.Records) == 0 {
					return
				}
				mu.Lock()
				ch, ok := workers[p.Partition]
				if !ok {
					ch = make(chan []*kgo.Record, 1000)
					workers[p.Partition] = ch
					wwg.Go(func() {
						for recs := range ch {
							for len(recs) > 0 {
								k := min(len(recs), clientBatch)
								for _, r := range recs[:k] {
									h(int(r.Partition), r.Offset)
								}
								cl.CommitRecords(context.Background(), recs[k-1])
								clientCommitted(k)
								recs = recs[k:]
							}
						}
					})
				}
				mu.Unlock()
				ch <- p.Records
			})
		}
	})
	return m
}

func (m *clientKgoMember) close() {
	m.stop()
	m.wg.Wait()
	m.cl.Close() // revokes (stopWorkers), commits nothing more, leaves the group
}
