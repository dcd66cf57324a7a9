// Package relaywrong is the source text's relay: a Writer with kafka-go's
// defaults, one WriteMessages per event.
package relaywrong

import (
	"context"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
)

type Event struct {
	AggregateID string
	Payload     []byte
}

type OutboxRelay struct {
	producer *kafka.Writer
	interval time.Duration
	pending  func() []Event
}

func New(broker string, pending func() []Event) *OutboxRelay {
	return &OutboxRelay{
		producer: &kafka.Writer{Addr: kafka.TCP(broker), Topic: "order-events"}, // want `kafka.Writer without RequiredAcks waits for no acknowledgement \(RequireNone\): the loop publishing with it \(relay.go:\d+\)` `kafka.Writer with the default BatchTimeout \(1s\) while a loop writes one message per WriteMessages call \(relay.go:\d+\)`
		interval: 500 * time.Millisecond,
		pending:  pending,
	}
}

func (r *OutboxRelay) Run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			r.processOneBatch(ctx)
		}
	}
}

func (r *OutboxRelay) processOneBatch(ctx context.Context) error {
	for _, e := range r.pending() {
		msg := kafka.Message{Key: []byte(e.AggregateID), Value: e.Payload}
		if err := r.producer.WriteMessages(context.Background(), msg); err != nil {
			return err
		}
	}
	return nil
}

// NewAsync does not wait in WriteMessages: BatchTimeout costs it no time,
// but nothing acknowledges its writes.
func NewAsync(broker string) *kafka.Writer {
	return &kafka.Writer{Addr: kafka.TCP(broker), Async: true} // want `kafka.Writer without RequiredAcks`
}

// NewSync sets Async to its zero value: it still waits.
func NewSync(broker string) *kafka.Writer {
	return &kafka.Writer{Addr: kafka.TCP(broker), Async: false, RequiredAcks: kafka.RequireAll} // want `kafka.Writer with the default BatchTimeout`
}
