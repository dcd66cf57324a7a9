package generator

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Kind describes one kind of part a service can have, in one place. Plan
// renders its template folders when it is on (its _item_ files once per
// named instance), the ladder holds its timeouts to their drain, the
// deployment sets the variables its config reads, the answers' limits bound
// its numbers, and add and remove edit its named instances. A new kind is
// one entry in Kinds (its declaration in a kind_<name>.go of its own), its
// template folder (a template named *.user.tmpl gives a file the user owns;
// *.blocks.tmpl holds its named pieces of main.go, config.go and the
// README), and the lines of main.go.tmpl, config.go.tmpl and README.md.tmpl
// that place those pieces: main.go.tmpl is the one place where the start
// and stop order is written.
type Kind struct {
	Name Component // what gsgen.yaml, gsgen add and gsgen remove call it
	// Chosen says it is one of components:; the other kinds (worker, task)
	// are on when the answers list instances of them.
	Chosen bool
	What   string   // one line, for help and prompts
	Dirs   []string // its template folders under templates/
	Needs  []Need   // the servers it talks to
	// Instances is its named instances in the answers; nil for a kind that
	// has none (http, outbox, asynq).
	Instances *Instances
	on        func(*Model) bool
	items     func(*Model) []Instance // what its _item_ templates render for
	drains    func(*Model) []Drain    // drains of its own in step 3; the Run loops share the worker drain
	bounds    func(*Model) []Bound    // its timeouts that must fit in a drain
	env       func(*Model) []EnvVar   // the variables config.go reads for it
	settings  func(Answers) []setting // its numbers, held to their limits
	// defaults fills its unanswered answers when it is chosen; derive
	// validates them and sets its part of the model, before anything that
	// asks which kinds are on.
	defaults func(*Answers)
	derive   func(*Model, Answers) error
	flags    []KindFlag           // its answers as flags of gsgen new and add
	panels   func(*Model) []panel // its graphs on the service's dashboard
	alerts   func(*Model) []alert // its alerting rules
	forget   func(*Answers)       // drops its answers when gsgen remove takes it out
}

// Need is a server a kind talks to: the service gets its client, config and
// deploy pieces when one of its kinds needs it.
type Need int

// The servers.
const (
	NeedsPostgres Need = iota
	NeedsKafka
	NeedsRedis
)

// Kinds that are not components: chosen by listing instances.
const (
	Worker Component = "worker" // a periodic Run loop calling a function of the user's
	Task   Component = "task"   // an asynq task type of the user's
)

