package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// The numbers of the contract (design.md): the defaults, bounds and shares
// that gsgen's checks, the generated code and the docs must agree on, in one
// table. A number with a home in gsgen's Go code (DefaultTimeouts,
// TaskMargin, DefaultLeaseTTL ...) is read from there; one that only the
// generated service uses (the outbox's slots, the consumer's rebalance
// timeout, the shares of CLOSE_TIMEOUT) is defined here. Templates read the
// table through Model.Contract; TestContractIsWhatTheDocsSay holds README.md
// and docs/*.md to it, so a doc cannot state a number the code does not have.

// OutboxSlots is how many slots the outbox is split into: a hash of the
// aggregate id modulo OutboxSlots. Relays that count slots differently put
// one aggregate in two slots, so it changes only while no relay runs; it is
// also the most relay loops a replica can use.
const OutboxSlots = 16

// ConsumerTransactions is how many transactions of one consumer run at
// once, each on a pooled connection: its share of DATABASE_MAX_CONNS.
const ConsumerTransactions = 3

// RebalanceTimeout is how long a consumer group's rebalance waits for every
// member to rejoin; it bounds how long a stopping consumer holds up the rest.
const RebalanceTimeout = 30 * time.Second

// The consumer's backoff between attempts at a message (and between failed
// fetches and dead-letter writes): it doubles from the least to the most.
const (
	ConsumerBackoffMin = 500 * time.Millisecond
	ConsumerBackoffMax = 30 * time.Second
)

// Shares of a duration the generated code cuts in parts.
var (
	// ReaderCloseShare of CLOSE_TIMEOUT is how long a consumer waits for its
	// reader's Close (it can hang up to MaxWait), inside ClientsCloseShare.
	ReaderCloseShare = Share{1, 2}
	// ClientsCloseShare of CLOSE_TIMEOUT is for the writers, readers and
	// clients side by side; the rest is the pool's, which closes last.
	ClientsCloseShare = Share{3, 4}
	// HeartbeatCloseShare of CLOSE_TIMEOUT is a consumer's heartbeat
	// interval, so a Close during an ordinary rebalance fits the budget.
	HeartbeatCloseShare = Share{1, 4}
	// LeaseRenewShare of the TTL is how often a holder renews its lease.
	LeaseRenewShare = Share{1, 3}
	// LeaseKeepShare of the TTL since the last renewal is how long a holder
	// that cannot renew keeps running: the last quarter is for its run to
	// stop before another replica may take the lease.
	LeaseKeepShare = Share{3, 4}
	// LeasePollShare of the TTL is how often a replica that does not hold
	// the lease looks again while a tick is overdue (its holder slow or
	// gone), at most every LeasePollMax.
	LeasePollShare = Share{1, 30}
)

// LeasePollMax is the longest wait between those looks at an overdue tick,
// however long the TTL.
const LeasePollMax = time.Second

// Share is a fraction of a duration: Share{3, 4} is three quarters.
type Share struct{ Num, Den int }

func (s Share) String() string { return fmt.Sprintf("%d/%d", s.Num, s.Den) }

// Of is s of the Go expression x, as Go: "x / 3", "x * 3 / 4" (integer
// division last, so a time.Duration loses nothing before it is divided).
func (s Share) Of(x string) string {
	if s.Num == 1 {
		return fmt.Sprintf("%s / %d", x, s.Den)
	}
	return fmt.Sprintf("%s * %d / %d", x, s.Num, s.Den)
}

// Rest is what s leaves of the whole: Share{3, 4}.Rest() is Share{1, 4}.
func (s Share) Rest() Share { return Share{s.Den - s.Num, s.Den} }

// Words is s as prose writes it, "three quarters"; a share without words
// fails the render that asks for them.
func (s Share) Words() (string, error) {
	words := map[Share]string{{1, 2}: "half", {1, 3}: "third", {1, 4}: "quarter", {3, 4}: "three quarters", {1, 30}: "thirtieth"}
	if w, ok := words[s]; ok {
		return w, nil
	}
	return "", fmt.Errorf("the contract has no words for the share %s", s)
}

// Tight writes the share of x as gofmt writes it as an operand of a binary
// operator of lower precedence (d > x*3/4): without the spaces.
func (s Share) Tight(x string) string {
	return strings.ReplaceAll(s.Of(x), " ", "")
}

