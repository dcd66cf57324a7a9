package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gsgen-dev/gsgen/cmd/gsgen/internal/prompt"
	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// rerunFlags are what add, regen and remove share: where the service is,
// whether to write, and whether to overwrite hand edits.
type rerunFlags struct {
	dir      string
	dryRun   bool
	force    bool
	forceLab bool
}

func addRerunFlags(cmd *cobra.Command) *rerunFlags {
	f := &rerunFlags{}
	cmd.Flags().StringVar(&f.dir, "dir", ".", "the service's directory (where gsgen.yaml is)")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "print a unified diff of every change; write nothing")
	cmd.Flags().BoolVar(&f.force, "force", false, "overwrite files gsgen owns even if they were edited by hand (says which)")
	cmd.Flags().BoolVar(&f.forceLab, "force-lab", false, "run in a lab's directory too, undoing its planted mistake")
	return f
}

// rerun reads the service, lets edit change its answers, regenerates and
// writes (or, with --dry-run, shows) the changes.
func rerun(e *env, f *rerunFlags, edit func(*answers.Answers) error) error {
	_, err := rerunService(e, f, func(_ *generator.Service, a *answers.Answers) error { return edit(a) })
	return err
}

// rerunService is rerun with the service at hand, for an edit that checks
// answers against it (its own SQL included). It returns the changes
// written; none on a dry run.
func rerunService(e *env, f *rerunFlags, edit func(*generator.Service, *answers.Answers) error) (servicedir.Changes, error) {
	if err := refuseLab(f.dir, f.forceLab); err != nil {
		return nil, err
	}
	// The lock is held for the whole read-modify-write: a second run waits,
	// then reads what this one wrote.
	d, err := servicedir.OpenServiceDir(f.dir, f.dryRun, e.say)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	svc, err := generator.ReadService(d)
	if err != nil {
		return nil, err
	}
	a := svc.Answers
	if err := edit(svc, &a); err != nil {
		return nil, err
	}
	m, changes, err := svc.Regenerate(a.WithDefaults(), f.force)
	var edited *generator.HandEditError
	if errors.As(err, &edited) {
		fmt.Fprint(e.stdout, edited.Diffs)
	}
	if err != nil {
		return nil, err
	}
	printWarnings(e, m)
	if f.dryRun {
		fmt.Fprint(e.stdout, changes.Diff())
		fmt.Fprintf(e.stdout, "dry run: nothing written to %s\n", f.dir)
		return nil, nil
	}
	if err := d.Apply(changes); err != nil {
		return nil, err
	}
	for _, c := range changes {
		if c.Action != servicedir.Identical && c.Action != servicedir.Keep {
			fmt.Fprintf(e.stdout, "%-9s %s%s\n", c.Action, c.Path, rerunNote(c))
		}
	}
	return changes, nil
}

// printAddNextSteps says what to do after an add: fill in the files it
// created for the user (a handler, a function), then run the tests.
func printAddNextSteps(e *env, dir string, changes servicedir.Changes) {
	var yours []string
	for _, c := range changes {
		if c.Action == servicedir.Create && c.Owner == render.OwnedByUser {
			yours = append(yours, c.Path)
		}
	}
	fmt.Fprintln(e.stdout, "\nNext steps:")
	if len(yours) > 0 {
		fmt.Fprintf(e.stdout, "  fill in %s (yours: gsgen never overwrites them)\n", strings.Join(yours, ", "))
	} else {
		fmt.Fprintln(e.stdout, "  nothing to fill in: gsgen wrote all of it (gsgen.yaml holds its settings)")
	}
	if dir != "." {
		fmt.Fprintf(e.stdout, "  %s\n", shellJoin("cd", dir))
	}
	fmt.Fprintln(e.stdout, "  make test")
}

