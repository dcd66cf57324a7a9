package generator

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/sqlschema"
)

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

var (
	defaultPollInterval   = 500 * time.Millisecond
	defaultBatchTimeout   = 10 * time.Second
	defaultBackoffMin     = time.Second
	defaultBackoffMax     = time.Minute
	defaultHandlerTimeout = 10 * time.Second
	defaultRetention      = 7 * 24 * time.Hour

	// processedEventRetention is how long processed_event remembers an event
	// a consumer handled or dead-lettered: twice the 7 days for which Kafka
	// keeps, by default, a topic's messages (retention.ms) and a group's
	// committed offsets (offsets.retention.minutes). A message can outlive
	// retention.ms, since Kafka deletes whole segments, and a group whose
	// offsets expired (or a new one) starts again from the oldest message
	// left: each such redelivery must still find its row, or it is handled
	// again.
	processedEventRetention = 14 * 24 * time.Hour
	defaultCleanInterval    = time.Minute

	// defaultCommitTimeout bounds one offset commit (kafka-go tries it 3
	// times) or a dead-letter write and its commit: 10s handler + 5s commit
	// fit the default 20s worker drain.
	defaultCommitTimeout = 5 * time.Second

	// taskCheckInterval is how often an idle asynq processor looks for work.
	// asynq's default (1 s) makes an idle Stop()+Shutdown() cost up to ~1.3 s
	// on every deploy; 100 ms brings it to ~60 ms (measured, facts.md).
	taskCheckInterval = 100 * time.Millisecond
)

var (
	identRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	keyRE   = regexp.MustCompile(`^[a-z][a-z0-9_]*(, ?[a-z][a-z0-9_]*)*$`)
)

