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
)

// rerunFlags are what add, regen and remove share: where the service is,
// whether to write, and whether to overwrite hand edits.
type rerunFlags struct {
	dir    string
	dryRun bool
	force  bool
}

func addRerunFlags(cmd *cobra.Command) *rerunFlags {
	f := &rerunFlags{}
	cmd.Flags().StringVar(&f.dir, "dir", ".", "the service's directory (where gsgen.yaml is)")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "print a unified diff of every change; write nothing")
	cmd.Flags().BoolVar(&f.force, "force", false, "overwrite files gsgen owns even if they were edited by hand (says which)")
	return f
}

// rerun reads the service, lets edit change its answers, regenerates and
// writes (or, with --dry-run, shows) the changes.
func rerun(e *env, f *rerunFlags, edit func(*generator.Answers) error) error {
	return rerunService(e, f, func(_ *generator.Service, a *generator.Answers) error { return edit(a) })
}

// rerunService is rerun with the service at hand, for an edit that checks
// answers against it (its own SQL included).
func rerunService(e *env, f *rerunFlags, edit func(*generator.Service, *generator.Answers) error) error {
	// The lock is held for the whole read-modify-write: a second run waits,
	// then reads what this one wrote.
	d, err := generator.OpenServiceDir(f.dir, f.dryRun, e.say)
	if err != nil {
		return err
	}
	defer d.Close()
	svc, err := d.ReadService()
	if err != nil {
		return err
	}
	a := svc.Answers
	if err := edit(svc, &a); err != nil {
		return err
	}
	m, changes, err := svc.Regenerate(a.WithDefaults(), f.force)
	var edited *generator.HandEditError
	if errors.As(err, &edited) {
		fmt.Fprint(e.stdout, edited.Diffs)
	}
	if err != nil {
		return err
	}
	printWarnings(e, m)
	if f.dryRun {
		fmt.Fprint(e.stdout, changes.Diff())
		fmt.Fprintf(e.stdout, "dry run: nothing written to %s\n", f.dir)
		return nil
	}
	if err := d.Apply(changes); err != nil {
		return err
	}
	for _, c := range changes {
		if c.Action != generator.Identical && c.Action != generator.Keep {
			fmt.Fprintf(e.stdout, "%-9s %s%s\n", c.Action, c.Path, rerunNote(c))
		}
	}
	return nil
}

