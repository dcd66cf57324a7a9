package answers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// AddComponent returns a with component c, one without named instances
// (http, outbox, asynq), added; AddConsumer, AddCleaner, AddWorker and
// AddTask add a named instance. Adding what exists is an error, never a
// duplicate.
func (a Answers) AddComponent(c Component) (Answers, error) {
	k := kindNamed(string(c))
	switch {
	case k == nil || !k.Chosen:
		return a, UnknownComponent(string(c))
	case k.Instances != nil:
		return a, &problem.InputError{Field: "NAME", Msg: fmt.Sprintf("a %s needs a name", k.Instances.Noun), Fix: fmt.Sprintf("gsgen add %s NAME", c)}
	case slices.Contains(a.Components, string(c)):
		return a, &problem.InputError{Field: "components", Msg: fmt.Sprintf("the service already has %s", c), Fix: "nothing to add; edit gsgen.yaml and run gsgen regen to change its settings"}
	}
	return a.withComponent(c), nil
}

// AddConsumer returns a with one more Kafka consumer (and kafka).
func (a Answers) AddConsumer(c ConsumerAnswers) (Answers, error) {
	return addInstance(a, Kafka, func(a *Answers) *[]ConsumerAnswers { return &a.Consumers }, c)
}

// AddCleaner returns a with one more cleaner (and the cleaner component).
func (a Answers) AddCleaner(c CleanerAnswers) (Answers, error) {
	return addInstance(a, Cleaner, func(a *Answers) *[]CleanerAnswers { return &a.Cleaners }, c)
}

// AddWorker returns a with one more periodic worker.
func (a Answers) AddWorker(w WorkerAnswers) (Answers, error) {
	return addInstance(a, Worker, func(a *Answers) *[]WorkerAnswers { return &a.Workers }, w)
}

// AddTask returns a with one more task type, and asynq when the service
// has no task server yet.
func (a Answers) AddTask(t TaskAnswers) (Answers, error) {
	a, err := addInstance(a, Task, func(a *Answers) *[]TaskAnswers { return &a.Tasks }, t)
	if err == nil && !slices.Contains(a.Components, string(Asynq)) {
		a = a.withComponent(Asynq)
	}
	return a, err
}

// addInstance appends inst to the list of kind k in a, and k's component
// when k is one.
func addInstance[T named](a Answers, k Component, list func(*Answers) *[]T, inst T) (Answers, error) {
	kind := kindNamed(string(k))
	l := list(&a)
	if indexNamed(*l, inst.instanceName()) >= 0 {
		return a, &problem.InputError{Field: kind.Instances.Field, Msg: fmt.Sprintf("the service already has a %s named %s", kind.Instances.Noun, problem.Quote(inst.instanceName())), Fix: "choose another name"}
	}
	*l = append(slices.Clone(*l), inst)
	if kind.Chosen && !slices.Contains(a.Components, string(k)) {
		a = a.withComponent(k)
	}
	return a, nil
}

// withComponent returns a with component c listed, and the default cleaner
// of the tables c brings when cleaners are listed.
func (a Answers) withComponent(c Component) Answers {
	a.Components = withComponent(a.Components, c)
	a.Cleaners = withDefaultCleanerOf(a.Cleaners, c)
	return a
}

// withDefaultCleanerOf adds the default cleaner of the tables component c
// brings, when cleaners are listed and none of them cleans that table yet.
// Kafka implies a cleaner (the kafka kind's defaults): when no cleaner is
// listed, the defaults bring it; when some are, the answers' list would
// keep it out.
func withDefaultCleanerOf(cleaners []CleanerAnswers, c Component) []CleanerAnswers {
	if c != Kafka || len(cleaners) == 0 {
		return cleaners
	}
	for _, t := range OwnTables {
		cleaned := slices.ContainsFunc(cleaners, func(x CleanerAnswers) bool { return x.Table == t.Name })
		if t.From == c && !cleaned && indexNamed(cleaners, t.Cleaner) < 0 {
			cleaners = append(slices.Clone(cleaners), t.DefaultCleaner())
		}
	}
	return cleaners
}