// Kinds lists every kind in the order the service's files, config and
// ladder list them.
var Kinds = []*Kind{
	{Name: HTTP, Chosen: true, What: "an HTTP API (net/http) with graceful Shutdown", Dirs: []string{"http"},
		on:     func(m *Model) bool { return m.HTTP },
		drains: httpDrains, env: httpEnv, panels: httpPanels, alerts: httpAlerts},
	{Name: Outbox, Chosen: true, What: "a transactional outbox relay: PostgreSQL rows to Kafka", Dirs: []string{"outbox"},
		Needs:  []Need{NeedsPostgres, NeedsKafka},
		on:     func(m *Model) bool { return m.Outbox },
		bounds: outboxBounds, env: outboxEnv, settings: outboxSettings, panels: outboxPanels, alerts: outboxAlerts},
	{Name: Asynq, Chosen: true, What: "an asynq task server and client (Redis)", Dirs: []string{"asynq"},
		Needs:  []Need{NeedsRedis},
		on:     func(m *Model) bool { return m.Asynq },
		drains: asynqDrains, bounds: asynqBounds, env: asynqEnv, settings: asynqSettings, panels: asynqPanels, alerts: asynqAlerts},
	{Name: Kafka, Chosen: true, What: "Kafka consumers, each a named reader with its own handler", Dirs: []string{"kafka"},
		Needs:     []Need{NeedsPostgres, NeedsKafka},
		Instances: instancesOf("consumer", "kafka", func(a *Answers) *[]ConsumerAnswers { return &a.Consumers }),
		on:        func(m *Model) bool { return m.Kafka },
		items:     func(m *Model) []Instance { return instances(m.Consumers) },
		bounds:    consumerBounds, env: consumerEnv, settings: consumerSettings, panels: consumerPanels, alerts: consumerAlerts},
	{Name: Cleaner, Chosen: true, What: "cleaners deleting expired rows in small batches", Dirs: []string{"cleaner"},
		Needs:     []Need{NeedsPostgres},
		Instances: instancesOf("cleaner", "cleaners", func(a *Answers) *[]CleanerAnswers { return &a.Cleaners }),
		on:        func(m *Model) bool { return m.Cleaner },
		items:     func(m *Model) []Instance { return instances(m.Cleaners) },
		env:       cleanerEnv, settings: cleanerSettings, panels: cleanerPanels, alerts: cleanerAlerts},
	{Name: Worker, What: "a periodic worker: a Run loop calling a function of yours every interval", Dirs: []string{"worker"},
		Instances: instancesOf("worker", "workers", func(a *Answers) *[]WorkerAnswers { return &a.Workers }),
		on:        func(m *Model) bool { return len(m.Workers) > 0 },
		items:     func(m *Model) []Instance { return instances(m.Workers) },
		bounds:    workerBounds, env: workerEnv, settings: workerSettings, panels: workerPanels, alerts: workerAlerts},
	{Name: Task, What: "an asynq task type: your handler, gsgen's registration and enqueue helper", Dirs: []string{"task"},
		Instances: instancesOf("task", "tasks", func(a *Answers) *[]TaskAnswers { return &a.Tasks }),
		on:        func(m *Model) bool { return len(m.Tasks) > 0 },
		items:     func(m *Model) []Instance { return instances(m.Tasks) },
		bounds:    taskBounds, settings: taskSettings},
	grpcKind, // after the kinds of earlier gsgens: their menu numbers and orders stay as they were
}

// AllComponents lists every component (a kind chosen in components:) in
// canonical order: the kinds' order.
var AllComponents = chosenKinds()

func chosenKinds() []Component {
	var out []Component
	for _, k := range Kinds {
		if k.Chosen {
			out = append(out, k.Name)
		}
	}
	return out
}

// KindNamed returns the kind called name, or nil.
func KindNamed(name string) *Kind {
	i := slices.IndexFunc(Kinds, func(k *Kind) bool { return string(k.Name) == name })
	if i < 0 {
		return nil
	}
	return Kinds[i]
}

// KindNames lists the names of every kind gsgen add takes.
func KindNames() []string {
	out := make([]string, len(Kinds))
	for i, k := range Kinds {
		out[i] = string(k.Name)
	}
	return out
}

// kindsOn lists the kinds the model's service has, in order.
func (m *Model) kindsOn() []*Kind {
	return slices.DeleteFunc(slices.Clone(Kinds), func(k *Kind) bool { return !k.on(m) })
}

// needs says whether a kind the service has talks to server n.
func (m *Model) needs(n Need) bool {
	return slices.ContainsFunc(m.kindsOn(), func(k *Kind) bool { return slices.Contains(k.Needs, n) })
}

// instances turns a slice of named instances into []Instance.
func instances[T Instance](list []T) []Instance {
	out := make([]Instance, len(list))
	for i, x := range list {
		out[i] = x
	}
	return out
}

// Instances is how add and remove reach a kind's named instances in the
// answers, whatever their type.
type Instances struct {
	Noun  string // "consumer"
	Field string // its key in gsgen.yaml: "kafka"
	names func(Answers) []string
	drop  func(a *Answers, name string) // removes the one called name
	clear func(a *Answers)
}

// Names lists the names of the kind's instances in a, in order.
func (in *Instances) Names(a Answers) []string { return in.names(a) }

func instancesOf[T named](noun, field string, list func(*Answers) *[]T) *Instances {
	return &Instances{Noun: noun, Field: field,
		names: func(a Answers) []string {
			var out []string
			for _, x := range *list(&a) {
				out = append(out, x.instanceName())
			}
			return out
		},
		drop: func(a *Answers, name string) {
			*list(a) = slices.DeleteFunc(slices.Clone(*list(a)), func(x T) bool { return x.instanceName() == name })
		},
		clear: func(a *Answers) { *list(a) = nil },
	}
}

