package generator

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
)

// withWorkerAndTask is an HTTP service with one worker and one task type.
func withWorkerAndTask(t *testing.T) answers.Answers {
	t.Helper()
	a, err := answers.Answers{Name: "shop", Components: []string{"http"}}.AddWorker(answers.WorkerAnswers{Name: "nightly-report", Interval: answers.Duration(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if a, err = a.AddTask(answers.TaskAnswers{Type: "report:build", Timeout: answers.Duration(20 * time.Second), Queue: "reports"}); err != nil {
		t.Fatal(err)
	}
	return a.WithDefaults()
}

// A worker's timeout and a task's are held to their drains like the rest.
func TestWorkerAndTaskTimeoutsAreOnTheLadder(t *testing.T) {
	a := withWorkerAndTask(t)
	a.Workers[0].Timeout = answers.Duration(21 * time.Second)
	_, err := NewModel(a)
	if err == nil || !strings.Contains(err.Error(), "workers[0].timeout: worker nightly-report timeout 21s + lease release 1s = 22s is longer than worker drain 20s") {
		t.Fatalf("err = %v", err)
	}

	a = withWorkerAndTask(t)
	a.Tasks[0].Timeout = answers.Duration(30 * time.Second)
	_, err = NewModel(a)
	if err == nil || !strings.Contains(err.Error(), "tasks[0].timeout: task report:build timeout 30s is longer than asynq ShutdownTimeout 25s") {
		t.Fatalf("err = %v", err)
	}
	a.Asynq.AllowRequeue = true
	m, err := NewModel(a)
	if err != nil {
		t.Fatalf("with allow_requeue: %v", err)
	}
	if w := strings.Join(m.Warnings(), "\n"); !strings.Contains(w, "tasks[0].timeout") {
		t.Errorf("no warning for the allowed excess: %q", w)
	}
}

// Removing a worker or a task type removes that one; the user's files stay
// (Regenerate leaves them, TestRerun shows it). Removing asynq is refused
// while task types exist.
func TestRemoveWorkerAndTask(t *testing.T) {
	a := withWorkerAndTask(t)
	if _, err := a.RemoveComponent(model.Worker, ""); err == nil || !strings.Contains(err.Error(), "nightly-report") {
		t.Errorf("remove worker without a name: %v, want the names listed", err)
	}
	if _, err := a.RemoveComponent(model.Worker, "daily"); err == nil {
		t.Error("removed a worker that does not exist")
	}
	b, err := a.RemoveComponent(model.Worker, "nightly-report")
	if err != nil || len(b.Workers) != 0 || !slices.Equal(b.Components, a.Components) {
		t.Fatalf("remove worker: %v, %+v", err, b)
	}
	b, err = a.RemoveComponent(model.Task, "report:build")
	if err != nil || len(b.Tasks) != 0 || !slices.Contains(b.Components, string(model.Asynq)) {
		t.Fatalf("remove task: %v, %+v", err, b)
	}
	if _, err := a.RemoveComponent(model.Asynq, ""); err == nil || !strings.Contains(err.Error(), "gsgen remove task report:build") {
		t.Fatalf("remove asynq with a task type: %v, want it refused naming the task", err)
	}
	b, err = b.RemoveComponent(model.Asynq, "")
	if err != nil || len(b.Tasks) != 0 {
		t.Fatalf("remove asynq: %v, tasks %v", err, b.Tasks)
	}
	if _, err := NewModel(b.WithDefaults()); err != nil {
		t.Errorf("without asynq: %v", err)
	}
	if _, err := a.AddWorker(a.Workers[0]); err == nil {
		t.Error("added a second worker of the same name")
	}
}

// A cron schedule is parsed as the service parses it; its period (what the
// alert counts two of) is its longest gap; the scope defaults to fleet.
func TestWorkerSchedulesAndScopes(t *testing.T) {
	for _, c := range []struct {
		cron, tz string
		period   time.Duration
	}{
		{"@daily", "UTC", 24 * time.Hour},
		{"*/15 * * * *", "UTC", 15 * time.Minute},
		{"0 9 * * 1", "Europe/Paris", 7*24*time.Hour + time.Hour}, // the week the clocks go back
		{"@every 90s", "UTC", 90 * time.Second},
		{"0 9 * * 1-5", "America/New_York", 3*24*time.Hour + time.Hour}, // Friday to Monday, clocks going back
	} {
		a := withWorkerAndTask(t)
		a.Workers[0] = answers.WorkerAnswers{Name: "digest", Cron: c.cron, Timezone: c.tz}
		m, err := NewModel(a.WithDefaults())
		if err != nil {
			t.Fatalf("%s: %v", c.cron, err)
		}
		w := m.Workers[0]
		if w.Period != c.period || w.Scope() != answers.ScopeFleet || w.Lease == nil || w.Lease.TTL != answers.DefaultLeaseTTL {
			t.Errorf("%s: period %v scope %s lease %+v, want %v, fleet, TTL %v", c.cron, w.Period, w.Scope(), w.Lease, c.period, answers.DefaultLeaseTTL)
		}
		if !m.Dependencies().Cron {
			t.Errorf("%s: the service does not get the cron parser", c.cron)
		}
	}
	a := withWorkerAndTask(t)
	a.Workers[0].Scope, a.Workers[0].LeaseTTL = answers.ScopeReplica, 0
	m, err := NewModel(a.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if m.Workers[0].Lease != nil || m.Dependencies().Cron || len(m.Leases()) != 0 {
		t.Errorf("a replica-scoped interval worker has a lease %v or the cron parser", m.Workers[0].Lease)
	}
}

// A fleet worker on a service without PostgreSQL brings the pool, saying so.
func TestFleetWorkerBringsPostgres(t *testing.T) {
	a := answers.Answers{Name: "shop", Components: []string{"http"}, Workers: []answers.WorkerAnswers{{Name: "report", Interval: answers.Duration(time.Hour)}}}.WithDefaults()
	m, err := NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	if !m.UsesPostgres || len(m.Warnings()) != 1 || !strings.Contains(m.Warnings()[0], "the service now has a PostgreSQL pool") {
		t.Errorf("uses postgres %v, warnings %q", m.UsesPostgres, m.Warnings())
	}
	a.Workers[0].Scope, a.Workers[0].LeaseTTL = answers.ScopeReplica, 0
	if m, err = NewModel(a); err != nil || m.UsesPostgres {
		t.Errorf("a replica-scoped worker brought PostgreSQL (%v)", err)
	}
}

func TestWorkerAndTaskAreDerived(t *testing.T) {
	a := withWorkerAndTask(t)
	if !slices.Contains(a.Components, string(model.Asynq)) {
		t.Fatalf("AddTask did not add asynq: components %v", a.Components)
	}
	m, err := NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	w := m.Workers[0]
	if w.GoName != "NightlyReport" || w.EnvPrefix != "WORKER_NIGHTLY_REPORT_" || w.Interval != time.Hour || w.Timeout != 10*time.Second {
		t.Errorf("worker = %+v", w)
	}
	task := m.Tasks[0]
	if task.GoName != "ReportBuild" || task.FileName != "report_build" || task.Queue != "reports" || task.MaxRetry != answers.DefaultTaskMaxRetry {
		t.Errorf("task = %+v", task)
	}
	if got := m.Queues; !slices.Equal(got, []model.Queue{{Name: "default", Priority: 1}, {Name: "reports", Priority: 1}}) {
		t.Errorf("queues = %v", got)
	}
	if !m.HasWorkers {
		t.Error("a service with a worker has Run loops of gsgen's")
	}
	// Each kind's files, with the owner its template's name gives.
	plan, err := render.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]render.Owner{}
	for _, f := range plan {
		owners[f.Path] = f.Owner
	}
	for p, want := range map[string]render.Owner{
		"internal/worker/worker.go":              render.OwnedByGsgen,
		"internal/worker/nightly_report.go":      render.OwnedByUser,
		"internal/worker/nightly_report_test.go": render.OwnedByUser,
		"internal/tasks/types.go":                render.OwnedByGsgen,
		"internal/tasks/report_build.go":         render.OwnedByUser,
		"internal/parts/parts.go":                render.OwnedByUser,
		"internal/parts/part.go":                 render.OwnedByGsgen,
		"internal/httpapi/routes.go":             render.OwnedByUser,
		".gitignore":                             render.OwnedByUser,
	} {
		if got, ok := owners[p]; !ok || got != want {
			t.Errorf("%s: planned %v, owner %v; want owner %v", p, ok, got, want)
		}
	}
	// The variables config.go reads for the worker are in the ConfigMap.
	var names []string
	for _, e := range m.Deploy.Config {
		names = append(names, e.Name)
	}
	for _, v := range []string{"WORKER_NIGHTLY_REPORT_INTERVAL", "WORKER_NIGHTLY_REPORT_TIMEOUT", "WORKER_DRAIN_TIMEOUT"} {
		if !slices.Contains(names, v) {
			t.Errorf("ConfigMap lacks %s: %v", v, names)
		}
	}
}

func TestBadWorkersAndTasksAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*answers.Answers)
		field string
	}{
		{"worker name", func(a *answers.Answers) { a.Workers[0].Name = "Nightly" }, "workers[0].name"},
		{"worker twice", func(a *answers.Answers) { a.Workers = append(a.Workers, a.Workers[0]) }, "workers[1].name"},
		{"worker env clash", func(a *answers.Answers) { a.Workers[0].Name = "drain" }, "workers[0].timeout"},
		{"task type", func(a *answers.Answers) { a.Tasks[0].Type = "Report Build" }, "tasks[0].type"},
		{"task twice", func(a *answers.Answers) { a.Tasks = append(a.Tasks, a.Tasks[0]) }, "tasks[1].type"},
		{"task takes the example's Go name", func(a *answers.Answers) { a.Tasks[0].Type = "welcome:email" }, "tasks[0].type"},
		{"task takes the example's type", func(a *answers.Answers) { a.Tasks[0].Type = model.ExampleTaskType }, "tasks[0].type"},
		// Names whose rendered Go collides: found in what the templates
		// render, not in a list (render.CheckGo).
		{"workers x2 and x-2", func(a *answers.Answers) { a.Workers = []answers.WorkerAnswers{{Name: "x2"}, {Name: "x-2"}} }, "workers[1].name"},
		{"workers a-b and a--b", func(a *answers.Answers) { a.Workers = []answers.WorkerAnswers{{Name: "a-b"}, {Name: "a--b"}} }, "workers[1].name"},
		{"worker func", func(a *answers.Answers) { a.Workers[0].Name = "func" }, "workers[0].name"},
		{"worker config", func(a *answers.Answers) { a.Workers[0].Name = "config" }, "workers[0].name"},
		{"worker new", func(a *answers.Answers) { a.Workers[0].Name = "new" }, "workers[0].name"},
		{"worker x-test", func(a *answers.Answers) { a.Workers[0].Name = "x-test" }, "workers[0].name"},
		{"worker interval of 1ns", func(a *answers.Answers) { a.Workers[0].Interval = answers.Duration(time.Nanosecond) }, "workers[0].interval"},
		{"worker x-linux", func(a *answers.Answers) { a.Workers[0].Name = "x-linux" }, "workers[0].name"},
		{"task task", func(a *answers.Answers) { a.Tasks[0].Type = "task" }, "tasks[0].type"},
		{"tasks type and payload", func(a *answers.Answers) {
			a.Tasks = append(a.Tasks, answers.TaskAnswers{Type: "type"}, answers.TaskAnswers{Type: "payload"})
		}, "tasks[2].type"},
		{"task timeout not whole", func(a *answers.Answers) { a.Tasks[0].Timeout = answers.Duration(1500 * time.Millisecond) }, "tasks[0].timeout"},
		{"queue", func(a *answers.Answers) { a.Tasks[0].Queue = "Reports!" }, "tasks[0].queue"},
		{"priority of a queue no task uses", func(a *answers.Answers) { a.Asynq.Queues = map[string]int{"other": 2} }, "asynq.queues.other"},
		{"queue name with a space", func(a *answers.Answers) { a.Asynq.Queues = map[string]int{"a b": 2} }, "asynq.queues.a b"},
		{"priority too high", func(a *answers.Answers) { a.Asynq.Queues = map[string]int{"reports": 1000} }, "asynq.queues.reports"},
		{"tasks without asynq", func(a *answers.Answers) { a.Components = []string{"http"}; a.Asynq = answers.AsynqAnswers{} }, "tasks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := withWorkerAndTask(t)
			tc.edit(&a)
			_, _, err := Generate(a.WithDefaults())
			var ie *problem.InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(ie.Field, tc.field) {
				t.Fatalf("err = %v, want an *InputError for %s", err, tc.field)
			}
		})
	}
}

// max_retry 0 is asynq's "never retried": kept through the answers file and
// rendered, not replaced by the default.
func TestTaskMaxRetryZero(t *testing.T) {
	a := withWorkerAndTask(t)
	a.Tasks[0].MaxRetry = answers.Retries(0)
	_, files, err := Generate(a.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		switch f.Path {
		case "internal/tasks/types.go":
			if !strings.Contains(string(f.Content), "asynq.MaxRetry(0)") {
				t.Errorf("types.go does not set MaxRetry(0):\n%s", f.Content)
			}
		case answers.AnswersFile:
			back, err := answers.ParseAnswersFile(answers.AnswersFile, f.Content)
			if err != nil || back.Tasks[0].MaxRetry == nil || *back.Tasks[0].MaxRetry != 0 {
				t.Errorf("gsgen.yaml does not keep max_retry 0: %v\n%s", err, f.Content)
			}
		}
	}
}
