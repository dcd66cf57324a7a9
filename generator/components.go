package generator

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/sqlschema"
)

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

// ItemFileName names the consumer's per-instance files.
func (c Consumer) ItemFileName() string { return c.FileName }

// DeadLetterHeader is a header a consumer adds to a message it dead-letters,
// beside the message's own: the service's Go constant, its README and the
// tests all read it from here.
type DeadLetterHeader struct {
	Const string // the constant in internal/consumer: "DeadLetterErrorHeader"
	Key   string // "dlq_error"
	What  string // what its value says
}

// deadLetterHeaders are the headers of design §9: why, how many attempts,
// and where the message came from.
var deadLetterHeaders = []DeadLetterHeader{
	{"DeadLetterErrorHeader", "dlq_error", "why: the handler's last error, or what is wrong with the event id"},
	{"DeadLetterAttemptsHeader", "dlq_attempts", "how many times the handler ran on it; 0 when its event id was unusable"},
	{"SourceTopicHeader", "dlq_source_topic", "the topic it was read from"},
	{"SourcePartitionHeader", "dlq_source_partition", "its partition there"},
	{"SourceOffsetHeader", "dlq_source_offset", "its offset there"},
	{"DeadLetterGroupHeader", "dlq_group", "the consumer group that gave up on it"},
}

// InstanceName is the name the user gave it.
func (c Consumer) InstanceName() string { return c.Name }

// CleanerJob is one named cleaner deleting expired rows in batches.
type CleanerJob struct {
	Name      string // "outbox-dispatched"
	GoName    string // "OutboxDispatched"
	FileName  string // "outbox_dispatched"
	EnvPrefix string // "CLEANER_OUTBOX_DISPATCHED_"
	Table     string
	Column    string // timestamp column compared with now() - Retention
	Key       string // key column of the keyed subquery
	Retention time.Duration
	Interval  time.Duration
	BatchSize int
	QueryName string // sqlc query: "DeleteExpiredOutboxDispatched"
	// TestInsert stores one row with Column set from $1, for the cleaner's
	// test; empty for a table of the user's.
	TestInsert string
	// RetentionNote says how long the table's rows must be kept, for a
	// comment beside the retention; empty when any retention will do.
	RetentionNote string
	Lease         *Lease // fleet scope: one replica deletes; nil for replica scope
}

// ItemFileName names the cleaner's per-instance files.
func (c CleanerJob) ItemFileName() string { return c.FileName }

// InstanceName is the name the user gave it.
func (c CleanerJob) InstanceName() string { return c.Name }

// TaskServer is the asynq server's settings (design §4).
type TaskServer struct {
	Dedicated         bool // its own binary, cmd/<name>-worker, with srv.Run
	Concurrency       int
	TaskCheckInterval time.Duration
	AllowRequeue      bool   // task timeout may exceed ShutdownTimeout: handlers are idempotent
	ExampleType       string // the example task's type (ExampleTaskType)
}

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

// deriveComponents fills the component settings of m from a (defaults
// applied) and validates them.
func (m *Model) deriveComponents(a Answers) error {
	if err := boundedSettings(a); err != nil {
		return err
	}
	if m.Outbox {
		o := a.Outbox
		m.Relay = &Relay{Topic: o.Topic, BatchSize: o.BatchSize, PollInterval: time.Duration(o.PollInterval),
			BatchTimeout: time.Duration(o.BatchTimeout), Ordered: !o.Unordered, Relays: o.Relays,
			MaxAttempts: o.MaxAttempts, BackoffMin: time.Duration(o.BackoffMin), BackoffMax: time.Duration(o.BackoffMax)}
		if err := validateTopic("outbox.topic", o.Topic); err != nil {
			return err
		}
		if err := m.Relay.validateRetries(); err != nil {
			return err
		}
	}
	if m.Asynq {
		s := a.Asynq
		if s.Mode != "inprocess" && s.Mode != "dedicated" {
			return &InputError{Field: "asynq.mode", Msg: "unknown mode " + Quote(s.Mode), Fix: "use inprocess (srv.Start beside HTTP) or dedicated (its own worker binary with srv.Run)"}
		}
		if time.Duration(a.Timeouts.TaskTimeout)%time.Second != 0 {
			return &InputError{Field: "timeouts.task_timeout", Msg: fmt.Sprintf("%v is not a whole number of seconds; asynq keeps whole seconds and turns anything under 1s into its 30-minute default", a.Timeouts.TaskTimeout),
				Fix: "use whole seconds, e.g. " + Seconds(max(time.Second, time.Duration(a.Timeouts.TaskTimeout).Truncate(time.Second)))}
		}
		m.TaskServer = &TaskServer{Dedicated: s.Mode == "dedicated", Concurrency: s.Concurrency, TaskCheckInterval: taskCheckInterval, AllowRequeue: s.AllowRequeue,
			ExampleType: ExampleTaskType}
	}
	if m.Kafka {
		m.DeadLetterHeaders = deadLetterHeaders
	}
	seen := map[string]bool{}
	for i, c := range a.Consumers {
		field := fmt.Sprintf("kafka[%d]", i)
		if err := validateInstanceName(field+".name", c.Name, seen); err != nil {
			return err
		}
		if err := validateConsumer(field, c); err != nil {
			return err
		}
		if err := validateGroup(field+".group", c.Group); err != nil {
			return err
		}
		m.Consumers = append(m.Consumers, Consumer{Name: c.Name, GoName: goName(c.Name), FileName: snake(c.Name),
			EnvPrefix: envPrefix("KAFKA", c.Name), Topic: c.Topic, Group: c.Group, HandlerTimeout: time.Duration(c.HandlerTimeout),
			CommitTimeout: time.Duration(c.CommitTimeout), MaxAttempts: c.MaxAttempts, DeadLetterTopic: c.DeadLetterTopic,
			BatchSize: c.BatchSize})
	}
	return m.deriveCleaners(a.Cleaners)
}