// rerunNote explains a change that needs more than its action.
func rerunNote(c servicedir.Change) string {
	switch {
	case c.HandEdited && c.Action == servicedir.Delete:
		return " (your hand edit is gone: --force)"
	case c.HandEdited:
		return " (your hand edit is overwritten: --force)"
	case c.Action == servicedir.Skip:
		return " (yours, and you deleted it: not brought back)"
	case c.Action == servicedir.Leave:
		return " (yours, and what used it is removed: left in place; adapt or delete it)"
	}
	return ""
}

func newAddCmd(e *env) *cobra.Command {
	var rf *rerunFlags
	var settings *settingFlags
	var inst instanceFlags
	var accessible bool
	cmd := &cobra.Command{
		Use:   "add KIND [NAME]",
		Short: "Add a component, a worker or a task type to a generated service",
		Long: `Add to the service in --dir (default: here) and regenerate it.

KIND is a component (http, outbox, asynq, kafka, cleaner), worker (a
periodic Run loop of gsgen's calling a function of yours) or task (an asynq
task type: your handler, gsgen's registration and enqueue helper; it adds
asynq when the service has none). kafka, cleaner and worker take a NAME,
task its TYPE. The whole new model is validated (the ladder included) before
anything is written. Files you own are never touched; files gsgen owns that
you edited by hand stop the run with a diff, unless --force.`,
		Example: `  gsgen add worker nightly-report --interval 24h --timeout 15s
  gsgen add worker weekly-digest --cron "0 9 * * 1" --timezone Europe/Paris
  gsgen add worker warm-cache --interval 5m --scope replica
  gsgen add task report:build --timeout 20s --queue reports --max-retry 3
  gsgen add cleaner expired-sessions --table sessions --column expires_at --retention 720h
  gsgen add kafka product-events --topic products
  gsgen add asynq --asynq-mode dedicated
  gsgen add outbox --dry-run`,
		Args: argsBetween(0, 2, "KIND and, for kafka, cleaner, worker and task, a NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, name := "", ""
			if len(args) > 0 {
				kind = args[0]
			}
			if len(args) == 2 {
				name = args[1]
			}
			var before []string
			changes, err := rerunService(e, rf, func(svc *generator.Service, a *answers.Answers) error {
				before = a.Components
				if err := settings.apply(cmd.Flags(), a); err != nil {
					return err
				}
				if kind == "" {
					// Nothing named: ask, as gsgen new does.
					if err := inst.checkKind(cmd.Flags(), ""); err != nil {
						return err
					}
					ask, ok := asker(e, accessible)
					if !ok {
						return &problem.InputError{Field: "KIND", Msg: "no KIND given, and stdin is not a terminal, so gsgen cannot ask",
							Fix: "name it: gsgen add KIND [NAME], KIND one of " + strings.Join(model.KindNames(), ", ") + " (e.g. " + addExample[answers.Worker] + "), or pass --accessible to answer line by line on stdin"}
					}
					added, err := prompt.AddInterview(ask, *a, absOrSame(rf.dir), svc.ModelOf)
					if cerr := ask.Close(); err == nil {
						err = cerr
					}
					if err != nil {
						return err
					}
					kind, *a = added.Kind, added.Answers
					return nil
				}
				var err error
				*a, err = inst.add(cmd.Flags(), *a, kind, name)
				return err
			})
			if err == nil && kind == string(answers.Task) && !slices.Contains(before, string(answers.Asynq)) {
				fmt.Fprintln(e.stdout, "added asynq too: a task type needs a task server (asynq.mode in gsgen.yaml says where it runs)")
			}
			if err == nil && !rf.dryRun {
				printAddNextSteps(e, rf.dir, changes)
			}
			return err
		},
	}
	rf = addRerunFlags(cmd)
	settings = addSettingFlags(cmd)
	inst.register(cmd.Flags())
	cmd.Flags().BoolVar(&accessible, "accessible", false, "without KIND: ask with plain numbered prompts, one answer per line of stdin")
	return cmd
}

