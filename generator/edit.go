package generator

import (
	"fmt"
	"slices"
	"strings"
)

// named is a named instance in the answers: a Kafka consumer or a cleaner.
type named interface{ instanceName() string }

func (c ConsumerAnswers) instanceName() string { return c.Name }
func (c CleanerAnswers) instanceName() string  { return c.Name }

func indexNamed[T named](list []T, name string) int {
	return slices.IndexFunc(list, func(x T) bool { return x.instanceName() == name })
}

// addNamed appends inst to list unless an instance of that name exists.
func addNamed[T named](list []T, inst T, field, kind string) ([]T, error) {
	if indexNamed(list, inst.instanceName()) >= 0 {
		return nil, &InputError{Field: field, Msg: fmt.Sprintf("the service already has a %s named %s", kind, Quote(inst.instanceName())), Fix: "choose another name"}
	}
	return append(slices.Clone(list), inst), nil
}

// removeNamed removes the instance called name from list.
func removeNamed[T named](list []T, name, field, kind string) ([]T, error) {
	i := indexNamed(list, name)
	if i < 0 {
		return nil, &InputError{Field: field, Msg: fmt.Sprintf("no %s named %s", kind, Quote(name)), Fix: "see " + field + ": in gsgen.yaml"}
	}
	return slices.Delete(slices.Clone(list), i, i+1), nil
}

// AddComponent returns a with component c added: for kafka and cleaner, the
// named instance inst (a *ConsumerAnswers or *CleanerAnswers) joins the
// others. Adding what exists is an error, never a duplicate.
func (a Answers) AddComponent(c Component, inst any) (Answers, error) {
	if !slices.Contains(AllComponents, c) {
		return a, unknownComponent(string(c))
	}
	has := slices.Contains(a.Components, string(c))
	var err error
	switch c {
	case Kafka:
		a.Consumers, err = addNamed(a.Consumers, *inst.(*ConsumerAnswers), "kafka", "consumer")
	case Cleaner:
		a.Cleaners, err = addNamed(a.Cleaners, *inst.(*CleanerAnswers), "cleaners", "cleaner")
	default:
		if has {
			err = &InputError{Field: "components", Msg: fmt.Sprintf("the service already has %s", c), Fix: "nothing to add; edit gsgen.yaml and run gsgen regen to change its settings"}
		}
	}
	if err != nil {
		return a, err
	}
	if !has {
		a.Components = append(slices.Clone(a.Components), string(c))
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
	var err error
	last := true
	switch {
	case name != "" && c == Kafka:
		a.Consumers, err = removeNamed(a.Consumers, name, "kafka", "consumer")
		last = len(a.Consumers) == 0
	case name != "" && c == Cleaner:
		a.Cleaners, err = removeNamed(a.Cleaners, name, "cleaners", "cleaner")
		last = len(a.Cleaners) == 0
	case name != "":
		err = &InputError{Field: "NAME", Msg: fmt.Sprintf("%s has no named instances", c), Fix: "leave the name out"}
	}
	if err != nil {
		return a, err
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
	return &InputError{Field: "components", Msg: "unknown component " + Quote(name), Fix: "choose from " + strings.Join(ComponentNames(), ",")}
}
