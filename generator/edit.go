package generator

import (
	"fmt"
	"slices"
	"strings"
)

// AddComponent returns a with component c added: for kafka and cleaner, the
// named instance inst (a *ConsumerAnswers or *CleanerAnswers) joins the
// others. Adding what exists is an error, never a duplicate.
func (a Answers) AddComponent(c Component, inst any) (Answers, error) {
	if !slices.Contains(AllComponents, c) {
		return a, unknownComponent(string(c))
	}
	has := slices.Contains(a.Components, string(c))
	a.Components = slices.Clone(a.Components)
	switch c {
	case Kafka:
		cons := *inst.(*ConsumerAnswers)
		if slices.ContainsFunc(a.Consumers, func(x ConsumerAnswers) bool { return x.Name == cons.Name }) {
			return a, &InputError{Field: "kafka", Msg: fmt.Sprintf("the service already has a consumer named %q", cons.Name), Fix: "choose another name"}
		}
		a.Consumers = append(slices.Clone(a.Consumers), cons)
	case Cleaner:
		cl := *inst.(*CleanerAnswers)
		if slices.ContainsFunc(a.Cleaners, func(x CleanerAnswers) bool { return x.Name == cl.Name }) {
			return a, &InputError{Field: "cleaners", Msg: fmt.Sprintf("the service already has a cleaner named %q", cl.Name), Fix: "choose another name"}
		}
		a.Cleaners = append(slices.Clone(a.Cleaners), cl)
	default:
		if has {
			return a, &InputError{Field: "components", Msg: fmt.Sprintf("the service already has %s", c), Fix: "nothing to add; edit gsgen.yaml and run gsgen regen to change its settings"}
		}
	}
	if !has {
		a.Components = append(a.Components, string(c))
		slices.SortFunc(a.Components, func(x, y string) int {
			return slices.Index(AllComponents, Component(x)) - slices.Index(AllComponents, Component(y))
		})
	}
	return a, nil
}

// RemoveComponent returns a without component c. For kafka and cleaner a
// name removes that one instance (the component goes with its last one);
// no name removes them all.
func (a Answers) RemoveComponent(c Component, name string) (Answers, error) {
	if !slices.Contains(a.Components, string(c)) {
		return a, &InputError{Field: "components", Msg: fmt.Sprintf("the service has no %s", c), Fix: "it has " + strings.Join(a.Components, ",")}
	}
	a.Consumers, a.Cleaners = slices.Clone(a.Consumers), slices.Clone(a.Cleaners)
	last := true
	switch {
	case name != "" && c == Kafka:
		i := slices.IndexFunc(a.Consumers, func(x ConsumerAnswers) bool { return x.Name == name })
		if i < 0 {
			return a, &InputError{Field: "kafka", Msg: fmt.Sprintf("no consumer named %q", name), Fix: "see kafka: in gsgen.yaml"}
		}
		a.Consumers = slices.Delete(a.Consumers, i, i+1)
		last = len(a.Consumers) == 0
	case name != "" && c == Cleaner:
		i := slices.IndexFunc(a.Cleaners, func(x CleanerAnswers) bool { return x.Name == name })
		if i < 0 {
			return a, &InputError{Field: "cleaners", Msg: fmt.Sprintf("no cleaner named %q", name), Fix: "see cleaners: in gsgen.yaml"}
		}
		a.Cleaners = slices.Delete(a.Cleaners, i, i+1)
		last = len(a.Cleaners) == 0
	case name != "":
		return a, &InputError{Field: "NAME", Msg: fmt.Sprintf("%s has no named instances", c), Fix: "leave the name out"}
	}
	if last {
		a.Components = slices.DeleteFunc(slices.Clone(a.Components), func(x string) bool { return x == string(c) })
		switch c {
		case Kafka:
			a.Consumers = nil
		case Cleaner:
			a.Cleaners = nil
		case Outbox:
			a.Outbox = OutboxAnswers{}
		case Asynq:
			a.Asynq = AsynqAnswers{}
		}
	}
	if len(a.Components) == 0 {
		return a, &InputError{Field: "components", Msg: "removing it would leave no component", Fix: "delete the service instead"}
	}
	return a, nil
}

func unknownComponent(name string) error {
	return &InputError{Field: "components", Msg: fmt.Sprintf("unknown component %q", name), Fix: "choose from " + strings.Join(ComponentNames(), ",")}
}
