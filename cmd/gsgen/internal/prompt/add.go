package prompt

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
)

// Added is what AddInterview settled: the kind, the new instance's name
// (empty for a component without instances) and the answers with it added.
type Added struct {
	Kind    string
	Name    string
	Answers answers.Answers
}

// AddInterview asks what to add to the service whose answers are a: the
// kind (a component it lacks, or one more named instance), the name, the
// kind's settings. model validates answers as the service will (its own SQL
// included), and each answer is checked as it is typed. It returns once the
// user confirms adding it to the service in dir (shown as given: pass it
// absolute, so the question names the directory).
func AddInterview(ask Asker, a answers.Answers, dir string, newModel func(answers.Answers) (*model.Model, error)) (Added, error) {
	iv := &interview{ask: ask, a: a.Clone(), asked: map[string]question{}, model: newModel, boundsNow: true}
	var opts []Option
	for _, k := range model.Kinds {
		if k.Instances == nil && iv.has(k.Name) {
			continue // one of them is all a service can have
		}
		opts = append(opts, Option{string(k.Name), k.What})
	}
	kind, err := ask.ChooseOne(Choice{Title: "What to add", Help: "a component the service lacks, or one more named part", Options: opts}, opts[0].Value)
	if err != nil {
		return Added{}, err
	}
	k := model.KindNamed(kind)
	added := Added{Kind: kind}
	if k.Instances == nil {
		if iv.a, err = iv.a.AddComponent(k.Name); err != nil {
			return Added{}, err
		}
		if k.Name == answers.Asynq {
			if err := iv.asynq(); err != nil {
				return Added{}, err
			}
		}
	} else {
		if added.Name, err = iv.addInstance(k); err != nil {
			return Added{}, err
		}
	}
	m, err := iv.model(iv.defaults())
	if err != nil {
		return Added{}, err // the ladder: the command reports it as flags would
	}
	what := kind
	if added.Name != "" {
		what += " " + added.Name
	}
	ask.Say(fmt.Sprintf("Service %s with %s: %s\n\nShutdown budget\n%s", m.Name, what, strings.Join(m.Answers.Components, ", "), m.Ladder.Table()))
	ok, err := ask.Confirm(fmt.Sprintf("Add %s to the service %s in %s?", what, m.Name, dir), true)
	switch {
	case err != nil:
		return Added{}, err
	case !ok:
		return Added{}, ErrDeclined
	}
	added.Answers = iv.a
	return added, nil
}

// addInstance asks for the name and settings of one more instance of k and
// adds it to the answers; it returns the name.
func (iv *interview) addInstance(k *model.Kind) (string, error) {
	// The service as it is, before the new instance: what a new cleaner is
	// offered comes from its schema and its cleaners.
	service, err := iv.model(iv.defaults())
	if err != nil {
		return "", err
	}
	title := map[bool]string{true: "Task type", false: strings.ToUpper(k.Instances.Noun[:1]) + k.Instances.Noun[1:] + " name"}[k.Name == answers.Task]
	i := len(k.Instances.Names(iv.a))
	field := fmt.Sprintf("%s[%d]", k.Instances.Field, i)
	q := question{field: field + "." + map[bool]string{true: "type", false: "name"}[k.Name == answers.Task], title: title,
		help: nameHelp[k.Name],
		set: func(a *answers.Answers, s string) error {
			var err error
			*a, err = add(*a, k.Name, s)
			return err
		}}
	// The name is set on a copy until it is accepted: Text checks it, then
	// the interview adds it once.
	s, err := iv.ask.Text(Text{Title: q.title, Help: q.help, Check: func(s string) error {
		candidate := iv.a.Clone()
		if err := q.set(&candidate, s); err != nil {
			return err
		}
		return iv.fieldError(candidate, q.field, k.Instances.Field)
	}})
	if err != nil {
		return "", err
	}
	if iv.a, err = add(iv.a, k.Name, s); err != nil {
		return "", err
	}
	if table, column, ok := service.CleanerTarget(); ok && k.Name == answers.Cleaner {
		iv.a.Cleaners[i].Table, iv.a.Cleaners[i].Column = table, column // a table no cleaner cleans yet
	}
	for _, q := range iv.settings(k, i, service) {
		if err := iv.text(q); err != nil {
			return "", err
		}
	}
	return s, nil
}

// parseSchedule sets a worker's schedule from one answer: a duration is
// an interval, anything else a cron schedule (the generator checks it).
func parseSchedule(s string, w *answers.WorkerAnswers) error {
	s = strings.TrimSpace(s)
	if _, err := time.ParseDuration(s); err == nil {
		w.Cron = ""
		return parseDuration(s, &w.Interval)
	}
	w.Interval, w.Cron = 0, s
	return nil
}

// add adds an instance of kind named name, with its defaults to be asked.
func add(a answers.Answers, kind answers.Component, name string) (answers.Answers, error) {
	switch kind {
	case answers.Kafka:
		return a.AddConsumer(answers.ConsumerAnswers{Name: name})
	case answers.Cleaner:
		// A table is needed to validate the name; it is asked next.
		return a.AddCleaner(answers.NewCleaner(a, name))
	case answers.Worker:
		return a.AddWorker(answers.WorkerAnswers{Name: name})
	case answers.Task:
		return a.AddTask(answers.TaskAnswers{Type: name})
	}
	return a, fmt.Errorf("gsgen cannot ask for a %s yet", kind)
}

