package model

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// The asynq kind: an asynq task server and client on Redis, in process
// (drained in step 3) or in a worker binary of its own.

// TaskServer is the asynq server's settings (design §4).
type TaskServer struct {
	Dedicated         bool // its own binary, cmd/<name>-worker, with srv.Run
	Concurrency       int
	TaskCheckInterval time.Duration
	AllowRequeue      bool   // task timeout may exceed ShutdownTimeout: handlers are idempotent
	ExampleType       string // the example task's type (ExampleTaskType)
}

var asynqKind = &Kind{Name: Asynq, Chosen: true, What: "an asynq task server and client (Redis)", Dirs: []string{"asynq"},
	ask:    asynqAsk,
	Menu:   "asynq task server on Redis, beside HTTP or in its own worker binary",
	Needs:  []Need{NeedsRedis},
	on:     func(m *Model) bool { return m.Asynq },
	derive: asynqDerive, drains: asynqDrains, bounds: asynqBounds, env: asynqEnv, settings: asynqSettings, panels: asynqPanels, alerts: asynqAlerts,
	flags: asynqFlags, pool: asynqPool, deploy: asynqDeploy,
	defaults: asynqDefaults, forget: asynqForget}

// asynqDefaults fills the task server's answers not given: in process
// beside HTTP, in a worker of its own without it.
func asynqDefaults(a *answers.Answers) {
	mode := answers.DefaultAsynqMode
	if !a.HasComponent(HTTP) {
		mode = "dedicated"
	}
	answers.SetDefault(&a.Asynq.Mode, mode)
	answers.SetDefault(&a.Asynq.Concurrency, answers.DefaultConcurrency)
}

// asynqForget drops the task server's answers, unless task types remain:
// they are the user's handlers on this server, and removing it must not
// drop them from gsgen.yaml unsaid.
func asynqForget(a *answers.Answers) error {
	if types := taskKind.Instances.Names(*a); len(types) > 0 {
		return &problem.InputError{Field: "tasks", Msg: fmt.Sprintf("the service has task types (%s), which run on the asynq server", problem.ListShort(types, 8)),
			Fix: fmt.Sprintf("remove them first (gsgen remove task %s; your handler files stay), then remove asynq", types[0])}
	}
	a.Asynq = answers.AsynqAnswers{}
	return nil
}

// asynqDeploy gives a dedicated worker its Deployment, with a grace period
// of its own ladder.
func asynqDeploy(m *Model, d *Deploy) {
	if !m.AsynqWorker {
		return
	}
	l := m.workerLadder()
	d.Worker = &WorkerDeploy{Name: m.Name + "-worker", GraceSeconds: secondsOf(l.Grace), Ladder: l,
		Liveness: Probe{Path: "/healthz", PeriodSeconds: secondsOf(livenessPeriod), TimeoutSeconds: secondsOf(livenessTimeout), FailureThreshold: workerLivenessFailures}}
}

// asynqPool is a connection for each task a handler may run at once (its
// concurrency): in the service's pool, or in the dedicated worker's.
func asynqPool(m *Model) []poolShare {
	if m.TaskServer == nil {
		return nil
	}
	share := poolShare{PoolPart: PoolPart{What: "asynq handlers (concurrency)", Conns: m.TaskServer.Concurrency}}
	share.ownProcess = m.AsynqWorker
	return []poolShare{share}
}

// asynqShutdownVar is the variable of the asynq drain's timeout
// (ShutdownTimeout), in the service and in the dedicated worker.
const asynqShutdownVar = "ASYNQ_SHUTDOWN_TIMEOUT"

func asynqDrains(m *Model) []Drain {
	if !m.AsynqInProcess { // a dedicated worker drains in its own process, with its own budget (Deploy.Worker)
		return nil
	}
	return []Drain{{Name: "asynq drain", Key: "asynq_shutdown", D: m.Timeouts.AsynqShutdown, Note: "asynq Shutdown waits for active tasks", Part: "asynq", Var: asynqShutdownVar}}
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
		durationVar(asynqShutdownVar, m.Timeouts.AsynqShutdown, "timeouts.asynq_shutdown"),
	}
	if m.AsynqWorker {
		env = append(env, durationVar("WORKER_TERMINATION_GRACE_PERIOD", m.workerLadder().Grace, "the worker Deployment's terminationGracePeriodSeconds"))
	}
	return env
}

func asynqSettings(a answers.Answers) []setting {
	s := []setting{count("asynq.concurrency", a.Asynq.Concurrency, limits.AsynqConcurrency)}
	for _, q := range slices.Sorted(maps.Keys(a.Asynq.Queues)) {
		s = append(s, count("asynq.queues."+q, a.Asynq.Queues[q], limits.QueuePriority))
	}
	return s
}

