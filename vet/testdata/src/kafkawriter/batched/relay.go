// Package batched acknowledges, and writes whole batches: the default
// BatchTimeout costs it nothing.
package batched

import (
	"context"

	"github.com/segmentio/kafka-go"
)

var writer = &kafka.Writer{Addr: kafka.TCP("kafka:9092"), RequiredAcks: kafka.RequireAll}

func drain(ctx context.Context, next func() []kafka.Message) error {
	for {
		msgs := next()
		if len(msgs) == 0 {
			return nil
		}
		if err := writer.WriteMessages(ctx, msgs...); err != nil {
			return err
		}
	}
}

// acksLater sets RequiredAcks after building the writer.
func acksLater() *kafka.Writer {
	w := &kafka.Writer{Addr: kafka.TCP("kafka:9092")}
	w.RequiredAcks = kafka.RequireOne
	return w
}