// The kinds' pieces, each beside the others of its kind.

func httpDrains(m *Model) []Drain {
	return []Drain{{"HTTP drain", "http_shutdown", m.Timeouts.HTTPShutdown, "http.Server.Shutdown waits for in-flight requests", "http"}}
}

func httpEnv(m *Model) []EnvVar {
	return []EnvVar{
		textVar("HTTP_ADDR", ":"+strconv.Itoa(m.HTTPPort), "http.port"),
		durationVar("HTTP_SHUTDOWN_TIMEOUT", m.Timeouts.HTTPShutdown, "timeouts.http_shutdown"),
	}
}

func asynqDrains(m *Model) []Drain {
	if !m.AsynqInProcess { // a dedicated worker drains in its own process, with its own budget (Deploy.Worker)
		return nil
	}
	return []Drain{{"asynq drain", "asynq_shutdown", m.Timeouts.AsynqShutdown, "asynq Shutdown waits for active tasks", "asynq"}}
}

func asynqBounds(m *Model) []Bound {
	return []Bound{taskBound("asynq task timeout", "timeouts.task_timeout", m.Timeouts.TaskTimeout, m)}
}

// TaskMargin is how much shorter than asynq's ShutdownTimeout a task
// timeout must be (design §6, "task timeout <= ShutdownTimeout with room to
// spare"). A task cut by its own timeout still has to return and have asynq
// write its outcome to Redis, and the task timeout counts from the task's
// start while ShutdownTimeout counts from Shutdown: with no margin, a task
// that runs to its timeout races the shutdown's own timer and may be pushed
// back and run again. One second is the least asynq can express: it keeps
// task timeouts in whole seconds.
const TaskMargin = time.Second

// TaskMargin is the margin above, for the templates: the service checks
// ASYNQ_SHUTDOWN_TIMEOUT against it again at start.
func (m *Model) TaskMargin() time.Duration { return TaskMargin }

// LeastAsynqShutdown is the shortest ASYNQ_SHUTDOWN_TIMEOUT the service
// accepts: its task timeout plus TaskMargin.
func (m *Model) LeastAsynqShutdown() time.Duration { return m.Timeouts.TaskTimeout + TaskMargin }

// taskBound holds one task timeout to asynq's ShutdownTimeout, TaskMargin under it.
func taskBound(name, field string, d time.Duration, m *Model) Bound {
	return Bound{Name: name, Field: field, D: d,
		LimitName: "asynq ShutdownTimeout", LimitKey: "asynq_shutdown", Limit: m.Timeouts.AsynqShutdown,
		Margin:    TaskMargin,
		MarginWhy: "a task that runs to its timeout must still return before Shutdown's own timer pushes it back to run again",
		Allowed:   m.TaskServer != nil && m.TaskServer.AllowRequeue,
		Why:       "a deploy would cut such a task and re-run it from scratch (allowed only with asynq.allow_requeue when handlers are idempotent)"}
}

func asynqEnv(m *Model) []EnvVar {
	env := []EnvVar{
		countVar("ASYNQ_CONCURRENCY", m.TaskServer.Concurrency, "asynq.concurrency"),
		durationVar("ASYNQ_SHUTDOWN_TIMEOUT", m.Timeouts.AsynqShutdown, "timeouts.asynq_shutdown"),
	}
	if m.AsynqWorker {
		env = append(env, durationVar("WORKER_TERMINATION_GRACE_PERIOD", m.workerLadder().Grace, "the worker Deployment's terminationGracePeriodSeconds"))
	}
	return env
}

