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

// The task kind: named asynq task types, the user's handler with gsgen's
// registration and enqueue helper; their timeouts fit asynq's drain.

// Task is the asynq task type kind: not a component, chosen by listing
// instances of it.
const Task = answers.Task

// TaskType is one asynq task type of the user's: their handler and payload
// in a file of theirs, gsgen's registration and enqueue helper.
type TaskType struct {
	Type     string // its name in Redis: "report:build"
	GoName   string // "ReportBuild"
	FileName string // "report_build"
	Timeout  time.Duration
	Queue    string
	MaxRetry int
}

// Queue is one asynq queue and how often the server takes from it.
type Queue struct {
	Name     string
	Priority int
}

var taskKind = &Kind{Name: Task, What: "an asynq task type: your handler, gsgen's registration and enqueue helper", Dirs: []string{"task"},
	addFlags: taskFlags, fromFlags: taskFromFlags, AddExample: taskAddExample,
	addQuestions: taskQuestions, newInstance: newTask, NameHelp: "its name in Redis, words joined by ':', e.g. report:build",
	Instances: answers.InstancesOf("task", "tasks", func(a *answers.Answers) *[]answers.TaskAnswers { return &a.Tasks }),
	defaults:  taskDefaults,
	on:        func(m *Model) bool { return len(m.Tasks) > 0 },
	items:     func(m *Model) []Instance { return instances(m.Tasks) },
	derive:    taskDerive,
	bounds:    taskBounds, settings: taskSettings}

func taskBounds(m *Model) []Bound {
	var out []Bound
	for i, t := range m.Tasks {
		out = append(out, taskBound("task "+t.Type+" timeout", fmt.Sprintf("tasks[%d].timeout", i), t.Timeout, m))
	}
	return out
}

// taskDefaults fills the task types' answers not given: the timeout is
// the task_timeout of the timeouts.
func taskDefaults(a *answers.Answers) {
	for i := range a.Tasks {
		t := &a.Tasks[i]
		answers.SetDefault(&t.Timeout, a.Timeouts.TaskTimeout)
		answers.SetDefault(&t.Queue, answers.DefaultQueue)
		if t.MaxRetry == nil {
			t.MaxRetry = answers.Retries(answers.DefaultTaskMaxRetry)
		}
	}
}

func taskSettings(a answers.Answers) []setting {
	var s []setting
	for i, t := range a.Tasks {
		s = append(s,
			duration(fmt.Sprintf("tasks[%d].timeout", i), t.Timeout, maxTimeout),
			count(fmt.Sprintf("tasks[%d].max_retry", i), t.MaxRetryOrDefault(), limits.TaskMaxRetry))
	}
	return s
}

var (
	// taskTypeRE is what asynq task type names look like: words joined by ':'.
	taskTypeRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*(:[a-z][a-z0-9_-]*)*$`)
	queueRE    = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
)

// ExampleTaskType is the type of the example task asynq brings
// (tasks/example.go renders it): a task type of the user's must not take it,
// or the mux panics at start with two handlers for one pattern.
const ExampleTaskType = "email:welcome"

// taskDerive validates the task types and derives them, and asynq's
// queues from them: the kinds before it (asynq among them) are derived.
func taskDerive(m *Model, a answers.Answers) error {
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

// taskGoName turns "report:build" into "ReportBuild".
func taskGoName(t string) string {
	return goName(strings.NewReplacer(":", "-", "_", "-").Replace(t))
}

// taskFileName turns "report:build" into "report_build".
func taskFileName(t string) string {
	return strings.NewReplacer(":", "_", "-", "_").Replace(t)
}

// taskQuestions are gsgen add's questions of the new task type i.
func taskQuestions(iv Interview, i int, _ *Model) []Question {
	d := iv.Defaults()
	t := d.Tasks[i]
	return []Question{
		{Field: fmt.Sprintf("tasks[%d].timeout", i), Title: "Timeout", Def: t.Timeout.String(),
			Help: fmt.Sprintf("one attempt, in whole seconds; at least %v under asynq's shutdown timeout (%v)", TaskMargin, d.Timeouts.AsynqShutdown),
			Set:  func(a *answers.Answers, s string) error { return answers.ParseDuration(s, &a.Tasks[i].Timeout) }},
		{Field: fmt.Sprintf("tasks[%d].queue", i), Title: "Queue", Def: t.Queue, Help: "the asynq queue it goes to",
			Set: func(a *answers.Answers, s string) error { a.Tasks[i].Queue = s; return nil }},
		{Field: fmt.Sprintf("tasks[%d].max_retry", i), Title: "Max retry", Def: fmt.Sprint(*t.MaxRetry), Help: "retries of a failing task (0: never retried)",
			Set: func(a *answers.Answers, s string) error { return answers.ParseRetries(s, &a.Tasks[i].MaxRetry) }},
	}
}

func newTask(a answers.Answers, name string) (answers.Answers, error) {
	return a.AddTask(answers.TaskAnswers{Type: name})
}

// taskAddExample is a whole gsgen add command of a task.
const taskAddExample = "gsgen add task report:build --timeout 20s"

// taskFlags are gsgen add task TYPE's flags.
var taskFlags = []AddFlag{
	{Name: "timeout", Type: "duration", Positive: true, Usage: "one attempt (default --task-timeout), within --asynq-shutdown"},
	{Name: "queue", Type: "string", Usage: "its asynq queue (default: default); give queues priorities under asynq.queues in gsgen.yaml"},
	{Name: "max-retry", Type: "int", Usage: "retries of a failing task (default 5; 0 for none)"},
}

func taskFromFlags(a answers.Answers, name string, f AddFlagValues) (answers.Answers, error) {
	if !f.Changed("timeout") {
		return a, &AddUsageError{"add task needs --timeout, how long one attempt may take, e.g. " + taskAddExample}
	}
	var retries *int // not given: the default
	if f.Changed("max-retry") {
		n := f.Int("max-retry")
		if n < 0 {
			return a, &problem.InputError{Field: "--max-retry", Msg: fmt.Sprintf("%d is negative", n), Fix: "give 0 (never retried) or more, or leave it out for the default 5"}
		}
		retries = answers.Retries(n)
	}
	return a.AddTask(answers.TaskAnswers{Type: name, Timeout: answers.Duration(f.Duration("timeout")), Queue: f.String("queue"), MaxRetry: retries})
}
