package model

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// The outbox kind: a relay publishing committed outbox rows from
// PostgreSQL to Kafka, a Run loop drained with the workers.

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

var outboxKind = &Kind{Name: Outbox, Chosen: true, What: "a transactional outbox relay: PostgreSQL rows to Kafka", Dirs: []string{"outbox"},
	ask:    outboxAsk,
	Menu:   "outbox table and a relay that publishes committed rows to Kafka (Postgres, kafka-go)",
	Needs:  []Need{NeedsPostgres, NeedsKafka},
	on:     func(m *Model) bool { return m.Outbox },
	derive: outboxDerive, bounds: outboxBounds, env: outboxEnv, settings: outboxSettings, panels: outboxPanels, alerts: outboxAlerts,
	flags: outboxFlags, pool: outboxPool, topics: func(m *Model) []string { return []string{m.Relay.Topic} },
	defaults: outboxDefaults, forget: func(a *answers.Answers) error { a.Outbox = answers.OutboxAnswers{}; return nil }}

// outboxDefaults fills the relay's answers not given.
func outboxDefaults(a *answers.Answers) {
	o := &a.Outbox
	answers.SetDefault(&o.Topic, answers.DefaultOutboxTopic)
	answers.SetDefault(&o.BatchSize, answers.DefaultOutboxBatchSize)
	answers.SetDefault(&o.Relays, answers.DefaultOutboxRelays)
	answers.SetDefault(&o.PollInterval, answers.Duration(answers.DefaultPollInterval))
	answers.SetDefault(&o.BatchTimeout, answers.Duration(answers.DefaultBatchTimeout))
	answers.SetDefault(&o.MaxAttempts, answers.DefaultOutboxMaxAttempts)
	answers.SetDefault(&o.BackoffMin, answers.Duration(answers.DefaultBackoffMin))
	answers.SetDefault(&o.BackoffMax, answers.Duration(answers.DefaultBackoffMax))
}

// outboxPool is the relays' connections: not in Loops, since the service
// counts OUTBOX_RELAYS itself.
func outboxPool(m *Model) []poolShare {
	return []poolShare{{PoolPart: PoolPart{What: "outbox relays", Conns: m.Relay.Relays}}}
}

func outboxBounds(m *Model) []Bound {
	return []Bound{{Name: "outbox batch timeout", Field: "outbox.batch_timeout", D: m.Relay.BatchTimeout,
		LimitName: "worker drain", LimitKey: "worker_drain", Limit: m.Timeouts.WorkerDrain,
		Why: "a batch in flight at SIGTERM could not finish before the pool closes"}}
}

func outboxEnv(m *Model) []EnvVar {
	r := m.Relay
	return []EnvVar{
		countVar("OUTBOX_BATCH_SIZE", r.BatchSize, "outbox.batch_size"),
		durationVar("OUTBOX_POLL_INTERVAL", r.PollInterval, "outbox.poll_interval"),
		durationVar("OUTBOX_BATCH_TIMEOUT", r.BatchTimeout, "outbox.batch_timeout"),
		boolVar("OUTBOX_ORDERED", r.Ordered, "not outbox.unordered"),
		countVar("OUTBOX_RELAYS", r.Relays, "outbox.relays"),
		countVar("OUTBOX_MAX_ATTEMPTS", r.MaxAttempts, "outbox.max_attempts"),
		durationVar("OUTBOX_BACKOFF_MIN", r.BackoffMin, "outbox.backoff_min"),
		durationVar("OUTBOX_BACKOFF_MAX", r.BackoffMax, "outbox.backoff_max"),
		countVar("OUTBOX_MAX_MESSAGE_BYTES", deployOutboxMaxMessageBytes, "not an answer: at most the topics' max.message.bytes"),
	}
}

func outboxSettings(a answers.Answers) []setting {
	o := a.Outbox
	return []setting{
		count("outbox.batch_size", o.BatchSize, limits.OutboxBatchSize),
		count("outbox.relays", o.Relays, limits.OutboxRelays),
		duration("outbox.poll_interval", o.PollInterval, maxTimeout),
		duration("outbox.batch_timeout", o.BatchTimeout, maxTimeout),
		count("outbox.max_attempts", o.MaxAttempts, limits.OutboxMaxAttempts),
		duration("outbox.backoff_min", o.BackoffMin, maxTimeout),
		duration("outbox.backoff_max", o.BackoffMax, maxTimeout),
	}
}

func outboxPanels(m *Model) []Panel {
	return []Panel{
		{"Outbox events published per second", "short", [][2]string{
			{`sum(rate(NS_outbox_events_published_total[5m]))`, "published"},
			{`sum(rate(NS_outbox_events_refused_total[5m]))`, "refused by Kafka"}}},
		// The backlog is the table's, the same in every pod: max, not sum.
		{"Outbox backlog", "short", [][2]string{
			{`max(NS_outbox_pending_events)`, "pending"},
			{`max(NS_outbox_parked_events)`, "parked"}}},
		{"Oldest pending outbox event", "s", [][2]string{
			{`max(NS_outbox_oldest_pending_age_seconds)`, "age"}}},
		{"Outbox looks failed as a whole (Kafka or PostgreSQL down)", "short", [][2]string{
			{`sum(increase(NS_outbox_batch_failures_total[5m]))`, "failed looks"}}},
		{"Outbox batch time, 99th percentile", "s", [][2]string{
			{`histogram_quantile(0.99, sum by (le) (rate(NS_outbox_batch_duration_seconds_bucket[5m])))`, "p99"}}},
	}
}