// goName turns "order-events" into "OrderEvents".
func goName(name string) string {
	var b strings.Builder
	for p := range strings.SplitSeq(name, "-") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

func snake(name string) string { return strings.ReplaceAll(name, "-", "_") }

func envPrefix(kind, name string) string {
	return kind + "_" + strings.ToUpper(snake(name)) + "_"
}

// gsgenTable is a table gsgen's own migrations define.
type gsgenTable struct {
	name    string
	from    Component // the component whose migration creates it
	key     string    // the key column(s) a cleaner's keyed subquery uses
	cleaner string    // the name of its default cleaner
	expires string    // the timestamp column its default cleaner compares
	note    string    // how long its rows must be kept, if that matters
	// retention is the default of its cleaners; zero takes defaultRetention.
	retention time.Duration
	// testColumns and testValues fill the table's required columns in a
	// cleaner's test; gen_random_uuid keeps the rows' keys apart.
	testColumns, testValues string
}

// gsgenTables lists gsgen's own tables in the order of their migrations.
var gsgenTables = []gsgenTable{
	{name: "outbox_event", from: Outbox, key: "id", cleaner: "outbox-dispatched", expires: "dispatched_at",
		testColumns: "aggregate_id, topic, payload", testValues: "'test', 'test', ''::bytea"},
	// Event ids repeat across consumers, so only the whole primary key picks one row.
	{name: "processed_event", from: Kafka, key: "consumer, event_id", cleaner: "processed-events", expires: "processed_at",
		note:        "keep rows longer than Kafka keeps a topic's messages and a group's offsets (7 days each by default), or an event read again is handled again",
		retention:   processedEventRetention,
		testColumns: "consumer, event_id", testValues: "'test', gen_random_uuid()::text"},
}

func gsgenTableNamed(table string) (gsgenTable, bool) {
	i := slices.IndexFunc(gsgenTables, func(t gsgenTable) bool { return t.name == table })
	if i < 0 {
		return gsgenTable{}, false
	}
	return gsgenTables[i], true
}

// testInsert is the INSERT a cleaner's test stores a row with, its
// timestamp column set from $1: empty for a table of the user's, whose
// required columns gsgen does not know.
func testInsert(table, column string) string {
	t, ok := gsgenTableNamed(table)
	if !ok {
		return ""
	}
	return fmt.Sprintf("INSERT INTO %s (%s, %s) VALUES (%s, $1)", table, t.testColumns, column, t.testValues)
}

// schema reads the tables of the service: gsgen's own migrations, for the
// components it has, then the user's.
func (m *Model) schema() (sqlschema.Schema, error) {
	if len(m.userSQL) == 0 {
		return ownSchema(m.Components)
	}
	own, err := gsgenMigrations()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, c := range m.Components {
		maps.Copy(files, own[c])
	}
	for p, b := range m.userSQL {
		if _, clash := files[p]; !clash {
			files[p] = b
		}
	}
	return sqlschema.ReadSchema(files)
}

// NewCleaner is a cleaner a service with answers a can start from, before
// its table is chosen: the last of gsgen's tables the service has
// (outbox_event when it has none), with the timestamp column gsgen's
// cleaner compares.
func NewCleaner(a Answers, name string) CleanerAnswers {
	t := gsgenTables[0]
	for _, gt := range slices.Backward(gsgenTables) {
		if slices.Contains(a.Components, string(gt.from)) {
			t = gt
			break
		}
	}
	return CleanerAnswers{Name: name, Table: t.name, Column: t.expires}
}

// TimestampColumn is the column gsgen's cleaner of table compares, or
// column for a table that is not gsgen's.
func TimestampColumn(table, column string) string {
	if t, ok := gsgenTableNamed(table); ok {
		return t.expires
	}
	return column
}

// defaultCleaner is the cleaner gsgen adds for one of its tables.
func (t gsgenTable) defaultCleaner() CleanerAnswers {
	return CleanerAnswers{Name: t.cleaner, Table: t.name, Column: t.expires}
}

// defaultRetentionOf is the retention a cleaner of table gets when the
// answers give none: the table's own if it is one of gsgen's with one.
func defaultRetentionOf(table string) time.Duration {
	if t, ok := gsgenTableNamed(table); ok && t.retention != 0 {
		return t.retention
	}
	return defaultRetention
}

// defaultCleaners is a cleaner for each of gsgen's own tables that the
// components bring: dispatched outbox rows, processed events.
func defaultCleaners(has func(Component) bool) []CleanerAnswers {
	var out []CleanerAnswers
	for _, t := range gsgenTables {
		if has(t.from) {
			out = append(out, t.defaultCleaner())
		}
	}
	return out
}

// topicRE is Kafka's topic alphabet. The length (at most 249) is checked
// apart: a {1,249} repeat compiles to thousands of states on every start.
var topicRE = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

func validateTopic(field, topic string) error {
	if !topicRE.MatchString(topic) || len(topic) > 249 || topic == "." || topic == ".." {
		return &InputError{Field: field, Msg: Quote(topic) + " is not a valid Kafka topic name", Fix: "use letters, digits, '.', '_' and '-' (at most 249)"}
	}
	return nil
}

// withComponent returns list with c added once, in canonical order.
func withComponent(list []string, c Component) []string {
	if slices.Contains(list, string(c)) {
		return list
	}
	list = append(slices.Clone(list), string(c))
	slices.SortFunc(list, func(x, y string) int {
		return slices.Index(AllComponents, Component(x)) - slices.Index(AllComponents, Component(y))
	})
	return list
}

// maxInstanceName is the longest name of a consumer, cleaner or worker.
const maxInstanceName = 40

func validateInstanceName(field, name string, seen map[string]bool) error {
	switch {
	case len(name) > maxInstanceName:
		return &InputError{Field: field, Msg: fmt.Sprintf("%s is %d characters long", Quote(name), len(name)),
			Fix: fmt.Sprintf("use a name of at most %d characters (it names files, Go identifiers and environment variables)", maxInstanceName)}
	case !nameRE.MatchString(name):
		return &InputError{Field: field, Msg: Quote(name) + " is not a valid name", Fix: fmt.Sprintf("use lower-case letters, digits and '-', starting with a letter, at most %d characters, e.g. order-events", maxInstanceName)}
	}
	if seen[name] {
		return &InputError{Field: field, Msg: Quote(name) + " is used twice", Fix: "give each instance its own name"}
	}
	seen[name] = true
	return nil
}

// componentDefaults fills the component answers that were not given.
func (a *Answers) componentDefaults() {
	has := func(c Component) bool {
		for _, n := range a.Components {
			if Component(n) == c {
				return true
			}
		}
		return false
	}
	if has(Outbox) {
		o := &a.Outbox
		setDefault(&o.Topic, DefaultOutboxTopic)
		setDefault(&o.BatchSize, DefaultOutboxBatchSize)
		setDefault(&o.Relays, DefaultOutboxRelays)
		setDefault(&o.PollInterval, Duration(defaultPollInterval))
		setDefault(&o.BatchTimeout, Duration(defaultBatchTimeout))
		setDefault(&o.MaxAttempts, DefaultOutboxMaxAttempts)
		setDefault(&o.BackoffMin, Duration(defaultBackoffMin))
		setDefault(&o.BackoffMax, Duration(defaultBackoffMax))
	}
	if has(Asynq) {
		mode := DefaultAsynqMode
		if !has(HTTP) {
			mode = "dedicated"
		}
		setDefault(&a.Asynq.Mode, mode)
		setDefault(&a.Asynq.Concurrency, DefaultConcurrency)
	}
	if has(Kafka) && len(a.Consumers) == 0 {
		topic := DefaultOutboxTopic
		if a.Outbox.Topic != "" {
			topic = a.Outbox.Topic
		}
		a.Consumers = []ConsumerAnswers{{Name: "events", Topic: topic}}
	}
	for i := range a.Consumers {
		c := &a.Consumers[i]
		setDefault(&c.Topic, c.Name)
		setDefault(&c.Group, a.Name+"-"+c.Name)
		setDefault(&c.HandlerTimeout, Duration(defaultHandlerTimeout))
		setDefault(&c.CommitTimeout, Duration(defaultCommitTimeout))
		setDefault(&c.MaxAttempts, DefaultMaxAttempts)
		setDefault(&c.DeadLetterTopic, c.Topic+DeadLetterSuffix)
		setDefault(&c.BatchSize, DefaultConsumerBatch)
	}
	// Kafka brings processed_event, one row per event handled, which nothing
	// else prunes: kafka implies the cleaner component and its default
	// cleaners, unless the answers list cleaners of their own.
	if has(Kafka) && len(a.Cleaners) == 0 {
		a.Components = withComponent(a.Components, Cleaner)
	}
	if has(Cleaner) && len(a.Cleaners) == 0 {
		a.Cleaners = defaultCleaners(has)
	}
	for i := range a.Cleaners {
		c := &a.Cleaners[i]
		setDefault(&c.Retention, Duration(defaultRetentionOf(c.Table)))
		setDefault(&c.Interval, Duration(defaultCleanInterval))
		setDefault(&c.BatchSize, DefaultCleanerBatch)
		setLeaseDefaults(&c.Scope, &c.LeaseTTL)
	}
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// CleanerTarget is what a new cleaner of the service m is offered: the first
// table of its schema (gsgen's, then the user's in migration order) that has
// a timestamp column and that none of m's cleaners cleans yet, with the
// column a cleaner of it compares (TimestampColumnOf). ok is false when
// every such table has a cleaner.
func (m *Model) CleanerTarget() (table, column string, ok bool) {
	schema, err := m.schema()
	if err != nil {
		return "", "", false
	}
	var order []*sqlschema.Table
	for _, gt := range gsgenTables {
		if t := schema[gt.name]; t != nil {
			order = append(order, t)
		}
	}
	var users []*sqlschema.Table
	for name, t := range schema {
		if _, own := gsgenTableNamed(name); !own {
			users = append(users, t)
		}
	}
	slices.SortFunc(users, func(a, b *sqlschema.Table) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.Name, b.Name))
	})
	for _, t := range append(order, users...) {
		cleaned := slices.ContainsFunc(m.Cleaners, func(c CleanerJob) bool { return c.Table == t.Name })
		if col := m.TimestampColumnOf(t.Name); col != "" && !cleaned {
			return t.Name, col, true
		}
	}
	return "", "", false
}

// TimestampColumnOf is the column a cleaner of table compares: the one
// gsgen's own cleaner of it uses, else the table's first timestamp column;
// "" when the service has no such table, or it has no timestamp column.
func (m *Model) TimestampColumnOf(table string) string {
	if t, ok := gsgenTableNamed(table); ok {
		return t.expires
	}
	schema, err := m.schema()
	if err != nil || schema[table] == nil {
		return ""
	}
	for _, c := range schema[table].Columns {
		if c.IsTimestamp() {
			return c.Name
		}
	}
	return ""
}