// RemoveComponent returns a without kind c. For a kind with named
// instances a name removes that one instance (a component goes with its
// last one); no name removes them all. The kind's Forget drops the rest
// of its answers, or refuses (asynq while task types run on it); what
// joins two kinds is here: a kind's cleaners of its tables go with it, and
// kafka keeps a cleaner.
func (a Answers) RemoveComponent(c Component, name string) (Answers, error) {
	k := kindNamed(string(c))
	if k == nil {
		return a, UnknownComponent(string(c))
	}
	inst := k.Instances
	switch {
	case k.Chosen && !slices.Contains(a.Components, string(c)):
		return a, &problem.InputError{Field: "components", Msg: fmt.Sprintf("the service has no %s", c), Fix: "it has " + strings.Join(a.Components, ",")}
	case inst == nil && name != "":
		return a, &problem.InputError{Field: "NAME", Msg: fmt.Sprintf("%s has no named instances", c), Fix: "leave the name out"}
	case !k.Chosen && name == "":
		return a, &problem.InputError{Field: "NAME", Msg: fmt.Sprintf("remove %s needs the %s's name", c, inst.Noun), Fix: fmt.Sprintf("gsgen remove %s NAME; the service has %s", c, listOrNone(inst.names(a)))}
	}
	last := true
	if name != "" {
		if !slices.Contains(inst.names(a), name) {
			return a, &problem.InputError{Field: inst.Field, Msg: fmt.Sprintf("no %s named %s", inst.Noun, problem.Quote(name)), Fix: "the service has " + listOrNone(inst.names(a))}
		}
		inst.drop(&a, name)
		last = len(inst.names(a)) == 0
	}
	if !k.Chosen {
		return a, nil
	}
	if last {
		a.Components = withoutComponent(a.Components, c)
		if inst != nil {
			inst.clear(&a)
		}
		if k.Forget != nil {
			if err := k.Forget(&a); err != nil {
				return a, err
			}
		}
		a.Cleaners = withoutCleanersOf(a.Cleaners, c)
		if len(a.Cleaners) == 0 && c != Cleaner && slices.Contains(a.Components, string(Cleaner)) {
			// Its cleaners were the only ones: the cleaner component goes too,
			// or the defaults would give it cleaners of the tables left.
			a.Components = withoutComponent(a.Components, Cleaner)
		}
	}
	if len(a.Components) == 0 {
		return a, &problem.InputError{Field: "components", Msg: "removing it would leave no component", Fix: "delete the service instead"}
	}
	if c == Cleaner && len(a.Cleaners) == 0 && slices.Contains(a.Components, string(Kafka)) {
		// Kafka implies a cleaner of processed_event (the kafka kind's
		// defaults): the next run would bring it back, so removing it cannot
		// stick.
		return a, &problem.InputError{Field: "cleaners", Msg: "a service with kafka keeps at least one cleaner: without one, processed_event grows by a row per event forever, and gsgen would add its default cleaner back on the next run",
			Fix: "to keep processed events longer, raise the cleaner's retention in gsgen.yaml and run gsgen regen; to clean your own table instead, gsgen add cleaner NAME --table TABLE first"}
	}
	return a, nil
}

// listOrNone lists names for a message, or says there are none.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func withoutComponent(list []string, c Component) []string {
	return slices.DeleteFunc(slices.Clone(list), func(x string) bool { return x == string(c) })
}

// withoutCleanersOf drops the cleaners of the tables component c brings:
// with c gone, its migration and its tables are gone.
func withoutCleanersOf(cleaners []CleanerAnswers, c Component) []CleanerAnswers {
	return slices.DeleteFunc(slices.Clone(cleaners), func(x CleanerAnswers) bool {
		t, ok := OwnTableNamed(x.Table)
		return ok && t.From == c
	})
}
