package model

import "time"

// Consumer is one named Kafka consumer (design §4a, §9).
type Consumer struct {
	Name           string // "order-events"
	GoName         string // "OrderEvents"
	FileName       string // "order_events"
	EnvPrefix      string // "KAFKA_ORDER_EVENTS_"
	Topic          string
	Group          string
	HandlerTimeout time.Duration
	// CommitTimeout bounds what follows the handler: the dead-letter write,
	// if any, then the offset commit.
	CommitTimeout   time.Duration
	MaxAttempts     int    // handler runs before a failing message is dead-lettered
	DeadLetterTopic string // "events.dlq"
	BatchSize       int    // messages per transaction and offset commit
}

// DeadLetterHeader is a header a consumer adds to a message it dead-letters,
// beside the message's own: the service's Go constant, its README and the
// tests all read it from here.
type DeadLetterHeader struct {
	Const string // the constant in internal/consumer: "DeadLetterErrorHeader"
	Key   string // "dlq_error"
	What  string // what its value says
}