// instanceFlags describe a new named instance: a Kafka consumer, a cleaner,
// a worker, a task type. Each flag belongs to the kinds instanceFlagKinds
// lists, and add refuses it on any other: a flag that is not used must not
// look as if it were.
type instanceFlags struct {
	topic, group, table, column, key, queue   string
	handlerTimeout, retention, every, timeout time.Duration
	batch, maxRetry                           int
	cron, timezone, scope                     string
	leaseTTL                                  time.Duration
	set                                       *pflag.FlagSet // the flags above, and only them
}

// instanceFlagKinds lists the kinds each instance flag is for
// (TestEveryInstanceFlagHasItsKinds holds every flag of register to it).
var instanceFlagKinds = map[string][]answers.Component{
	"topic":           {answers.Kafka},
	"group":           {answers.Kafka},
	"handler-timeout": {answers.Kafka},
	"table":           {answers.Cleaner},
	"column":          {answers.Cleaner},
	"key":             {answers.Cleaner},
	"retention":       {answers.Cleaner},
	"batch":           {answers.Cleaner},
	"interval":        {answers.Cleaner, answers.Worker},
	"timeout":         {answers.Worker, answers.Task},
	"queue":           {answers.Task},
	"max-retry":       {answers.Task},
	"cron":            {answers.Worker},
	"timezone":        {answers.Worker},
	"scope":           {answers.Cleaner, answers.Worker},
	"lease-ttl":       {answers.Cleaner, answers.Worker},
}

func (f *instanceFlags) register(into *pflag.FlagSet) {
	fs := pflag.NewFlagSet("instance", pflag.ContinueOnError)
	fs.StringVar(&f.topic, "topic", "", "kafka: the topic to read (default: NAME)")
	fs.StringVar(&f.group, "group", "", "kafka: the consumer group (default: <service>-NAME)")
	fs.DurationVar(&f.handlerTimeout, "handler-timeout", 0, "kafka: how long one message may take (default 10s); must fit in --worker-drain")
	fs.StringVar(&f.table, "table", "", "cleaner: the table to clean; a migration in db/migrations must create it")
	fs.StringVar(&f.column, "column", "created_at", "cleaner: the timestamp column compared with now() - retention")
	fs.StringVar(&f.key, "key", "", "cleaner: the key column(s) of the keyed delete (default: the table's primary key)")
	fs.DurationVar(&f.retention, "retention", 0, "cleaner: delete rows older than this (default 168h; 336h on processed_event)")
	fs.DurationVar(&f.every, "interval", 0, "cleaner, worker: time between runs (default 1m)")
	fs.StringVar(&f.cron, "cron", "", `worker: run at the times of a cron schedule instead of --interval: five fields ("30 2 * * *") or @hourly, @daily, @weekly, @every 90s`)
	fs.StringVar(&f.timezone, "timezone", "", "worker: the time zone of --cron, an IANA name (default UTC)")
	fs.StringVar(&f.scope, "scope", "", "cleaner, worker: fleet runs each tick in one replica, the holder of a lease in PostgreSQL (default); replica in every replica")
	fs.DurationVar(&f.leaseTTL, "lease-ttl", 0, "cleaner, worker: with --scope fleet, how long a killed replica's lease outlives it (default 15s)")
	fs.IntVar(&f.batch, "batch", 0, "cleaner: rows per DELETE (default 500)")
	fs.DurationVar(&f.timeout, "timeout", 0, "worker: how long one run may take (default 10s), within --worker-drain; task: one attempt (default --task-timeout), within --asynq-shutdown")
	fs.StringVar(&f.queue, "queue", "", "task: its asynq queue (default: default); give queues priorities under asynq.queues in gsgen.yaml")
	fs.IntVar(&f.maxRetry, "max-retry", 0, "task: retries of a failing task (default 5; 0 for none)")
	into.AddFlagSet(fs)
	f.set = fs
}

