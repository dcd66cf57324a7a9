package generator

import (
	"fmt"
	"time"
)

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

// limits bound the counts; each fits an int32, which pgx and the queries use.
var limits = Limits{OutboxBatchSize: 10000, OutboxRelays: OutboxSlots, CleanerBatchSize: 10000, AsynqConcurrency: 1000, DatabaseMaxConns: 1000, RedisDB: 15,
	OutboxMaxAttempts: 1000, ConsumerMaxAttempts: 100, QueuePriority: 100, TaskMaxRetry: 100,
	ConsumerBatchSize: 10000}

// maxRetention bounds a cleaner's retention and interval: beyond it the
// cutoff time.Now().Add(-retention) stops meaning anything.
const maxRetention = 10 * 365 * 24 * time.Hour

func count(field string, v, max int) setting { return setting{field, int64(v), int64(max), ""} }

func duration(field string, v Duration, max time.Duration) setting {
	return setting{field, int64(v), int64(max), "duration"}
}

// setting is one numeric component answer and its bounds.
type setting struct {
	field string
	v     int64
	max   int64
	unit  string // "" for a count, "duration" for a time.Duration
}

// boundedSettings refuses a component answer below zero or above its limit.
// Zero means "not answered" and takes the default, so flags, files and
// prompts refuse zero themselves.
func boundedSettings(a Answers) error {
	var settings []setting
	for _, k := range Kinds {
		if k.settings != nil {
			settings = append(settings, k.settings(a)...)
		}
	}
	for _, s := range settings {
		show := func(v int64) string {
			if s.unit == "duration" {
				return Seconds(time.Duration(v))
			}
			return fmt.Sprint(v)
		}
		switch {
		case s.v < 0:
			return &InputError{Field: s.field, Msg: "must not be negative", Fix: "give a positive value, or leave it out to take the default"}
		case s.v > s.max:
			return &InputError{Field: s.field, Msg: fmt.Sprintf("%s is more than %s, the most the service accepts", show(s.v), show(s.max)),
				Fix: fmt.Sprintf("give at most %s", show(s.max))}
		}
	}
	return nil
}