func outboxAlerts(m *Model) []Alert {
	return []Alert{
		{"OutboxStalled", `max(NS_outbox_oldest_pending_age_seconds) > 300`, "5m", "critical",
			"An outbox event of NAME has waited over 5 minutes: the relay is not publishing (Kafka down, a relay stuck, events held behind a parked one)."},
		{"OutboxParkedEvents", `max(NS_outbox_parked_events) > 0`, "1m", "warning",
			"NAME has parked outbox events: Kafka refused them for good. Their aggregates wait until they are released (README.md, When Kafka refuses an event)."},
	}
}

// outboxFlags are the outbox kind's answers as flags of gsgen new and add.
var outboxFlags = []KindFlag{
	{Name: "outbox-topic", Usage: "outbox: topic of the example event", Default: answers.DefaultOutboxTopic, Field: "outbox.topic",
		set: func(a *answers.Answers, s string) error { a.Outbox.Topic = s; return nil },
		get: func(a answers.Answers) string { return a.Outbox.Topic }},
	{Name: "outbox-batch-size", Usage: "outbox: rows published per batch", Default: strconv.Itoa(answers.DefaultOutboxBatchSize), Type: "int", Field: "outbox.batch_size",
		set: func(a *answers.Answers, s string) error {
			return setCount(&a.Outbox.BatchSize, "--outbox-batch-size", s)
		},
		get: func(a answers.Answers) string {
			return unlessZero(a.Outbox.BatchSize, strconv.Itoa(a.Outbox.BatchSize))
		}},
	{Name: "outbox-poll-interval", Usage: "outbox: pause between batches when there is no backlog", Default: answers.DefaultPollInterval.String(), Type: "duration", Field: "outbox.poll_interval",
		set: func(a *answers.Answers, s string) error {
			return setPositive(&a.Outbox.PollInterval, "--outbox-poll-interval", s)
		},
		get: func(a answers.Answers) string {
			return unlessZero(a.Outbox.PollInterval, a.Outbox.PollInterval.String())
		}},
	{Name: "outbox-batch-timeout", Usage: "outbox: deadline of one batch (lock, publish, mark, commit); must fit in --worker-drain", Default: answers.DefaultBatchTimeout.String(), Type: "duration", Field: "outbox.batch_timeout",
		set: func(a *answers.Answers, s string) error {
			return setPositive(&a.Outbox.BatchTimeout, "--outbox-batch-timeout", s)
		},
		get: func(a answers.Answers) string {
			return unlessZero(a.Outbox.BatchTimeout, a.Outbox.BatchTimeout.String())
		}},
	{Name: "outbox-unordered", Usage: "outbox: drop the advisory lock (faster; no per-aggregate order across replicas)", Default: "false", Bool: true, Type: "bool", Field: "outbox.unordered",
		set: func(a *answers.Answers, s string) error { return setBool(&a.Outbox.Unordered, "--outbox-unordered", s) },
		get: func(a answers.Answers) string { return strconv.FormatBool(a.Outbox.Unordered) }},
}

// outboxDerive validates the relay's answers and derives its settings.
func outboxDerive(m *Model, a answers.Answers) error {
	o := a.Outbox
	m.Relay = &Relay{Topic: o.Topic, BatchSize: o.BatchSize, PollInterval: time.Duration(o.PollInterval),
		BatchTimeout: time.Duration(o.BatchTimeout), Ordered: !o.Unordered, Relays: o.Relays,
		MaxAttempts: o.MaxAttempts, BackoffMin: time.Duration(o.BackoffMin), BackoffMax: time.Duration(o.BackoffMax)}
	if err := validateTopic("outbox.topic", o.Topic); err != nil {
		return err
	}
	return validateRetries(m.Relay)
}

// validateRetries checks the relay's failure settings against each other
// (boundedSettings has checked each against its limit).
func validateRetries(r *Relay) error {
	switch {
	case r.BackoffMin > r.BackoffMax:
		return &problem.InputError{Field: "outbox.backoff_min", Msg: fmt.Sprintf("%v is longer than outbox.backoff_max %v", problem.Seconds(r.BackoffMin), problem.Seconds(r.BackoffMax)),
			Fix: "the first wait doubles up to backoff_max: use at most " + problem.Seconds(r.BackoffMax) + ", or raise backoff_max"}
	}
	return nil
}

// outboxAsk asks gsgen new for the relay's topic, batch size and poll
// interval, those the flags left unanswered.
func outboxAsk(iv Interview, adding bool) error {
	if adding {
		return nil
	}
	o, def := iv.Answers().Outbox, iv.Defaults().Outbox
	qs := []struct {
		unanswered bool
		q          Question
	}{
		{o.Topic == "", Question{Field: "outbox.topic", Title: "Outbox topic", Def: def.Topic,
			Help: "the Kafka topic the relay publishes the example event to",
			Set:  func(a *answers.Answers, s string) error { a.Outbox.Topic = s; return nil }}},
		{o.BatchSize == 0, Question{Field: "outbox.batch_size", Title: "Outbox batch size", Def: strconv.Itoa(def.BatchSize),
			Help: "rows locked, published and marked per batch; small batches fit the drain budget",
			Set:  func(a *answers.Answers, s string) error { return answers.ParseCount(s, &a.Outbox.BatchSize) }}},
		{o.PollInterval == 0, Question{Field: "outbox.poll_interval", Title: "Outbox poll interval", Def: def.PollInterval.String(),
			Help: "pause between batches when there is no backlog",
			Set:  func(a *answers.Answers, s string) error { return answers.ParseDuration(s, &a.Outbox.PollInterval) }}},
	}
	for _, q := range qs {
		if q.unanswered {
			if err := iv.Text(q.q); err != nil {
				return err
			}
		}
	}
	return nil
}
