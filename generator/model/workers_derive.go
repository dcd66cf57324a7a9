package model

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// minWorkerInterval is the shortest pause between a worker's runs gsgen
// takes: below it the ticker, not the work, sets the pace.
const minWorkerInterval = time.Second

var (
	// taskTypeRE is what asynq task type names look like: words joined by ':'.
	taskTypeRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*(:[a-z][a-z0-9_-]*)*$`)
	queueRE    = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
)

// ExampleTaskType is the type of the example task asynq brings
// (tasks/example.go renders it): a task type of the user's must not take it,
// or the mux panics at start with two handlers for one pattern.
const ExampleTaskType = "email:welcome"

// deriveWorkers validates the workers and the task types and derives them.
func (m *Model) deriveWorkers(a answers.Answers) error {
	seen := map[string]bool{}
	for i, w := range a.Workers {
		field := fmt.Sprintf("workers[%d]", i)
		if err := validateInstanceName(field+".name", w.Name, seen); err != nil {
			return err
		}
		job := WorkerJob{Name: w.Name, GoName: goName(w.Name), FileName: snake(w.Name),
			EnvPrefix: envPrefix("WORKER", w.Name), Interval: time.Duration(w.Interval), Period: time.Duration(w.Interval), Timeout: time.Duration(w.Timeout)}
		if err := setSchedule(&job, field, w); err != nil {
			return err
		}
		lease, err := scopeOf(field, w.Scope, w.LeaseTTL, "worker:"+w.Name)
		if err != nil {
			return err
		}
		job.Lease = lease
		m.Workers = append(m.Workers, job)
	}
	if len(a.Tasks) > 0 && !m.Asynq {
		return &problem.InputError{Field: "tasks", Msg: "task types are listed but the asynq component is not chosen", Fix: "add asynq to components (gsgen add task adds it), or remove the tasks list"}
	}
	// Go names that collide are found in the rendered code (render.CheckGo);
	// types are strings, seen here.
	seenType, seenGo := map[string]string{ExampleTaskType: "the example task's type (internal/tasks/example.go)"}, map[string]string{}
	queues := map[string]bool{answers.DefaultQueue: true}
	for i, t := range a.Tasks {
		field := fmt.Sprintf("tasks[%d]", i)
		if !taskTypeRE.MatchString(t.Type) || len(t.Type) > 64 {
			return &problem.InputError{Field: field + ".type", Msg: problem.Quote(t.Type) + " is not a task type gsgen accepts", Fix: "use lower-case words joined by ':', e.g. report:build (at most 64 characters)"}
		}
		if other, ok := seenType[t.Type]; ok {
			return &problem.InputError{Field: field + ".type", Msg: fmt.Sprintf("%s is %s already, and asynq routes one type to one handler", problem.Quote(t.Type), other), Fix: "give each task type once, e.g. " + t.Type + "-2"}
		}
		seenType[t.Type] = field + ".type"
		g := taskGoName(t.Type)
		if other, ok := seenGo[g]; ok {
			return &problem.InputError{Field: field + ".type", Msg: fmt.Sprintf("%s and %s both become the Go name %s", problem.Quote(t.Type), other, g), Fix: "rename one of them"}
		}
		seenGo[g] = problem.Quote(t.Type)
		if time.Duration(t.Timeout)%time.Second != 0 {
			return &problem.InputError{Field: field + ".timeout", Msg: fmt.Sprintf("%v is not a whole number of seconds; asynq keeps whole seconds and turns anything under 1s into its 30-minute default", t.Timeout),
				Fix: "use whole seconds, e.g. " + problem.Seconds(max(time.Second, time.Duration(t.Timeout).Truncate(time.Second)))}
		}
		if !queueRE.MatchString(t.Queue) || len(t.Queue) > 64 {
			return &problem.InputError{Field: field + ".queue", Msg: problem.Quote(t.Queue) + " is not a queue name gsgen accepts", Fix: "use lower-case letters, digits, '-' and '_', e.g. critical"}
		}
		queues[t.Queue] = true
		m.Tasks = append(m.Tasks, TaskType{Type: t.Type, GoName: g, FileName: taskFileName(t.Type),
			Timeout: time.Duration(t.Timeout), Queue: t.Queue, MaxRetry: t.MaxRetryOrDefault()})
	}
	if !m.Asynq {
		return nil
	}
	for _, q := range slices.Sorted(maps.Keys(a.Asynq.Queues)) {
		if !queueRE.MatchString(q) || len(q) > 64 {
			// Checked first: the advice below repeats the name as a flag.
			return &problem.InputError{Field: "asynq.queues." + problem.Shorten(q), Msg: problem.Quote(q) + " is not a queue name gsgen accepts", Fix: "use lower-case letters, digits, '-' and '_', e.g. critical"}
		}
		if !queues[q] {
			return &problem.InputError{Field: "asynq.queues." + q, Msg: "no task uses queue " + problem.Quote(q), Fix: "remove it, or give a task --queue " + q}
		}
	}
	for _, q := range slices.Sorted(maps.Keys(queues)) {
		p := a.Asynq.Queues[q]
		if p == 0 {
			p = 1
		}
		m.Queues = append(m.Queues, Queue{Name: q, Priority: p})
	}
	return nil
}

// setSchedule checks the worker's interval or cron schedule and derives
// its period into w.
func setSchedule(w *WorkerJob, field string, a answers.WorkerAnswers) error {
	switch {
	case a.Cron != "" && a.Interval != 0:
		return &problem.InputError{Field: field, Msg: "has both an interval and a cron schedule", Fix: "keep one: --interval D runs every D, --cron EXPR at the times it names"}
	case a.Cron == "" && a.Timezone != "":
		return &problem.InputError{Field: field + ".timezone", Msg: "is given without a cron schedule: an interval has no time of day", Fix: "give --cron with it, or leave --timezone out"}
	case a.Cron == "" && time.Duration(a.Interval) < minWorkerInterval:
		return &problem.InputError{Field: field + ".interval", Msg: fmt.Sprintf("%v is shorter than %v: each tick starts a run, with its own timeout, log line and metrics, so a shorter interval is a busy loop", time.Duration(a.Interval), minWorkerInterval),
			Fix: fmt.Sprintf("use %v or more; for work that must follow events, use a Kafka consumer or an asynq task instead", minWorkerInterval)}
	case a.Cron == "":
		return nil
	}
	s, err := parseCron(field, a.Cron)
	if err != nil {
		return err
	}
	loc, err := loadTimezone(field, a.Timezone)
	if err != nil {
		return err
	}
	w.Cron, w.Timezone, w.Period = a.Cron, a.Timezone, cronPeriod(s, loc)
	return nil
}

// taskGoName turns "report:build" into "ReportBuild".
func taskGoName(t string) string {
	return goName(strings.NewReplacer(":", "-", "_", "-").Replace(t))
}

// taskFileName turns "report:build" into "report_build".
func taskFileName(t string) string {
	return strings.NewReplacer(":", "_", "-", "_").Replace(t)
}
