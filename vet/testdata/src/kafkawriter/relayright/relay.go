// Package relayright writes the whole batch in one call with acks from every
// in-sync replica.
package relayright

import (
	"context"
	"time"

	"github.com/segmentio/kafka-go"
)

func NewWriter(brokers []string, batchSize int) *kafka.Writer {
	return &kafka.Writer{
		Addr:         kafka.TCP(brokers...),
		RequiredAcks: kafka.RequireAll,
		Balancer:     &kafka.Hash{},
		BatchSize:    batchSize,
		BatchTimeout: time.Millisecond,
	}
}

func publish(ctx context.Context, w *kafka.Writer, batches [][]kafka.Message) error {
	for _, msgs := range batches {
		if err := w.WriteMessages(ctx, msgs...); err != nil {
			return err
		}
	}
	return nil
}
