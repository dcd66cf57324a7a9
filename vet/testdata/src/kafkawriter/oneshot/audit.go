// Package oneshot sends one fire-and-forget message, not from a loop: no
// relay here, the writer's defaults are its own business.
package oneshot

import (
	"context"

	"github.com/segmentio/kafka-go"
)

func Audit(ctx context.Context, line string) error {
	w := &kafka.Writer{Addr: kafka.TCP("kafka:9092"), Topic: "audit"}
	defer w.Close()
	return w.WriteMessages(ctx, kafka.Message{Value: []byte(line)})
}
