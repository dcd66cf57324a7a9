package answers

import "time"

// DefaultOutboxRelays is how many relay loops a replica runs: two keep
// a second batch publishing while the first commits (docs/benchmarks.md).
const DefaultOutboxRelays = 2

// Defaults of the component answers.
const (
	DefaultOutboxTopic     = "events"
	DefaultOutboxBatchSize = 50
	DefaultAsynqMode       = "inprocess"
	DefaultConcurrency     = 10
	DefaultCleanerBatch    = 500
	// DefaultMaxAttempts is how many times a consumer runs its handler on a
	// message before dead-lettering it: with the default backoff the retries
	// take about 7.5s, long enough for a blip (a deadlock, a restarting
	// dependency), short enough that one bad message holds up its replica's
	// partitions for seconds, not for good.
	DefaultMaxAttempts = 5

	// DefaultConsumerBatch is how many messages a consumer handles in one
	// transaction and commits at once: one durable commit per message held
	// the consumer to about 6% of what the reader fetches (docs/benchmarks.md).
	DefaultConsumerBatch = 100

	// DeadLetterSuffix names a consumer's dead-letter topic after the topic
	// it reads: events -> events.dlq.
	DeadLetterSuffix = ".dlq"
)

// DefaultOutboxMaxAttempts is how often the relay tries an event Kafka
// refuses before parking it: with the default backoff, over about four
// minutes (waits of 1, 2, 4 ... 32s, then 60s three times).
const DefaultOutboxMaxAttempts = 10

// Defaults of the component answers' durations.
var (
	DefaultPollInterval   = 500 * time.Millisecond
	DefaultBatchTimeout   = 10 * time.Second
	DefaultBackoffMin     = time.Second
	DefaultBackoffMax     = time.Minute
	DefaultHandlerTimeout = 10 * time.Second
	DefaultRetention      = 7 * 24 * time.Hour

	// ProcessedEventRetention is how long processed_event remembers an event
	// a consumer handled or dead-lettered: twice the 7 days for which Kafka
	// keeps, by default, a topic's messages (retention.ms) and a group's
	// committed offsets (offsets.retention.minutes). A message can outlive
	// retention.ms, since Kafka deletes whole segments, and a group whose
	// offsets expired (or a new one) starts again from the oldest message
	// left: each such redelivery must still find its row, or it is handled
	// again.
	ProcessedEventRetention = 14 * 24 * time.Hour

	// DefaultCommitTimeout bounds one offset commit (kafka-go tries it 3
	// times) or a dead-letter write and its commit: 10s handler + 5s commit
	// fit the default 20s worker drain.
	DefaultCommitTimeout = 5 * time.Second
)

// Defaults of workers and tasks.
const (
	DefaultTaskMaxRetry = 5
	DefaultQueue        = "default"
)

// Scope says where a periodic part (a worker, a cleaner) runs its ticks.
const (
	// ScopeFleet runs each tick in exactly one replica: the one holding the
	// part's lease in PostgreSQL (table gsgen_lease).
	ScopeFleet = "fleet"
	// ScopeReplica runs every tick in every replica: local caches, per-pod work.
	ScopeReplica = "replica"
)

// DefaultLeaseTTL is how long a fleet part's lease outlives its holder's
// last renewal: how long a SIGKILLed holder keeps the others waiting. A
// holder renews every third of it and gives its run up at three quarters
// of it when it cannot (the database gone), so the next holder, which can
// take the lease only once it has expired, never runs beside it.
const DefaultLeaseTTL = 15 * time.Second

// Retries is a TaskAnswers.MaxRetry of n.
func Retries(n int) *int { return &n }

// MaxRetryOrDefault is MaxRetry, or the default when it is not given.
func (t TaskAnswers) MaxRetryOrDefault() int {
	if t.MaxRetry == nil {
		return DefaultTaskMaxRetry
	}
	return *t.MaxRetry
}

// SetDefault sets *v to def when *v is the zero value: not answered.
func SetDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}