func asynqPanels(m *Model) []Panel {
	return []Panel{
		// Read from Redis: every pod reports the same queues.
		{"asynq tasks, by queue and state", "short", [][2]string{
			{`max by (queue, state) (NS_asynq_tasks)`, "{{queue}} {{state}}"}}},
		{"asynq oldest pending task, by queue", "s", [][2]string{
			{`max by (queue) (NS_asynq_queue_latency_seconds)`, "{{queue}}"}}},
		{"asynq tasks processed and failed per second", "short", [][2]string{
			{`max by (queue) (rate(NS_asynq_tasks_processed_total[5m]))`, "{{queue}} processed"},
			{`max by (queue) (rate(NS_asynq_tasks_failed_total[5m]))`, "{{queue}} failed"}}},
	}
}

func asynqAlerts(m *Model) []Alert {
	return []Alert{{"AsynqQueueBacklog", `max by (queue) (NS_asynq_queue_latency_seconds) > 300`, "5m", "warning",
		"A task in an asynq queue of NAME has waited over 5 minutes: too few workers, or none."}}
}

// asynqFlags are the asynq kind's answers as flags of gsgen new and add.
var asynqFlags = []KindFlag{
	{Name: "asynq-mode", Usage: "asynq: inprocess (srv.Start beside HTTP) or dedicated (its own worker binary with srv.Run); default dedicated without http", Default: answers.DefaultAsynqMode, Field: "asynq.mode",
		set: func(a *answers.Answers, s string) error { a.Asynq.Mode = s; return nil },
		get: func(a answers.Answers) string { return a.Asynq.Mode }},
	{Name: "asynq-concurrency", Usage: "asynq: tasks run at once", Default: strconv.Itoa(answers.DefaultConcurrency), Type: "int", Field: "asynq.concurrency",
		set: func(a *answers.Answers, s string) error {
			return setCount(&a.Asynq.Concurrency, "--asynq-concurrency", s)
		},
		get: func(a answers.Answers) string {
			return unlessZero(a.Asynq.Concurrency, strconv.Itoa(a.Asynq.Concurrency))
		}},
	{Name: "asynq-allow-requeue", Usage: "asynq: allow --task-timeout above --asynq-shutdown (handlers are idempotent; a deploy re-runs cut tasks)", Default: "false", Bool: true, Type: "bool", Field: "asynq.allow_requeue",
		set: func(a *answers.Answers, s string) error {
			return setBool(&a.Asynq.AllowRequeue, "--asynq-allow-requeue", s)
		},
		get: func(a answers.Answers) string { return strconv.FormatBool(a.Asynq.AllowRequeue) }},
}

// asynqDerive validates the task server's answers and derives its settings.
func asynqDerive(m *Model, a answers.Answers) error {
	s := a.Asynq
	if s.Mode != "inprocess" && s.Mode != "dedicated" {
		return &problem.InputError{Field: "asynq.mode", Msg: "unknown mode " + problem.Quote(s.Mode), Fix: "use inprocess (srv.Start beside HTTP) or dedicated (its own worker binary with srv.Run)"}
	}
	if time.Duration(a.Timeouts.TaskTimeout)%time.Second != 0 {
		return &problem.InputError{Field: "timeouts.task_timeout", Msg: fmt.Sprintf("%v is not a whole number of seconds; asynq keeps whole seconds and turns anything under 1s into its 30-minute default", a.Timeouts.TaskTimeout),
			Fix: "use whole seconds, e.g. " + problem.Seconds(max(time.Second, time.Duration(a.Timeouts.TaskTimeout).Truncate(time.Second)))}
	}
	m.TaskServer = &TaskServer{Dedicated: s.Mode == "dedicated", Concurrency: s.Concurrency, TaskCheckInterval: taskCheckInterval, AllowRequeue: s.AllowRequeue,
		ExampleType: ExampleTaskType}
	return nil
}

// asynqModes are the answers of asynq.mode, as the prompt offers them.
var asynqModes = [][2]string{
	{"inprocess", "srv.Start beside HTTP in one binary; main stops and drains it"},
	{"dedicated", "its own worker binary and Deployment, with srv.Run"},
}

// asynqAsk asks where the asynq server runs: at gsgen new, and at gsgen add
// when it adds asynq.
func asynqAsk(iv Interview, adding bool) error {
	if iv.Answers().Asynq.Mode != "" {
		return nil
	}
	mode, err := iv.ChooseOne("asynq mode", "where the asynq server runs", asynqModes, iv.Defaults().Asynq.Mode)
	iv.Answers().Asynq.Mode = mode
	return err
}
