package render

import (
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
)

// renderService renders every file of the service of a, with the user's
// SQL userSQL, as generator.Generate does before it adds gsgen.lock and
// gsgen.base.
func renderService(a answers.Answers, userSQL map[string][]byte) (Rendered, error) {
	m, err := NewModel(a, userSQL)
	if err != nil {
		return nil, err
	}
	plan, err := Plan(m)
	if err != nil {
		return nil, err
	}
	return Service(m, plan, userSQL)
}

// defaultModel is the model of a with the defaults filled in.
func defaultModel(t testing.TB, a answers.Answers) *model.Model {
	t.Helper()
	m, err := NewModel(a.WithDefaults(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// generatedFile is the content of path in a service "shop" of components.
func generatedFile(t *testing.T, path string, components ...string) []byte {
	t.Helper()
	files, err := renderService(answers.Answers{Name: "shop", Components: components}.WithDefaults(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == path {
			return f.Content
		}
	}
	t.Fatalf("no %s rendered", path)
	return nil
}