// checkKind refuses an instance flag given for a kind it is not for, or
// for no kind ("": gsgen add asks).
func (f *instanceFlags) checkKind(fs *pflag.FlagSet, kind answers.Component) error {
	var err error
	f.set.VisitAll(func(flag *pflag.Flag) {
		kinds := instanceFlagKinds[flag.Name]
		if err != nil || !fs.Changed(flag.Name) || slices.Contains(kinds, kind) {
			return
		}
		var of []string
		for _, k := range kinds {
			of = append(of, "add "+string(k))
		}
		if kind == "" {
			err = usageError{fmt.Errorf("--%s is a flag of %s, and the questions would not use it: name the KIND (e.g. gsgen add %s NAME --%s ...), or leave it out", flag.Name, strings.Join(of, " and "), kinds[0], flag.Name)}
			return
		}
		err = usageError{fmt.Errorf("--%s is a flag of %s, not of add %s: leave it out (gsgen add --help says which flag is for which kind)", flag.Name, strings.Join(of, " and "), kind)}
	})
	return err
}

// add returns a with what add KIND [NAME] adds, built from the flags.
func (f *instanceFlags) add(fs *pflag.FlagSet, a answers.Answers, kind, name string) (answers.Answers, error) {
	k := model.KindNamed(kind)
	if k == nil {
		// Before anything about NAME: "add consumer x" is a wrong kind, not a
		// name too many.
		return a, &problem.InputError{Field: "KIND", Msg: "unknown kind " + problem.Quote(kind),
			Fix: "choose from " + strings.Join(model.KindNames(), ", ") + " (a Kafka consumer is: gsgen add kafka NAME)"}
	}
	if err := f.checkKind(fs, k.Name); err != nil {
		return a, err
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"handler-timeout", f.handlerTimeout}, {"retention", f.retention}, {"interval", f.every}, {"timeout", f.timeout}, {"lease-ttl", f.leaseTTL}} {
		if fs.Changed(d.flag) {
			if err := positive(d.flag, d.v); err != nil {
				return a, err
			}
		}
	}
	for _, n := range []struct {
		flag string
		v    int
	}{{"batch", f.batch}} {
		if fs.Changed(n.flag) {
			if err := positive(n.flag, n.v); err != nil {
				return a, err
			}
		}
	}
	if k.Instances == nil {
		if name != "" {
			return a, usageError{fmt.Errorf("%s has no named instances: leave out %s", problem.Quote(kind), problem.Quote(name))}
		}
		return a.AddComponent(k.Name)
	}
	if name == "" {
		return a, usageError{fmt.Errorf("add %s needs a %s, e.g. %s", kind, map[bool]string{true: "TYPE", false: "NAME"}[k.Name == answers.Task], addExample[k.Name])}
	}
	switch k.Name {
	case answers.Kafka:
		return a.AddConsumer(answers.ConsumerAnswers{Name: name, Topic: f.topic, Group: f.group, HandlerTimeout: answers.Duration(f.handlerTimeout)})
	case answers.Cleaner, answers.Worker:
		if f.scope == answers.ScopeReplica && fs.Changed("lease-ttl") {
			return a, usageError{errors.New("--lease-ttl is the TTL of a fleet-scoped part's lease; --scope replica takes none: leave one out")}
		}
	}
	switch k.Name {
	case answers.Cleaner:
		if f.table == "" {
			return a, usageError{errors.New("add cleaner needs --table, e.g. " + addExample[k.Name])}
		}
		return a.AddCleaner(answers.CleanerAnswers{Name: name, Table: f.table, Column: f.column, Key: f.key,
			Retention: answers.Duration(f.retention), Interval: answers.Duration(f.every), BatchSize: f.batch,
			Scope: f.scope, LeaseTTL: answers.Duration(f.leaseTTL)})
	case answers.Worker:
		switch {
		case fs.Changed("interval") && fs.Changed("cron"):
			return a, usageError{errors.New("add worker takes --interval or --cron, not both: --interval D runs every D, --cron EXPR at the times it names")}
		case !fs.Changed("interval") && !fs.Changed("cron"):
			return a, usageError{errors.New("add worker needs --interval or --cron, when it runs, e.g. " + addExample[k.Name] + ", or --cron @daily")}
		case fs.Changed("timezone") && !fs.Changed("cron"):
			return a, usageError{errors.New("--timezone is the time zone of --cron: give --cron with it, or leave it out")}
		}
		return a.AddWorker(answers.WorkerAnswers{Name: name, Interval: answers.Duration(f.every), Cron: f.cron, Timezone: f.timezone,
			Timeout: answers.Duration(f.timeout), Scope: f.scope, LeaseTTL: answers.Duration(f.leaseTTL)})
	case answers.Task:
		if !fs.Changed("timeout") {
			return a, usageError{errors.New("add task needs --timeout, how long one attempt may take, e.g. " + addExample[k.Name])}
		}
		var retries *int // not given: the default
		if fs.Changed("max-retry") {
			if f.maxRetry < 0 {
				return a, &problem.InputError{Field: "--max-retry", Msg: fmt.Sprintf("%d is negative", f.maxRetry), Fix: "give 0 (never retried) or more, or leave it out for the default 5"}
			}
			retries = answers.Retries(f.maxRetry)
		}
		return a.AddTask(answers.TaskAnswers{Type: name, Timeout: answers.Duration(f.timeout), Queue: f.queue, MaxRetry: retries})
	}
	return a, fmt.Errorf("gsgen cannot add a %s yet", kind) // a kind with instances and no case above: a gsgen bug
}

