package consumer

// The user's handler of the order-events consumer, as gsgen's rolling-deploy
// scenario replaces it (e2e/rolling_test.go): its work is a row in
// e2e_effect, written in the batch's transaction, with no key that would
// hide a second handling. A row commits once per committed handling, so the
// scenario counts the events handled twice. It is not part of what gsgen
// generates.

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"
)

// OrderEventsHandler handles the messages of the order-events consumer.
type OrderEventsHandler struct {
	log *slog.Logger
}

// NewOrderEventsHandler returns the handler for the order-events consumer.
func NewOrderEventsHandler(log *slog.Logger) *OrderEventsHandler {
	return &OrderEventsHandler{log: log.With("consumer", "order-events")}
}

// Handle records the event's effect, in tx.
func (h *OrderEventsHandler) Handle(ctx context.Context, tx pgx.Tx, msg kafka.Message) error {
	_, err := tx.Exec(ctx, "INSERT INTO e2e_effect (event_id, aggregate_id, payload) VALUES ($1, $2, $3)",
		EventID(msg), string(msg.Key), string(msg.Value))
	return err
}