// deriveCleaners checks each cleaner against the service's schema (gsgen's
// migrations and the user's, read by PostgreSQL's parser): its table must
// exist, its column be a timestamp, its key be columns of the table. A
// column no index begins with is allowed, with a warning.
func (m *Model) deriveCleaners(cleaners []CleanerAnswers) error {
	if len(cleaners) == 0 {
		return nil
	}
	schema, err := m.schema()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, c := range cleaners {
		field := fmt.Sprintf("cleaners[%d]", i)
		bad := func(key, msg, fix string) error { return &InputError{Field: field + "." + key, Msg: msg, Fix: fix} }
		if err := validateInstanceName(field+".name", c.Name, seen); err != nil {
			return err
		}
		for _, id := range []struct{ key, v string }{{"table", c.Table}, {"column", c.Column}} {
			if !identRE.MatchString(id.v) {
				return bad(id.key, Quote(id.v)+" is not a plain SQL identifier", "use lower-case letters, digits and '_', starting with a letter")
			}
		}
		t := schema[c.Table]
		if t == nil {
			return m.missingTable(field, c.Table)
		}
		col, ok := t.Column(c.Column)
		switch {
		case !ok:
			return bad("column", fmt.Sprintf("table %s (%s) has no column %s", c.Table, t.From, Quote(c.Column)), "name one of its timestamp columns: "+problem.ListShort(t.TimestampColumns(), 8))
		case !col.IsTimestamp():
			return bad("column", fmt.Sprintf("%s.%s is %s, not a timestamp: the cleaner deletes rows whose %s is older than the retention", c.Table, c.Column, col.TypeName(), c.Column),
				"name a timestamp or timestamptz column: "+problem.ListShort(t.TimestampColumns(), 8))
		}
		keys := t.PrimaryKey
		switch {
		case c.Key != "":
			if !keyRE.MatchString(c.Key) {
				return bad("key", Quote(c.Key)+" is not a column name or a comma-separated list of them", "e.g. id, or consumer, event_id")
			}
			keys = strings.Split(strings.ReplaceAll(c.Key, " ", ""), ",")
		case len(keys) == 0:
			if _, hasID := t.Column("id"); !hasID {
				return bad("key", fmt.Sprintf("table %s has no primary key, and no id column", c.Table), "give the column(s) that pick one row: --key, or key: in gsgen.yaml")
			}
			keys = []string{"id"}
		}
		for _, k := range keys {
			if _, ok := t.Column(k); !ok {
				return bad("key", fmt.Sprintf("table %s has no column %s", c.Table, Quote(k)), "give the column(s) of its primary key or of a unique index")
			}
		}
		if c.Key != "" && !picksOneRow(t, keys) {
			whole := t.PrimaryKey
			if len(whole) == 0 {
				whole = t.Unique[0]
			}
			return bad("key", fmt.Sprintf("%s does not pick one row of %s, whose key is (%s): the keyed DELETE would also remove the rows that share it, still inside their retention",
				Quote(c.Key), c.Table, strings.Join(whole, ", ")),
				fmt.Sprintf("give every column of its primary key or of a unique index (--key %s), or leave the key out: the primary key is the default", strings.Join(whole, ",")))
		}
		if !t.Covers(c.Column) {
			m.warnings = append(m.warnings, fmt.Sprintf("%s.column: no index of %s begins with %s, so each run of cleaner %s reads the whole table; add one in a migration: CREATE INDEX ON %s (%s);",
				field, c.Table, c.Column, c.Name, c.Table, c.Column))
		}
		lease, err := scopeOf(field, c.Scope, c.LeaseTTL, "cleaner:"+c.Name)
		if err != nil {
			return err
		}
		m.Cleaners = append(m.Cleaners, CleanerJob{Name: c.Name, GoName: goName(c.Name), FileName: snake(c.Name),
			EnvPrefix: envPrefix("CLEANER", c.Name), Table: c.Table, Column: c.Column, Key: strings.Join(keys, ", "), RetentionNote: retentionNote(c.Table),
			Retention: time.Duration(c.Retention), Interval: time.Duration(c.Interval), BatchSize: c.BatchSize,
			QueryName: "DeleteExpired" + goName(c.Name), TestInsert: testInsert(c.Table, c.Column), Lease: lease})
	}
	return nil
}

