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

// Every kind of named instances can be added from flags and at the prompt,
// and a flag two kinds share is one flag: of one type and one default.
func TestKindsOfInstancesCanBeAdded(t *testing.T) {
	byName := map[string]AddFlag{}
	for _, k := range Kinds {
		if k.Instances == nil {
			if len(k.addFlags) > 0 {
				t.Errorf("%s has add flags but no named instances", k.Name)
			}
			continue
		}
		if k.fromFlags == nil || k.AddExample == "" || k.newInstance == nil || k.addQuestions == nil || k.NameHelp == "" {
			t.Errorf("%s has named instances but lacks fromFlags, AddExample, newInstance, addQuestions or NameHelp", k.Name)
		}
		for _, f := range k.addFlags {
			if other, ok := byName[f.Name]; ok && (other.Type != f.Type || other.Default != f.Default) {
				t.Errorf("--%s is %s (default %q) for one kind and %s (default %q) for %s", f.Name, other.Type, other.Default, f.Type, f.Default, k.Name)
			}
			byName[f.Name] = f
		}
	}
	if got, want := AddFlagUsage("interval"), "cleaner, worker: time between runs (default 1m)"; got != want {
		t.Errorf("AddFlagUsage(interval) = %q, want %q", got, want)
	}
}
