package generator

import (
	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/render"
)

// NewModel validates a (defaults already applied) and derives the model of
// a service whose only SQL is gsgen's own. Every problem is an
// *problem.InputError naming the answer.
func NewModel(a answers.Answers) (*model.Model, error) { return render.NewModel(a, nil) }

// newModel is NewModel for a service with SQL of the user's own (path →
// SQL): cleaners may target the tables its migrations create.
func newModel(a answers.Answers, userSQL map[string][]byte) (*model.Model, error) {
	return render.NewModel(a, userSQL)
}
