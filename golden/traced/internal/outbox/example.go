package outbox

// This file is yours: gsgen created it once and never overwrites it. It shows
// the one rule of the outbox; move the pattern into your own code and delete
// the example when you no longer need it.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"example.com/orders/internal/db"
)

// ExampleTopic is where the example's events go. Topics must exist before
// the relay publishes to them: its writer does not create topics.
const ExampleTopic = "events"

// OrderPlaced is an example event payload.
type OrderPlaced struct {
	OrderID string `json:"order_id"`
	Total   int64  `json:"total_cents"`
}

// PlaceOrder stores a business change and the event announcing it in ONE
// transaction: both commit or neither does, so no event is published for a
// change that was rolled back, and no change goes unannounced. The relay
// publishes the event after the commit. Transactions of one order take
// turns (step 1), so its events keep the order they were stored in.
func PlaceOrder(ctx context.Context, pool *pgxpool.Pool, order OrderPlaced) error {
	payload, err := json.Marshal(order)
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		q := db.New(tx)

		// 1. Serialise the writers of this order. The relay publishes an
		//    aggregate's events in the order they were stored, which is an
		//    order only if no two transactions store them at once. With a
		//    table of yours, lock the aggregate's row before you change it:
		//        SELECT ... FROM orders WHERE id = $1 FOR UPDATE
		//    This example has no table, so it takes a lock of the order's own.
		if err := lockAggregate(ctx, tx, order.OrderID); err != nil {
			return fmt.Errorf("lock order %s: %w", order.OrderID, err)
		}

		// 2. Your own change, on the same tx, e.g.
		//    q.CreateOrder(ctx, db.CreateOrderParams{...})
		//    with a query of yours in db/queries/ and a table in a new migration.

		// 3. The event. The aggregate id becomes the Kafka key: all events of
		//    one order go to one partition, in the order they were stored.
		//    InsertEvent (gsgen's, insert.go) stores it with the traceparent
		//    of ctx's trace, which the relay and the consumer continue.
		if _, err := InsertEvent(ctx, q, db.InsertOutboxEventParams{
			AggregateID: order.OrderID,
			Topic:       ExampleTopic,
			Payload:     payload,
		}); err != nil {
			return fmt.Errorf("store OrderPlaced event: %w", err)
		}
		return nil
	})
}

// lockAggregate takes, until tx ends, a PostgreSQL advisory lock of the
// aggregate's own: the example's stand-in for SELECT ... FOR UPDATE on the
// aggregate's row. A second transaction of the same aggregate waits here
// until the first has committed or rolled back.
func lockAggregate(ctx context.Context, tx pgx.Tx, aggregateID string) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended('example-order:' || $1, 0))", aggregateID)
	return err
}
