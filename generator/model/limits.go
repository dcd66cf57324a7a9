package model

// Limits are the largest values the generated service's config.go accepts
// for its counts. gsgen refuses an answer above them, and config.go.tmpl
// writes them from here, so that the two can never disagree: a default
// config.go would take without checking is one gsgen already checked.
type Limits struct {
	OutboxBatchSize  int // OUTBOX_BATCH_SIZE: rows per batch and messages per Kafka write
	OutboxRelays     int // OUTBOX_RELAYS: relay loops per replica; beyond the outbox's 16 slots a loop has none to publish
	CleanerBatchSize int // CLEANER_<NAME>_BATCH_SIZE: rows per DELETE
	AsynqConcurrency int // ASYNQ_CONCURRENCY: tasks one process runs at once
	DatabaseMaxConns int // DATABASE_MAX_CONNS: connections of the shared pool
	RedisDB          int // REDIS_DB: Redis has 16 databases unless configured otherwise
	// OUTBOX_MAX_ATTEMPTS: an event refused a thousand times will not go
	// through on the next try.
	OutboxMaxAttempts int
	// KAFKA_<NAME>_MAX_ATTEMPTS: a message that failed a hundred times will
	// not succeed later.
	ConsumerMaxAttempts int
	// asynq.queues: a queue weighs at most a hundred times another.
	QueuePriority int
	// tasks[].max_retry: asynq's own default is 25.
	TaskMaxRetry int
	// KAFKA_<NAME>_BATCH_SIZE: messages per transaction; the event ids go to
	// PostgreSQL as one array.
	ConsumerBatchSize int
}