// picksOneRow reports whether keys hold every column of the table's primary
// key or of one of its unique constraints, so that a keyed DELETE of one key
// removes one row. A table with neither cannot be told: its key is taken.
func picksOneRow(t *sqlschema.Table, keys []string) bool {
	sets := append([][]string{t.PrimaryKey}, t.Unique...)
	if len(t.PrimaryKey) == 0 {
		sets = t.Unique
	}
	if len(sets) == 0 {
		return true
	}
	return slices.ContainsFunc(sets, func(set []string) bool {
		return len(set) > 0 && !slices.Contains(set, "") && !slices.ContainsFunc(set, func(col string) bool { return !slices.Contains(keys, col) })
	})
}

// validateRetries checks the relay's failure settings against each other
// (boundedSettings has checked each against its limit).
func (r *Relay) validateRetries() error {
	switch {
	case r.BackoffMin > r.BackoffMax:
		return &InputError{Field: "outbox.backoff_min", Msg: fmt.Sprintf("%v is longer than outbox.backoff_max %v", Seconds(r.BackoffMin), Seconds(r.BackoffMax)),
			Fix: "the first wait doubles up to backoff_max: use at most " + Seconds(r.BackoffMax) + ", or raise backoff_max"}
	}
	return nil
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

// missingTable explains a cleaner's table the schema does not have: one of
// gsgen's that comes with a component the service lacks, or none at all.
func (m *Model) missingTable(field, table string) error {
	for _, c := range AllComponents {
		if s, err := ownSchema([]Component{c}); err == nil && s[table] != nil {
			return &InputError{Field: field + ".table", Msg: fmt.Sprintf("table %s comes with the %s component, which the service does not have", table, c),
				Fix: fmt.Sprintf("add %s, or clean a table of the service's own migrations", c)}
		}
	}
	return &InputError{Field: field + ".table", Msg: "table " + Quote(table) + " is not defined by this service's migrations",
		Fix: fmt.Sprintf("add a migration that creates it, e.g. db/migrations/0100_%s.sql, then re-run; gsgen's own tables are outbox_event (with outbox) and processed_event (with kafka)", table)}
}

// retentionNote is what a cleaner of table must respect, if anything.
func retentionNote(table string) string {
	t, _ := gsgenTableNamed(table)
	return t.note
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

// validateGroup holds a consumer group id to Kafka's topic alphabet: Kafka
// itself takes any string, but the id lands in an environment variable, a
// ConfigMap and the README, where a newline or a quote would break them.
func validateGroup(field, group string) error {
	if !topicRE.MatchString(group) || len(group) > 249 {
		return &InputError{Field: field, Msg: Quote(group) + " is not a consumer group id gsgen accepts", Fix: "use letters, digits, '.', '_' and '-' (at most 249), e.g. orders-payments"}
	}
	return nil
}

// validateConsumer checks one consumer's answers beyond its name.
func validateConsumer(field string, c ConsumerAnswers) error {
	if err := validateTopic(field+".topic", c.Topic); err != nil {
		return err
	}
	if err := validateTopic(field+".dead_letter_topic", c.DeadLetterTopic); err != nil {
		return err
	}
	if c.DeadLetterTopic == c.Topic {
		return &InputError{Field: field + ".dead_letter_topic", Msg: fmt.Sprintf("%q is the topic the consumer reads: a failed message would come back to it forever", c.DeadLetterTopic),
			Fix: "use another topic, e.g. " + c.Topic + DeadLetterSuffix}
	}
	// Its timeouts and max_attempts are held to their limits by boundedSettings.
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
