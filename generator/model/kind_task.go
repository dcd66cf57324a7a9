package model

import (
	"fmt"

	"github.com/gsgen-dev/gsgen/generator/answers"
)

// The task kind: named asynq task types, the user's handler with gsgen's
// registration and enqueue helper; their timeouts fit asynq's drain.

// Task is the asynq task type kind: not a component, chosen by listing
// instances of it.
const Task = answers.Task

var taskKind = &Kind{Name: Task, What: "an asynq task type: your handler, gsgen's registration and enqueue helper", Dirs: []string{"task"},
	Instances: answers.InstancesOf("task", "tasks", func(a *answers.Answers) *[]answers.TaskAnswers { return &a.Tasks }),
	defaults:  taskDefaults,
	on:        func(m *Model) bool { return len(m.Tasks) > 0 },
	items:     func(m *Model) []Instance { return instances(m.Tasks) },
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
