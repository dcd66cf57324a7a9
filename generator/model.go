package generator

import (
	gmodel "github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/render"
)

// Model is what gsgen derives from the answers: model.Model.
type Model = gmodel.Model

// NewModel validates a (defaults already applied) and derives the model of
// a service whose only SQL is gsgen's own. Every problem is an
// *InputError naming the answer.
func NewModel(a Answers) (*Model, error) { return render.NewModel(a, nil) }

// newModel is NewModel for a service with SQL of the user's own (path →
// SQL): cleaners may target the tables its migrations create.
func newModel(a Answers, userSQL map[string][]byte) (*Model, error) {
	return render.NewModel(a, userSQL)
}
