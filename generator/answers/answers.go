package answers

import (
	"slices"
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Answers is what a user said: through flags, an answers file or prompts.
// It is also the schema of the gsgen.yaml written into every service, so a
// later run reads back exactly what produced the service. Zero values mean
// "not answered"; WithDefaults fills them.
type Answers struct {
	Name       string            `yaml:"name"`
	Module     string            `yaml:"module"`
	Components []string          `yaml:"components,flow"`
	Timeouts   TimeoutAnswers    `yaml:"timeouts"`
	HTTP       HTTPAnswers       `yaml:"http,omitempty"`
	GRPC       GRPCAnswers       `yaml:"grpc,omitempty"`
	Outbox     OutboxAnswers     `yaml:"outbox,omitempty"`
	Asynq      AsynqAnswers      `yaml:"asynq,omitempty"`
	Consumers  []ConsumerAnswers `yaml:"kafka,omitempty"`
	Cleaners   []CleanerAnswers  `yaml:"cleaners,omitempty"`
	Workers    []WorkerAnswers   `yaml:"workers,omitempty"`
	Tasks      []TaskAnswers     `yaml:"tasks,omitempty"`
	// Tracing gives the service OpenTelemetry tracing: an OTLP exporter set
	// by the OTEL_* variables, spans across HTTP, the outbox, Kafka and asynq.
	Tracing bool `yaml:"tracing,omitempty"`
	// CI is the service's CI: github for a GitHub Actions workflow that
	// gsgen owns (.github/workflows/ci.yml), none for no workflow. Unset
	// means github, for a new service and for the gsgen.yaml of an older
	// gsgen alike; regen turns it to none when the workflow was deleted or
	// one of the user's is in its place.
	CI string `yaml:"ci,omitempty"`
}

// OutboxAnswers configures the outbox relay.
type OutboxAnswers struct {
	Topic        string   `yaml:"topic,omitempty"`         // topic of the example event
	BatchSize    int      `yaml:"batch_size,omitempty"`    // rows per batch
	PollInterval Duration `yaml:"poll_interval,omitempty"` // pause between batches
	BatchTimeout Duration `yaml:"batch_timeout,omitempty"` // deadline of one batch; fits in worker_drain
	Unordered    bool     `yaml:"unordered,omitempty"`     // drop the advisory locks: faster, no per-aggregate order across relays
	Relays       int      `yaml:"relays,omitempty"`        // relay loops per replica; in ordered mode each takes other slots
	MaxAttempts  int      `yaml:"max_attempts,omitempty"`  // failed publishes of one event before it is parked
	BackoffMin   Duration `yaml:"backoff_min,omitempty"`   // first wait after a failure (an event's, or the loop's when Kafka is down)
	BackoffMax   Duration `yaml:"backoff_max,omitempty"`   // longest wait: the doubling stops here
}

// AsynqAnswers configures the asynq task server.
type AsynqAnswers struct {
	Mode         string `yaml:"mode,omitempty"` // inprocess | dedicated
	Concurrency  int    `yaml:"concurrency,omitempty"`
	AllowRequeue bool   `yaml:"allow_requeue,omitempty"` // task timeouts may exceed asynq_shutdown: handlers are idempotent
	// Queues gives a queue its priority: the server takes tasks from a queue
	// of priority 6 six times as often as from one of priority 1. A queue a
	// task uses and this does not list has priority 1.
	Queues map[string]int `yaml:"queues,omitempty"`
}

// ConsumerAnswers configures one named Kafka consumer.
type ConsumerAnswers struct {
	Name           string   `yaml:"name"`
	Topic          string   `yaml:"topic,omitempty"`
	Group          string   `yaml:"group,omitempty"`
	HandlerTimeout Duration `yaml:"handler_timeout,omitempty"`
	// CommitTimeout bounds what follows the handler: the dead-letter write,
	// if any, then the offset commit. handler_timeout + commit_timeout fit
	// in worker_drain.
	CommitTimeout   Duration `yaml:"commit_timeout,omitempty"`
	MaxAttempts     int      `yaml:"max_attempts,omitempty"`      // handler runs before a failing message is dead-lettered
	DeadLetterTopic string   `yaml:"dead_letter_topic,omitempty"` // where failed messages go; default <topic>.dlq
	// BatchSize is how many messages share one PostgreSQL transaction and
	// one offset commit; 1 handles each message on its own (for handlers
	// with side effects outside the transaction).
	BatchSize int `yaml:"batch_size,omitempty"`
}

// CleanerAnswers configures one named cleaner.
type CleanerAnswers struct {
	Name      string   `yaml:"name"`
	Table     string   `yaml:"table,omitempty"`
	Column    string   `yaml:"column,omitempty"` // timestamp column compared with now() - retention
	Key       string   `yaml:"key,omitempty"`    // key column(s) of the keyed delete; default the table's primary key
	Retention Duration `yaml:"retention,omitempty"`
	Interval  Duration `yaml:"interval,omitempty"`
	BatchSize int      `yaml:"batch_size,omitempty"`
	Scope     string   `yaml:"scope,omitempty"`     // fleet (each run in one replica, the default) or replica
	LeaseTTL  Duration `yaml:"lease_ttl,omitempty"` // fleet: how long a killed holder's lease outlives it
}

// WorkerAnswers configures one periodic worker: a Run loop of gsgen's
// calling a function of the user's every interval.
type WorkerAnswers struct {
	Name     string   `yaml:"name"`
	Interval Duration `yaml:"interval,omitempty"`  // time between two runs; or cron:
	Cron     string   `yaml:"cron,omitempty"`      // a cron schedule instead: "30 2 * * *", @daily
	Timezone string   `yaml:"timezone,omitempty"`  // of cron; default UTC
	Timeout  Duration `yaml:"timeout,omitempty"`   // how long one run may take; fits in worker_drain
	Scope    string   `yaml:"scope,omitempty"`     // fleet (each tick in one replica, the default) or replica
	LeaseTTL Duration `yaml:"lease_ttl,omitempty"` // fleet: how long a killed holder's lease outlives it
}

// TaskAnswers configures one asynq task type of the user's.
type TaskAnswers struct {
	Type    string   `yaml:"type"`              // its name in Redis: "report:build"
	Timeout Duration `yaml:"timeout,omitempty"` // one attempt; fits in asynq_shutdown unless asynq.allow_requeue
	Queue   string   `yaml:"queue,omitempty"`
	// MaxRetry is how often a failing task is retried; nil takes the
	// default, and 0 (asynq allows it) retries never.
	MaxRetry *int `yaml:"max_retry,omitempty"`
}

// TimeoutAnswers holds the shutdown budget, one field per `--flag`.
// The YAML keys are the flag names in snake_case.
type TimeoutAnswers struct {
	PreStop       Duration `yaml:"prestop"`
	Grace         Duration `yaml:"grace"`
	HTTPShutdown  Duration `yaml:"http_shutdown"`
	WorkerDrain   Duration `yaml:"worker_drain"`
	AsynqShutdown Duration `yaml:"asynq_shutdown"`
	TaskTimeout   Duration `yaml:"task_timeout"`
	CloseBudget   Duration `yaml:"close_budget"`
	Margin        Duration `yaml:"margin"`
}

// HTTPAnswers configures the http component.
type HTTPAnswers struct {
	Port int `yaml:"port,omitempty"`
}

// GRPCAnswers configures the grpc component.
type GRPCAnswers struct {
	Port int `yaml:"port,omitempty"`
	// ShutdownTimeout bounds GracefulStop: in-flight RPCs and open streams
	// get this long after SIGTERM, then Stop cuts what is left.
	ShutdownTimeout Duration `yaml:"shutdown_timeout,omitempty"`
	// Reflection registers the server reflection service (grpcurl, Postman)
	// unless GRPC_REFLECTION says otherwise.
	Reflection bool `yaml:"reflection,omitempty"`
}

// Duration is a time.Duration written in Go syntax ("25s", "1m30s") in
// answers files.
type Duration time.Duration

// String formats d for people: "60s" rather than "1m0s", "500ms".
func (d Duration) String() string { return problem.Seconds(time.Duration(d)) }

// MarshalYAML writes d in Go duration syntax.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// Default answers. The timeouts come from ../shared/design.md §6.
const (
	DefaultComponents = "http"
	DefaultHTTPPort   = 8080
	// DefaultAdminPort is where the admin listener serves the probes: a port
	// apart from the API, so they answer while the API drains.
	DefaultAdminPort = 9090
)

// DefaultTimeouts is the ladder of design §6:
// 10s preStop + 25s drain + 1s close + 5s margin = 41s, under a 60s grace period.
var DefaultTimeouts = TimeoutAnswers{
	PreStop:       Duration(10 * time.Second),
	Grace:         Duration(60 * time.Second),
	HTTPShutdown:  Duration(25 * time.Second),
	WorkerDrain:   Duration(20 * time.Second),
	AsynqShutdown: Duration(25 * time.Second),
	TaskTimeout:   Duration(20 * time.Second),
	CloseBudget:   Duration(1 * time.Second),
	Margin:        Duration(5 * time.Second),
}

// DefaultModule is the module path used when none is given.
func DefaultModule(name string) string { return "example.com/" + name }

// The answers of ci: in gsgen.yaml.
const (
	// CIGitHub gives the service a GitHub Actions workflow, owned by gsgen.
	CIGitHub = "github"
	// CINone leaves CI to the user: gsgen writes no workflow.
	CINone = "none"
)

// Clone copies a and its lists (components, consumers, cleaners, workers,
// tasks), so that a candidate answer can be tried on the copy without
// touching a. The asynq queues' map and the tasks' MaxRetry pointers are
// shared: set them anew on the copy, as the prompt does, rather than
// through them.
func (a Answers) Clone() Answers {
	a.Components = slices.Clone(a.Components)
	a.Consumers = slices.Clone(a.Consumers)
	a.Cleaners = slices.Clone(a.Cleaners)
	a.Workers = slices.Clone(a.Workers)
	a.Tasks = slices.Clone(a.Tasks)
	return a
}

// WithDefaults returns a copy of a in which every unanswered field holds its
// default: the service-wide ones (module, components, timeouts, the HTTP
// port, ci) here, each kind's by its KindSpec's Defaults. It does not
// validate.
func (a Answers) WithDefaults() Answers {
	if a.Module == "" && a.Name != "" {
		a.Module = DefaultModule(a.Name)
	}
	if len(a.Components) == 0 {
		a.Components = []string{DefaultComponents}
	}
	for _, f := range TimeoutFields {
		if v := f.Of(&a.Timeouts); *v == 0 {
			*v = *f.Of(&DefaultTimeouts)
		}
	}
	if a.HTTP.Port == 0 {
		a.HTTP.Port = DefaultHTTPPort
	}
	SetDefault(&a.CI, CIGitHub)
	a.Consumers = append([]ConsumerAnswers(nil), a.Consumers...) // do not write through to the caller's slices
	a.Cleaners = append([]CleanerAnswers(nil), a.Cleaners...)
	a.Workers = append([]WorkerAnswers(nil), a.Workers...)
	a.Tasks = append([]TaskAnswers(nil), a.Tasks...)
	// Each kind the answers name fills its own, in the kinds' order: a
	// kind's defaults may read an earlier kind's (kafka's consumer the
	// outbox's topic) or list a later one (kafka the cleaner component),
	// so whether a kind is named is asked anew of each.
	for _, k := range kinds {
		if k.Defaults != nil && k.namedIn(a) {
			k.Defaults(&a)
		}
	}
	return a
}

// TimeoutField describes one timeout answer: its key in gsgen.yaml (the flag
// name in snake_case), its flag, and where it lives in TimeoutAnswers.
type TimeoutField struct {
	Key   string // "http_shutdown"
	Flag  string // "http-shutdown"
	Usage string
	Of    func(*TimeoutAnswers) *Duration
}

// TimeoutFields lists every timeout answer in the order of the ladder.
var TimeoutFields = []TimeoutField{
	{"prestop", "prestop", "preStop sleep before SIGTERM, while endpoints stop routing to the pod", func(t *TimeoutAnswers) *Duration { return &t.PreStop }},
	{"grace", "grace", "terminationGracePeriodSeconds: SIGKILL this long after preStop starts", func(t *TimeoutAnswers) *Duration { return &t.Grace }},
	{"http_shutdown", "http-shutdown", "how long http.Server.Shutdown may wait for in-flight requests", func(t *TimeoutAnswers) *Duration { return &t.HTTPShutdown }},
	{"worker_drain", "worker-drain", "how long the Run loops may take to finish their current iteration", func(t *TimeoutAnswers) *Duration { return &t.WorkerDrain }},
	{"asynq_shutdown", "asynq-shutdown", "asynq ShutdownTimeout: how long active tasks may run after Shutdown()", func(t *TimeoutAnswers) *Duration { return &t.AsynqShutdown }},
	{"task_timeout", "task-timeout", "asynq.Timeout of the example task", func(t *TimeoutAnswers) *Duration { return &t.TaskTimeout }},
	{"close_budget", "close-budget", "time to close writers, readers, clients and the pool after the drains", func(t *TimeoutAnswers) *Duration { return &t.CloseBudget }},
	{"margin", "margin", "safety margin left before SIGKILL", func(t *TimeoutAnswers) *Duration { return &t.Margin }},
}