// rerunNote explains a change that needs more than its action.
func rerunNote(c generator.Change) string {
	switch {
	case c.HandEdited && c.Action == generator.Delete:
		return " (your hand edit is gone: --force)"
	case c.HandEdited:
		return " (your hand edit is overwritten: --force)"
	case c.Action == generator.Skip:
		return " (yours, and you deleted it: not brought back)"
	case c.Action == generator.Leave:
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
			err := rerunService(e, rf, func(svc *generator.Service, a *generator.Answers) error {
				before = a.Components
				if err := settings.apply(cmd.Flags(), a); err != nil {
					return err
				}
				if kind == "" {
					// Nothing named: ask, as gsgen new does.
					ask, ok := asker(e, accessible)
					if !ok {
						return &generator.InputError{Field: "KIND", Msg: "no KIND given, and stdin is not a terminal, so gsgen cannot ask",
							Fix: "name it: gsgen add KIND [NAME], KIND one of " + strings.Join(generator.KindNames(), ", ") + " (e.g. " + addExample[generator.Worker] + "), or pass --accessible to answer line by line on stdin"}
					}
					added, err := prompt.AddInterview(ask, *a, rf.dir, svc.ModelOf)
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
			if err == nil && kind == string(generator.Task) && !slices.Contains(before, string(generator.Asynq)) {
				fmt.Fprintln(e.stdout, "added asynq too: a task type needs a task server (asynq.mode in gsgen.yaml says where it runs)")
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
// a worker, a task type.
type instanceFlags struct {
	topic, group, table, column, key, queue   string
	handlerTimeout, retention, every, timeout time.Duration
	batch, maxRetry                           int
}

func (f *instanceFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.topic, "topic", "", "kafka: the topic to read (default: NAME)")
	fs.StringVar(&f.group, "group", "", "kafka: the consumer group (default: <service>-NAME)")
	fs.DurationVar(&f.handlerTimeout, "handler-timeout", 0, "kafka: how long one message may take (default 10s); must fit in --worker-drain")
	fs.StringVar(&f.table, "table", "", "cleaner: the table to clean; a migration in db/migrations must create it")
	fs.StringVar(&f.column, "column", "created_at", "cleaner: the timestamp column compared with now() - retention")
	fs.StringVar(&f.key, "key", "", "cleaner: the key column(s) of the keyed delete (default: the table's primary key)")
	fs.DurationVar(&f.retention, "retention", 0, "cleaner: delete rows older than this (default 168h; 336h on processed_event)")
	fs.DurationVar(&f.every, "interval", 0, "cleaner, worker: pause between runs (default 1m)")
	fs.IntVar(&f.batch, "batch", 0, "cleaner: rows per DELETE (default 500)")
	fs.DurationVar(&f.timeout, "timeout", 0, "worker: how long one run may take (default 10s), within --worker-drain; task: one attempt (default --task-timeout), within --asynq-shutdown")
	fs.StringVar(&f.queue, "queue", "", "task: its asynq queue (default: default); give queues priorities under asynq.queues in gsgen.yaml")
	fs.IntVar(&f.maxRetry, "max-retry", 0, "task: retries of a failing task (default 5)")
}

// add returns a with what add KIND [NAME] adds, built from the flags.
func (f *instanceFlags) add(fs *pflag.FlagSet, a generator.Answers, kind, name string) (generator.Answers, error) {
	k := generator.KindNamed(kind)
	if k == nil {
		// Before anything about NAME: "add consumer x" is a wrong kind, not a
		// name too many.
		return a, &generator.InputError{Field: "KIND", Msg: "unknown kind " + generator.Quote(kind),
			Fix: "choose from " + strings.Join(generator.KindNames(), ", ") + " (a Kafka consumer is: gsgen add kafka NAME)"}
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"handler-timeout", f.handlerTimeout}, {"retention", f.retention}, {"interval", f.every}, {"timeout", f.timeout}} {
		if fs.Changed(d.flag) {
			if err := positive(d.flag, d.v); err != nil {
				return a, err
			}
		}
	}
	for _, n := range []struct {
		flag string
		v    int
	}{{"batch", f.batch}, {"max-retry", f.maxRetry}} {
		if fs.Changed(n.flag) {
			if err := positive(n.flag, n.v); err != nil {
				return a, err
			}
		}
	}
	if k.Instances == nil {
		if name != "" {
			return a, usageError{fmt.Errorf("%s has no named instances: leave out %s", generator.Quote(kind), generator.Quote(name))}
		}
		return a.AddComponent(k.Name)
	}
	if name == "" {
		return a, usageError{fmt.Errorf("add %s needs a %s, e.g. %s", kind, map[bool]string{true: "TYPE", false: "NAME"}[k.Name == generator.Task], addExample[k.Name])}
	}
	switch k.Name {
	case generator.Kafka:
		return a.AddConsumer(generator.ConsumerAnswers{Name: name, Topic: f.topic, Group: f.group, HandlerTimeout: generator.Duration(f.handlerTimeout)})
	case generator.Cleaner:
		if f.table == "" {
			return a, usageError{errors.New("add cleaner needs --table, e.g. " + addExample[k.Name])}
		}
		return a.AddCleaner(generator.CleanerAnswers{Name: name, Table: f.table, Column: f.column, Key: f.key,
			Retention: generator.Duration(f.retention), Interval: generator.Duration(f.every), BatchSize: f.batch})
	case generator.Worker:
		if !fs.Changed("interval") {
			return a, usageError{errors.New("add worker needs --interval, how often it runs, e.g. " + addExample[k.Name])}
		}
		return a.AddWorker(generator.WorkerAnswers{Name: name, Interval: generator.Duration(f.every), Timeout: generator.Duration(f.timeout)})
	case generator.Task:
		if !fs.Changed("timeout") {
			return a, usageError{errors.New("add task needs --timeout, how long one attempt may take, e.g. " + addExample[k.Name])}
		}
		return a.AddTask(generator.TaskAnswers{Type: name, Timeout: generator.Duration(f.timeout), Queue: f.queue, MaxRetry: f.maxRetry})
	}
	return a, fmt.Errorf("gsgen cannot add a %s yet", kind) // a kind with instances and no case above: a gsgen bug
}

// addExample is a whole add command for each kind with named instances.
var addExample = map[generator.Component]string{
	generator.Kafka:   "gsgen add kafka product-events --topic products",
	generator.Cleaner: "gsgen add cleaner expired-sessions --table sessions --retention 720h",
	generator.Worker:  "gsgen add worker nightly-report --interval 24h",
	generator.Task:    "gsgen add task report:build --timeout 20s",
}

func newRegenCmd(e *env) *cobra.Command {
	var rf *rerunFlags
	cmd := &cobra.Command{
		Use:   "regen [DIR]",
		Short: "Regenerate a service from its gsgen.yaml",
		Long: `Re-render the service from its gsgen.yaml: after you edited the answers, or
with a newer gsgen. Files gsgen owns are rewritten (or removed when no longer
planned); files you own are never touched; a file gsgen owns that you edited
by hand stops the run with a diff, unless --force.`,
		Example: `  gsgen regen
  gsgen regen ./orders --dry-run`,
		Args: argsBetween(0, 1, "at most one DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				rf.dir = args[0]
			}
			return rerun(e, rf, func(*generator.Answers) error { return nil })
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
			return rerun(e, rf, func(a *generator.Answers) (err error) {
				*a, err = a.RemoveComponent(generator.Component(args[0]), name)
				return err
			})
		},
	}
	rf = addRerunFlags(cmd)
	return cmd
}
