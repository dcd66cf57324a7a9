package model

import (
	"errors"
	"slices"
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// TestAnswersKnowTheKinds: the spec side of every kind reaches package
// answers, in the kinds' order, so WithDefaults, add and remove see the
// components in the order the rest of generator does, and reach each
// kind's named instances.
func TestAnswersKnowTheKinds(t *testing.T) {
	var chosen []Component
	for _, k := range Kinds {
		if k.Chosen {
			chosen = append(chosen, k.Name)
		}
	}
	if got := answers.Components(); !slices.Equal(got, chosen) || !slices.Equal(AllComponents, chosen) {
		t.Errorf("answers.Components() = %v, AllComponents = %v, want the chosen kinds %v", got, AllComponents, chosen)
	}
	for _, k := range Kinds {
		if k.Instances == nil {
			continue
		}
		a := answers.Answers{Name: "orders"}
		if k.Chosen {
			a.Components = []string{string(k.Name)}
		}
		_, err := a.WithDefaults().RemoveComponent(k.Name, "nosuch")
		var ie *problem.InputError
		if !errors.As(err, &ie) || ie.Field != k.Instances.Field {
			t.Errorf("remove %s nosuch: %v, want an *InputError of field %s", k.Name, err, k.Instances.Field)
		}
	}
}

// Every component has its line in gsgen new's menu.
func TestEveryComponentHasAMenuLine(t *testing.T) {
	for _, k := range Kinds {
		if k.Chosen && k.Menu == "" {
			t.Errorf("component %s has no Menu line", k.Name)
		}
	}
}
