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
// others. Adding what exists is an error, never a duplicate. A component
// that brings a table the defaults clean (kafka's processed_event) to a
// service whose cleaners are listed joins its default cleaner to them.
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
		a.Components = withComponent(a.Components, c)
		a.Cleaners = withDefaultCleanerOf(a.Cleaners, c)
	}
	return a, nil
}

// withDefaultCleanerOf adds the default cleaner of the tables component c
// brings, when cleaners are listed and none of them cleans that table yet.
// Kafka implies a cleaner (componentDefaults): when no cleaner is listed,
// the defaults bring it; when some are, the answers' list would keep it out.
func withDefaultCleanerOf(cleaners []CleanerAnswers, c Component) []CleanerAnswers {
	if c != Kafka || len(cleaners) == 0 {
		return cleaners
	}
	for _, t := range gsgenTables {
		cleaned := slices.ContainsFunc(cleaners, func(x CleanerAnswers) bool { return x.Table == t.name })
		if t.from == c && !cleaned && indexNamed(cleaners, t.cleaner) < 0 {
			cleaners = append(slices.Clone(cleaners), t.defaultCleaner())
		}
	}
	return cleaners
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
		a.Components = withoutComponent(a.Components, c)
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
		a.Cleaners = withoutCleanersOf(a.Cleaners, c)
		if len(a.Cleaners) == 0 && c != Cleaner && slices.Contains(a.Components, string(Cleaner)) {
			// Its cleaners were the only ones: the cleaner component goes too,
			// or the defaults would give it cleaners of the tables left.
			a.Components = withoutComponent(a.Components, Cleaner)
		}
	}
	if len(a.Components) == 0 {
		return a, &InputError{Field: "components", Msg: "removing it would leave no component", Fix: "delete the service instead"}
	}
	if c == Cleaner && len(a.Cleaners) == 0 && slices.Contains(a.Components, string(Kafka)) {
		// Kafka implies a cleaner of processed_event (componentDefaults): the
		// next run would bring it back, so removing it cannot stick.
		return a, &InputError{Field: "cleaners", Msg: "a service with kafka keeps at least one cleaner: without one, processed_event grows by a row per event forever, and gsgen would add its default cleaner back on the next run",
			Fix: "to keep processed events longer, raise the cleaner's retention in gsgen.yaml and run gsgen regen; to clean your own table instead, gsgen add cleaner NAME --table TABLE first"}
	}
	return a, nil
}

func withoutComponent(list []string, c Component) []string {
	return slices.DeleteFunc(slices.Clone(list), func(x string) bool { return x == string(c) })
}

// withoutCleanersOf drops the cleaners of the tables component c brings:
// with c gone, its migration and its tables are gone.
func withoutCleanersOf(cleaners []CleanerAnswers, c Component) []CleanerAnswers {
	return slices.DeleteFunc(slices.Clone(cleaners), func(x CleanerAnswers) bool {
		t, ok := gsgenTableNamed(x.Table)
		return ok && t.from == c
	})
}

func unknownComponent(name string) error {
	return &InputError{Field: "components", Msg: "unknown component " + Quote(name), Fix: "choose from " + strings.Join(ComponentNames(), ",")}
}