// Number is one row of the contract.
type Number struct {
	Key   string // how templates and tests name it: "outbox.slots"
	Value any    // a time.Duration, an int or a Share
	What  string // what it is, in a few words
	// Docs is how README.md and docs/*.md state it: regular expressions
	// (whitespace in the docs counts as one space) whose first group is the
	// number as written there, "60s", "10 s", "14 days", "three quarters".
	Docs []string
}

// Text is the number as the contract's table in README.md writes it.
func (n Number) Text() string {
	switch v := n.Value.(type) {
	case time.Duration:
		return problem.Seconds(v)
	case int:
		return strconv.Itoa(v)
	case Share:
		return v.String()
	}
	panic(fmt.Sprintf("contract: %s has a value of type %T", n.Key, n.Value))
}

func flagRow(flag string) string { return "\\| `" + flag + "` \\| `([^`]+)` \\|" }

// Contract is the table, in the order README.md lists it.
var Contract = []Number{
	{"timeouts.prestop", time.Duration(answers.DefaultTimeouts.PreStop), "preStop sleep", []string{flagRow("--prestop")}},
	{"timeouts.grace", time.Duration(answers.DefaultTimeouts.Grace), "terminationGracePeriodSeconds", []string{flagRow("--grace")}},
	{"timeouts.http_shutdown", time.Duration(answers.DefaultTimeouts.HTTPShutdown), "HTTP drain", []string{flagRow("--http-shutdown")}},
	{"timeouts.worker_drain", time.Duration(answers.DefaultTimeouts.WorkerDrain), "Run loops' drain", []string{flagRow("--worker-drain")}},
	{"timeouts.asynq_shutdown", time.Duration(answers.DefaultTimeouts.AsynqShutdown), "asynq ShutdownTimeout", []string{flagRow("--asynq-shutdown")}},
	{"timeouts.task_timeout", time.Duration(answers.DefaultTimeouts.TaskTimeout), "the example task's asynq.Timeout", []string{flagRow("--task-timeout")}},
	{"timeouts.close_budget", time.Duration(answers.DefaultTimeouts.CloseBudget), "CLOSE_TIMEOUT: writers, readers, clients, then the pool", []string{flagRow("--close-budget")}},
	{"timeouts.margin", time.Duration(answers.DefaultTimeouts.Margin), "left before SIGKILL", []string{flagRow("--margin")}},
	{"timeouts.task_margin", TaskMargin, "a task timeout's room below ShutdownTimeout", []string{
		`asynq task timeout \+ (\S+) <= asynq shutdown`, `or within (\S+) of it \(handlers are idempotent\)`}},
	{"close.clients", ClientsCloseShare, "of CLOSE_TIMEOUT for writers, readers and clients; the pool has the rest", nil},
	{"close.reader", ReaderCloseShare, "of CLOSE_TIMEOUT a consumer waits for its reader's Close", nil},
	{"close.heartbeat", HeartbeatCloseShare, "of CLOSE_TIMEOUT between a consumer's heartbeats", nil},
	{"http.port", answers.DefaultHTTPPort, "the HTTP server's port", []string{flagRow("--http-port")}},
	{"admin.port", answers.DefaultAdminPort, "the admin listener's port: probes, metrics, pprof", nil},
	{"outbox.slots", OutboxSlots, "slots of the outbox, by a hash of the aggregate id", []string{
		`divided into (\d+) slots`, "`relays` \\(default `\\d+`, at most `(\\d+)`\\)"}},
	{"outbox.relays", answers.DefaultOutboxRelays, "relay loops per replica", []string{"`relays` \\(default `(\\d+)`"}},
	{"outbox.batch_size", answers.DefaultOutboxBatchSize, "rows per batch", []string{flagRow("--outbox-batch-size"), `batch_size: (\d+) max_attempts`}},
	{"outbox.poll_interval", answers.DefaultPollInterval, "pause between batches without a backlog", []string{flagRow("--outbox-poll-interval")}},
	{"outbox.batch_timeout", answers.DefaultBatchTimeout, "deadline of one batch", []string{flagRow("--outbox-batch-timeout")}},
	{"outbox.max_attempts", answers.DefaultOutboxMaxAttempts, "tries of an event before it is parked", []string{
		"`max_attempts` \\(default `(\\d+)`", `batch_size: \d+ max_attempts: (\d+)`}},
	{"outbox.backoff_min", answers.DefaultBackoffMin, "first wait after a failure", []string{"`backoff_min`/`backoff_max` \\(`([^`]+)`/"}},
	{"outbox.backoff_max", answers.DefaultBackoffMax, "longest wait after a failure", []string{"`backoff_min`/`backoff_max` \\(`[^`]+`/`([^`]+)`"}},
	{"kafka.batch_size", answers.DefaultConsumerBatch, "messages per transaction and offset commit", []string{`batch_size: (\d+) # messages per transaction`}},
	{"kafka.max_attempts", answers.DefaultMaxAttempts, "handler runs before a message is dead-lettered", []string{`max_attempts: (\d+) # attempts before a failing message`}},
	{"kafka.handler_timeout", answers.DefaultHandlerTimeout, "one transaction of a consumer", []string{`handler_timeout: (\S+) # one transaction`}},
	{"kafka.commit_timeout", answers.DefaultCommitTimeout, "a dead-letter write and the offset commit", []string{`commit_timeout: (\S+) # then the dead-letter write`}},
	{"kafka.backoff_min", ConsumerBackoffMin, "a consumer's first wait after a failure", nil},
	{"kafka.backoff_max", ConsumerBackoffMax, "a consumer's longest wait after a failure", nil},
	{"kafka.rebalance_timeout", RebalanceTimeout, "a consumer group's rebalance", nil},
	{"kafka.transactions", ConsumerTransactions, "a consumer's transactions at once, each on a connection of the pool", nil},
	{"kafka.processed_event_retention", answers.ProcessedEventRetention, "how long processed_event remembers an event", []string{
		`\((\d+ days) by default, twice Kafka's`, `column: processed_at retention: (\S+)`}},
	{"cleaner.retention", answers.DefaultRetention, "a cleaner's default retention", []string{`column: dispatched_at retention: (\S+)`}},
	{"asynq.concurrency", answers.DefaultConcurrency, "tasks run at once", []string{flagRow("--asynq-concurrency")}},
	{"task.max_retry", answers.DefaultTaskMaxRetry, "retries of a task type", []string{`left out it is (\d+)\)`}},
	{"worker.min_interval", minWorkerInterval, "the shortest worker interval", []string{"A worker's `interval` is at least (\\S+) "}},
	{"lease.ttl", answers.DefaultLeaseTTL, "a fleet lease's TTL", []string{"\\(`lease_ttl`, default (\\S+)\\)", `every \d+s fleet (\d+s) `}},
	{"lease.ttl_min", minLeaseTTL, "the shortest lease TTL", []string{`lease outlives it \((\S+) to \S+\)`}},
	{"lease.ttl_max", maxLeaseTTL, "the longest lease TTL", []string{`lease outlives it \(\S+ to (\S+)\)`}},
	{"lease.renew", LeaseRenewShare, "of the TTL between renewals", []string{`renews it every (third) of its TTL`}},
	{"lease.keep", LeaseKeepShare, "of the TTL a holder that cannot renew keeps running", []string{`cuts its run's context at (three quarters) of the TTL`}},
	{"lease.poll", LeasePollShare, "of the TTL between a waiting replica's looks at an overdue tick", nil},
	{"lease.poll_max", LeasePollMax, "the longest wait between those looks", nil},
	{"names.max", maxInstanceName, "characters of a consumer's, cleaner's or worker's name", []string{`workers have at most (\d+) characters`}},
	{"gsgen.lock_wait", servicedir.LockWait, "how long a run waits for another on the same service", []string{
		`a second run waits up to (\d+ s)`, `kept the service locked \(` + "`LockError`" + `\) for longer than (\d+ s)`}},
}

// Spellings are the ways the docs may write the number: the table's own,
// and for a duration "10 s" and "14 days", for a share its words.
func (n Number) Spellings() []string {
	out := []string{n.Text()}
	switch v := n.Value.(type) {
	case time.Duration:
		if v%time.Second == 0 {
			out = append(out, fmt.Sprintf("%d s", v/time.Second))
		}
		if day := 24 * time.Hour; v%day == 0 {
			out = append(out, fmt.Sprintf("%d days", v/day))
		}
	case Share:
		if w, err := v.Words(); err == nil {
			out = append(out, w)
		}
	}
	return out
}

// Contract is the number key names in the contract, for the templates:
// {{.Contract "outbox.slots"}}. An unknown key fails the render.
func (m *Model) Contract(key string) (any, error) {
	i := slices.IndexFunc(Contract, func(n Number) bool { return n.Key == key })
	if i < 0 {
		return nil, fmt.Errorf("the contract has no number %q", key)
	}
	return Contract[i].Value, nil
}