// addExample is a whole add command for each kind with named instances.
var addExample = map[answers.Component]string{
	answers.Kafka:   "gsgen add kafka product-events --topic products",
	answers.Cleaner: "gsgen add cleaner expired-sessions --table sessions --retention 720h",
	answers.Worker:  "gsgen add worker nightly-report --interval 24h",
	answers.Task:    "gsgen add task report:build --timeout 20s",
}

func newRegenCmd(e *env) *cobra.Command {
	var rf *rerunFlags
	cmd := &cobra.Command{
		Use:   "regen [DIR]",
		Short: "Regenerate a service from its gsgen.yaml",
		Long: `Re-render the service from its gsgen.yaml: after you edited the answers, or
with a newer gsgen. Files gsgen owns are rewritten (or removed when no longer
planned); files you own are never touched; a file gsgen owns that you edited
by hand stops the run with a diff, and what gsgen upgrade's three-way merge
would make of it, unless --force. To take a newer gsgen into files you
edited, yours included, use gsgen upgrade.`,
		Example: `  gsgen regen
  gsgen regen ./orders --dry-run`,
		Args: argsBetween(0, 1, "at most one DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				rf.dir = args[0]
			}
			return rerun(e, rf, func(*answers.Answers) error { return nil })
		},
	}
	rf = addRerunFlags(cmd)
	return cmd
}

func newRemoveCmd(e *env) *cobra.Command {
	var rf *rerunFlags
	cmd := &cobra.Command{
		Use:   "remove KIND [NAME]",
		Short: "Remove a component, a worker or a task type (or one named consumer or cleaner) from a service",
		Long: `Remove from the service and regenerate it. The files gsgen owns for it are
deleted; the files you own for it are left in place and listed.`,
		Example: `  gsgen remove worker nightly-report
  gsgen remove task report:build
  gsgen remove cleaner expired-sessions
  gsgen remove asynq --dry-run`,
		Args: argsBetween(1, 2, "KIND and, for kafka and cleaner, optionally a NAME; for worker and task, the NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 2 {
				name = args[1]
			}
			return rerun(e, rf, func(a *answers.Answers) (err error) {
				*a, err = a.RemoveComponent(answers.Component(args[0]), name)
				return err
			})
		},
	}
	rf = addRerunFlags(cmd)
	return cmd
}
