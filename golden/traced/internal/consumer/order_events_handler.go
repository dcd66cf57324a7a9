package consumer

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"
)

// OrderEventsHandler handles the messages of the order-events consumer.
//
// Kafka delivers at least once: a message comes again when the service stops
// or crashes between doing the work and committing the offset, when the group
// rebalances, and when the outbox relay publishes a batch a second time. So
// the consumer makes the work idempotent by event id: it records the ids of
// a batch in processed_event and calls Handle, in the same transaction, only
// for the ids that are new. Either the work and the row commit together or
// neither does, so a redelivered event is skipped and a half-done one is
// redone.
type OrderEventsHandler struct {
	log *slog.Logger
}

// NewOrderEventsHandler returns the handler for the order-events consumer.
func NewOrderEventsHandler(log *slog.Logger) *OrderEventsHandler {
	return &OrderEventsHandler{log: log.With("consumer", "order-events")}
}

// Handle does the work for one message, once per event id, in tx. Do the
// work with tx (db.New(tx) for the sqlc queries) so that it commits or rolls
// back together with the event's processed_event row. Do not commit or roll
// back tx: the consumer does, for the whole batch.
//
// ctx is not cancelled by shutdown, so the batch in hand is finished, but it
// ends after the handler timeout: pass it to every call, so a stuck query
// gives up. An error (or a panic) rolls the batch back, and the consumer
// tries this message again on its own after a pause, and after the last
// attempt writes it to the dead-letter topic: return one for what may pass (a
// lost connection, a deadlock), and nil for a message you decide to skip.
//
// Work outside tx (an HTTP call, an email) is not undone by a rollback, and
// a rollback of the batch repeats it for the messages before a failing one:
// give this consumer batch_size: 1 in gsgen.yaml if it does such work.
func (h *OrderEventsHandler) Handle(ctx context.Context, tx pgx.Tx, msg kafka.Message) error {
	// Never empty: a message without a usable event id was dead-lettered
	// before it got here.
	eventID := EventID(msg)

	// TODO: do the work here, with tx. msg.Key is the aggregate id,
	// msg.Value the payload.

	h.log.Debug("event handled", "event_id", eventID)
	return nil
}
