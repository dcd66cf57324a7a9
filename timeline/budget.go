package timeline

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Plan is what a service's shutdown should look like, from its gsgen.yaml:
// the ladder, and the parts it drains and closes, named as its log names them.
type Plan struct {
	Ladder  model.Ladder
	Drained []string // "http", "workers", "asynq"
	Closed  []string // "kafka writer", ..., "postgres pool", "admin listener"
}

// Budget is the time the ladder gives a step or part, and the answer in
// gsgen.yaml that sets it.
type Budget struct {
	D   time.Duration
	Key string // "http_shutdown"
}

// The names below are those the generated main.go files log (budget_test.go
// checks them against the templates): the steps, the answer that bounds
// each part step 3 drains, and what is closed after the clients.
var (
	stepStopIntake = "stop intake"
	stepDrain      = "drain"
	stepClose      = "close"
	pool           = "postgres pool"
	adminListener  = "admin listener"
)

// PlanFor is the plan a log of service is measured against: the service's,
// or the dedicated asynq worker's, which runs in a pod of its own with no
// preStop and one drain. It is an *problem.InputError when the log is of
// another service.
func PlanFor(m *model.Model, service, dir string) (Plan, error) {
	if service == m.Name {
		p := Plan{Ladder: m.Ladder, Drained: m.DrainedParts(), Closed: m.ClosedParts()}
		if m.UsesPostgres {
			p.Closed = append(p.Closed, pool)
		}
		p.Closed = append(p.Closed, adminListener)
		return p, nil
	}
	if w := m.Deploy.Worker; w != nil && service == w.Name {
		p := Plan{Ladder: w.Ladder, Drained: []string{"asynq"}}
		if m.UsesPostgres {
			p.Closed = []string{pool}
		}
		return p, nil
	}
	names := m.Name
	if w := m.Deploy.Worker; w != nil {
		names += " and " + w.Name
	}
	return Plan{}, &problem.InputError{Field: "--dir",
		Msg: fmt.Sprintf("the log is of service %q, but %s holds the budget of %s", service, filepath.Join(dir, "gsgen.yaml"), names),
		Fix: fmt.Sprintf("pass --dir with the directory gsgen generated %s in", strings.TrimSuffix(service, "-worker"))}
}

// partBudget is the budget of a part: its drain timeout, counted from when
// it started draining, or the close budget for anything closed. asynq's Stop
// has none: it returns within a poll interval.
func (p Plan) partBudget(part Part) Budget {
	switch part.Verb {
	case "drained":
		for _, d := range p.Ladder.Drains {
			if d.Part == part.Name {
				return Budget{d.D, d.Key}
			}
		}
	case "closed":
		return Budget{p.Ladder.Close, "close_budget"}
	}
	return Budget{}
}

// stepBudget is the budget of a step: the drains run side by side, so step 3
// may take as long as the longest; step 4 the close budget. Steps 1 and 2
// flip a flag and cancel a context: the ladder gives them no time.
func (p Plan) stepBudget(name string) Budget {
	switch name {
	case stepDrain:
		longest := p.Ladder.LongestDrain()
		return Budget{longest.D, longest.Key}
	case stepClose:
		return Budget{p.Ladder.Close, "close_budget"}
	}
	return Budget{}
}

// stepName is the name of step i of s; a step that never ended logged no
// name, but it is the one after the step before it.
func stepName(s *Shutdown, i int) string {
	st := s.Steps[i]
	if !st.Open || i == 0 {
		return st.Name
	}
	switch s.Steps[i-1].Name {
	case stepStopIntake:
		return stepDrain
	case stepDrain:
		return stepClose
	}
	return ""
}
