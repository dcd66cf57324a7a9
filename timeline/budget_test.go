package timeline

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/templates"
)

// The timeline reads what the generated main.go files log: if a template
// renames a step, a part or a message, this fails instead of the timeline
// silently losing budgets or whole shutdowns.
func TestNamesMatchTheTemplates(t *testing.T) {
	// main.go.tmpl places the kinds' blocks: what it logs is in both.
	main := template(t, "base/cmd/_name_/main.go.tmpl")
	blocks, err := fs.Glob(templates.FS, "*/main.blocks.tmpl")
	if err != nil || len(blocks) == 0 {
		t.Fatalf("no kind has main.go blocks: %v", err)
	}
	for _, b := range blocks {
		main += template(t, b)
	}
	worker := template(t, "asynq-dedicated/cmd/_name_-worker/main.go.tmpl")
	for _, want := range []string{
		`sd.step(2, "` + stepStopIntake + `"`, `sd.step(3, "` + stepDrain + `"`, `sd.step(4, "` + stepClose + `"`,
		`"shutdown step", "step", n, "name", name, "took"`,
		`sd.part("drained", "http"`, `sd.part("drained", "grpc"`, `sd.part("drained", "workers"`, `sd.part("drained", "asynq"`, `sd.part("stopped", "asynq"`,
		`sd.part("closed", "` + pool + `"`, `sd.part("closed", "` + adminListener + `"`,
		`s.logger.Error(msg, "part", name, "took", took, "err", err)`,
		`"over budget", "budget", budget.String(), "set_by", budgetVar`,
		`"shutdown started", "signal"`, `"shutdown started after a failure"`,
		`"second signal, exiting before shutdown completed", "signal"`,
		`"shutdown complete", "took", time.Since(sd.start).String(), "exit", exit`,
	} {
		if !strings.Contains(main, want) {
			t.Errorf("main.go.tmpl no longer has %s", want)
		}
	}
	for _, want := range []string{
		`"shutdown started", "signal"`, `"drained", "part", "asynq", "took"`, `"closed", "part", "` + pool + `", "took"`,
		`"over budget", "budget"`, `"second signal, exiting before shutdown completed"`, `"shutdown complete", "took"`,
	} {
		if !strings.Contains(worker, want) {
			t.Errorf("the worker's main.go.tmpl no longer has %s", want)
		}
	}

	// Every part step 3 drains has a budget.
	m := fullModel(t)
	var parts []string
	for _, d := range m.Ladder.Drains {
		parts = append(parts, d.Part)
	}
	if got, want := slices.Sorted(slices.Values(parts)), slices.Sorted(slices.Values(m.DrainedParts())); !slices.Equal(got, want) {
		t.Errorf("the ladder's drains are of %v, the model drains %v", got, want)
	}
	for _, part := range m.DrainedParts() {
		if b := (Plan{Ladder: m.Ladder}).partBudget(Part{Name: part, Verb: "drained"}); b.D == 0 {
			t.Errorf("part %s has no drain in the ladder", part)
		}
	}
}

func TestPlanFor(t *testing.T) {
	m := fullModel(t)
	p, err := PlanFor(m, "orders", ".")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Closed, ","); got != "kafka writer,kafka reader events,kafka dead-letter writer,asynq client,postgres pool,admin listener" {
		t.Errorf("closed = %s", got)
	}
	if _, err := PlanFor(m, "payments", "svc"); err == nil || !strings.Contains(err.Error(), `the log is of service "payments", but svc/gsgen.yaml holds the budget of orders`) {
		t.Errorf("err = %v", err)
	}
}

func template(t *testing.T, path string) string {
	t.Helper()
	b, err := fs.ReadFile(templates.FS, path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func fullModel(t *testing.T) *model.Model { return serviceModel(t, "testdata/orders") }

// serviceModel is the model of the recorded service in dir, as gsgen
// timeline --dir reads it.
func serviceModel(t *testing.T, dir string) *model.Model {
	t.Helper()
	d, err := servicedir.OpenServiceDir(dir, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	svc, err := generator.ReadService(d)
	if err != nil {
		t.Fatal(err)
	}
	m, err := svc.Model()
	if err != nil {
		t.Fatal(err)
	}
	return m
}