var nameHelp = map[answers.Component]string{
	answers.Kafka:   "names its Run loop, files and env vars (KAFKA_<NAME>_...); lower case, digits and '-'",
	answers.Cleaner: "names its Run loop, query and env vars (CLEANER_<NAME>_...); lower case, digits and '-'",
	answers.Worker:  "names its Run loop, your function's file and env vars (WORKER_<NAME>_...); lower case, digits and '-'",
	answers.Task:    "its name in Redis, words joined by ':', e.g. report:build",
}

// settings are the questions of a new instance i of k, each offering what
// the defaults give; a cleaner's column, the timestamp column of the table
// answered before it in the service (as it was before the addition).
func (iv *interview) settings(k *model.Kind, i int, service *model.Model) []question {
	d := iv.defaults()
	switch k.Name {
	case answers.Kafka:
		c := d.Consumers[i]
		return []question{{field: fmt.Sprintf("kafka[%d].topic", i), title: "Topic", def: c.Topic, help: "the topic it reads in its consumer group",
			set: func(a *answers.Answers, s string) error { a.Consumers[i].Topic = s; return nil }}}
	case answers.Cleaner:
		c := d.Cleaners[i]
		return []question{
			{field: fmt.Sprintf("cleaners[%d].table", i), title: "Table", def: c.Table, help: "the table to clean: gsgen's or one your migrations create",
				set: func(a *answers.Answers, s string) error { a.Cleaners[i].Table = s; return nil }},
			{field: fmt.Sprintf("cleaners[%d].column", i), title: "Timestamp column", help: "rows whose column is older than the retention are deleted",
				offer: func() string {
					table := iv.a.Cleaners[i].Table
					return cmp.Or(service.TimestampColumnOf(table), answers.TimestampColumn(table, c.Column))
				},
				set: func(a *answers.Answers, s string) error { a.Cleaners[i].Column = s; return nil }},
			{field: fmt.Sprintf("cleaners[%d].retention", i), title: "Retention", def: c.Retention.String(), help: "how long rows are kept, e.g. 168h for a week",
				set: func(a *answers.Answers, s string) error { return parseDuration(s, &a.Cleaners[i].Retention) }},
		}
	case answers.Worker:
		w := d.Workers[i]
		field := fmt.Sprintf("workers[%d]", i)
		cron := func() bool { return iv.a.Workers[i].Cron != "" }
		return []question{
			{field: field + ".interval", also: []string{field, field + ".cron"}, title: "Schedule", def: w.Interval.String(),
				help: `an interval between two runs (1h), or a cron schedule ("30 2 * * *", @daily)`,
				set:  func(a *answers.Answers, s string) error { return parseSchedule(s, &a.Workers[i]) }},
			{field: field + ".timezone", title: "Time zone", def: "UTC", help: "of the cron schedule, e.g. Europe/Paris",
				when: cron,
				set:  func(a *answers.Answers, s string) error { a.Workers[i].Timezone = s; return nil }},
			{field: field + ".timeout", title: "Timeout", def: w.Timeout.String(),
				help: fmt.Sprintf("how long one run may take; at most the worker drain (%v)", d.Timeouts.WorkerDrain),
				set:  func(a *answers.Answers, s string) error { return parseDuration(s, &a.Workers[i].Timeout) }},
			{field: field + ".scope", title: "Scope", def: w.Scope,
				help: answers.ScopeFleet + ": each run in one replica, under a lease in PostgreSQL; " + answers.ScopeReplica + ": in every replica",
				set:  func(a *answers.Answers, s string) error { a.Workers[i].Scope = s; return nil }},
			{field: field + ".lease_ttl", title: "Lease TTL", def: answers.DefaultLeaseTTL.String(),
				help: "how long a killed replica's lease keeps the others from running it",
				when: func() bool { return iv.a.Workers[i].Scope == answers.ScopeFleet },
				set:  func(a *answers.Answers, s string) error { return parseDuration(s, &a.Workers[i].LeaseTTL) }},
		}
	case answers.Task:
		t := d.Tasks[i]
		return []question{
			{field: fmt.Sprintf("tasks[%d].timeout", i), title: "Timeout", def: t.Timeout.String(),
				help: fmt.Sprintf("one attempt, in whole seconds; at least %v under asynq's shutdown timeout (%v)", model.TaskMargin, d.Timeouts.AsynqShutdown),
				set:  func(a *answers.Answers, s string) error { return parseDuration(s, &a.Tasks[i].Timeout) }},
			{field: fmt.Sprintf("tasks[%d].queue", i), title: "Queue", def: t.Queue, help: "the asynq queue it goes to",
				set: func(a *answers.Answers, s string) error { a.Tasks[i].Queue = s; return nil }},
			{field: fmt.Sprintf("tasks[%d].max_retry", i), title: "Max retry", def: fmt.Sprint(*t.MaxRetry), help: "retries of a failing task (0: never retried)",
				set: func(a *answers.Answers, s string) error { return parseRetries(s, &a.Tasks[i].MaxRetry) }},
		}
	}
	return nil
}