func asynqSettings(a Answers) []setting {
	s := []setting{count("asynq.concurrency", a.Asynq.Concurrency, limits.AsynqConcurrency)}
	for _, q := range sortedKeys(a.Asynq.Queues) {
		s = append(s, count("asynq.queues."+q, a.Asynq.Queues[q], limits.QueuePriority))
	}
	return s
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

func outboxSettings(a Answers) []setting {
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

func consumerBounds(m *Model) []Bound {
	var out []Bound
	for i, c := range m.Consumers {
		// The message in hand at SIGTERM: its handler, then what follows it
		// (dead-letter write and offset commit), which the commit timeout bounds.
		b := sum([]Term{
			{"consumer " + c.Name + " handler timeout", fmt.Sprintf("kafka[%d].handler_timeout", i), c.HandlerTimeout},
			{"commit timeout", fmt.Sprintf("kafka[%d].commit_timeout", i), c.CommitTimeout},
		})
		b.LimitName, b.LimitKey, b.Limit = "worker drain", "worker_drain", m.Timeouts.WorkerDrain
		b.Why = "the message in hand at SIGTERM could not finish, be dead-lettered if it failed, and commit before the reader closes"
		out = append(out, b)
	}
	return out
}

func consumerEnv(m *Model) []EnvVar {
	var env []EnvVar
	for i, c := range m.Consumers {
		from := fmt.Sprintf("kafka[%d].", i)
		env = append(env,
			textVar(c.EnvPrefix+"TOPIC", c.Topic, from+"topic"),
			textVar(c.EnvPrefix+"GROUP", c.Group, from+"group"),
			durationVar(c.EnvPrefix+"HANDLER_TIMEOUT", c.HandlerTimeout, from+"handler_timeout"),
			durationVar(c.EnvPrefix+"COMMIT_TIMEOUT", c.CommitTimeout, from+"commit_timeout"),
			countVar(c.EnvPrefix+"MAX_ATTEMPTS", c.MaxAttempts, from+"max_attempts"),
			textVar(c.EnvPrefix+"DLQ_TOPIC", c.DeadLetterTopic, from+"dead_letter_topic"),
			countVar(c.EnvPrefix+"BATCH_SIZE", c.BatchSize, from+"batch_size"),
		)
	}
	return env
}

func consumerSettings(a Answers) []setting {
	var s []setting
	for i, c := range a.Consumers {
		s = append(s,
			duration(fmt.Sprintf("kafka[%d].handler_timeout", i), c.HandlerTimeout, maxTimeout),
			duration(fmt.Sprintf("kafka[%d].commit_timeout", i), c.CommitTimeout, maxTimeout),
			count(fmt.Sprintf("kafka[%d].max_attempts", i), c.MaxAttempts, limits.ConsumerMaxAttempts),
			count(fmt.Sprintf("kafka[%d].batch_size", i), c.BatchSize, limits.ConsumerBatchSize))
	}
	return s
}

func cleanerEnv(m *Model) []EnvVar {
	var env []EnvVar
	for i, c := range m.Cleaners {
		from := fmt.Sprintf("cleaners[%d].", i)
		env = append(env,
			durationVar(c.EnvPrefix+"RETENTION", c.Retention, from+"retention"),
			durationVar(c.EnvPrefix+"INTERVAL", c.Interval, from+"interval"),
			countVar(c.EnvPrefix+"BATCH_SIZE", c.BatchSize, from+"batch_size"),
		)
		env = append(env, leaseEnv(c.EnvPrefix, c.Lease, from)...)
	}
	return env
}

// leaseEnv is the variable of a fleet part's lease: its TTL.
func leaseEnv(prefix string, l *Lease, from string) []EnvVar {
	if l == nil {
		return nil
	}
	return []EnvVar{durationVar(prefix+"LEASE_TTL", l.TTL, from+"lease_ttl")}
}

// leaseSetting bounds a part's lease TTL where the answers give one.
func leaseSetting(field string, ttl Duration) []setting {
	if ttl == 0 {
		return nil
	}
	return []setting{duration(field, ttl, maxLeaseTTL)}
}

func cleanerSettings(a Answers) []setting {
	var s []setting
	for i, c := range a.Cleaners {
		s = append(s,
			duration(fmt.Sprintf("cleaners[%d].retention", i), c.Retention, maxRetention),
			duration(fmt.Sprintf("cleaners[%d].interval", i), c.Interval, maxRetention),
			count(fmt.Sprintf("cleaners[%d].batch_size", i), c.BatchSize, limits.CleanerBatchSize))
		s = append(s, leaseSetting(fmt.Sprintf("cleaners[%d].lease_ttl", i), c.LeaseTTL)...)
	}
	return s
}

func workerBounds(m *Model) []Bound {
	var out []Bound
	for i, w := range m.Workers {
		b := Bound{Name: "worker " + w.Name + " timeout", Field: fmt.Sprintf("workers[%d].timeout", i), D: w.Timeout}
		b.Why = "the run in hand at SIGTERM could not finish before the pool closes"
		if w.Lease != nil {
			// A fleet worker hands its lease over once its run is done, so
			// that the next replica runs the next tick instead of waiting
			// out the TTL; the release is bounded by CLOSE_TIMEOUT.
			b = sum([]Term{{b.Name, b.Field, b.D}, {"lease release", "timeouts.close_budget", m.Timeouts.CloseBudget}})
			b.Why = "the run in hand at SIGTERM could not finish and hand the lease over before the pool closes"
		}
		b.LimitName, b.LimitKey, b.Limit = "worker drain", "worker_drain", m.Timeouts.WorkerDrain
		out = append(out, b)
	}
	return out
}

func workerEnv(m *Model) []EnvVar {
	var env []EnvVar
	for i, w := range m.Workers {
		from := fmt.Sprintf("workers[%d].", i)
		if w.Cron == "" {
			env = append(env, durationVar(w.EnvPrefix+"INTERVAL", w.Interval, from+"interval"))
		} else {
			env = append(env, textVar(w.EnvPrefix+"CRON", w.Cron, from+"cron"), textVar(w.EnvPrefix+"TIMEZONE", w.Timezone, from+"timezone"))
		}
		env = append(env, durationVar(w.EnvPrefix+"TIMEOUT", w.Timeout, from+"timeout"))
		env = append(env, leaseEnv(w.EnvPrefix, w.Lease, from)...)
	}
	return env
}

func workerSettings(a Answers) []setting {
	var s []setting
	for i, w := range a.Workers {
		s = append(s,
			duration(fmt.Sprintf("workers[%d].interval", i), w.Interval, maxRetention),
			duration(fmt.Sprintf("workers[%d].timeout", i), w.Timeout, maxTimeout))
		s = append(s, leaseSetting(fmt.Sprintf("workers[%d].lease_ttl", i), w.LeaseTTL)...)
	}
	return s
}

func taskBounds(m *Model) []Bound {
	var out []Bound
	for i, t := range m.Tasks {
		out = append(out, taskBound("task "+t.Type+" timeout", fmt.Sprintf("tasks[%d].timeout", i), t.Timeout, m))
	}
	return out
}

func taskSettings(a Answers) []setting {
	var s []setting
	for i, t := range a.Tasks {
		s = append(s,
			duration(fmt.Sprintf("tasks[%d].timeout", i), t.Timeout, maxTimeout),
			count(fmt.Sprintf("tasks[%d].max_retry", i), t.maxRetry(), limits.TaskMaxRetry))
	}
	return s
}

// durationVar, countVar, boolVar and textVar make a variable holding a
// value of their type: as the environment spells it, and as config.go's
// constant.
func durationVar(name string, d time.Duration, from string) EnvVar {
	return EnvVar{Name: name, Value: Seconds(d), From: from, Go: GoDuration(d)}
}

func countVar(name string, n int, from string) EnvVar {
	return EnvVar{Name: name, Value: strconv.Itoa(n), From: from, Go: strconv.Itoa(n)}
}

func boolVar(name string, b bool, from string) EnvVar {
	return EnvVar{Name: name, Value: strconv.FormatBool(b), From: from, Go: strconv.FormatBool(b)}
}

func textVar(name, s, from string) EnvVar {
	return EnvVar{Name: name, Value: s, From: from, Go: strconv.Quote(s)}
}
