package model

import "time"

// Relay is the outbox relay's settings (design §3).
type Relay struct {
	Topic        string        // topic of the example event
	BatchSize    int           // rows per batch
	PollInterval time.Duration // pause between batches when the backlog is empty
	BatchTimeout time.Duration // deadline of one batch: lock, publish, mark, commit
	Ordered      bool          // take a slot's advisory lock so one relay publishes each slot at a time
	Relays       int           // relay loops per replica, each with a connection while its batch runs
	// Failure handling (design §9): an event Kafka refuses waits BackoffMin,
	// then twice as long each time up to BackoffMax, and is parked after
	// MaxAttempts; a batch that fails as a whole (Kafka down) backs the loop
	// off the same way without charging the events.
	MaxAttempts int
	BackoffMin  time.Duration
	BackoffMax  time.Duration
}
