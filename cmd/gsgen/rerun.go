package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
	if err := edit(&a); err != nil {
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
		return " (yours, from a removed component: left in place; adapt or delete it)"
	}
	return ""
}

func newAddCmd(e *env) *cobra.Command {
	var rf *rerunFlags
	var settings *settingFlags
	var inst instanceFlags
	cmd := &cobra.Command{
		Use:   "add COMPONENT [NAME]",
		Short: "Add a component to a generated service",
		Long: `Add a component to the service in --dir (default: here) and regenerate it.

kafka and cleaner take a NAME: each named consumer or cleaner is one more
instance. The whole new model is validated (the ladder included) before
anything is written. Files you own are never touched; files gsgen owns that
you edited by hand stop the run with a diff, unless --force.`,
		Example: `  gsgen add cleaner expired-sessions --table sessions --column expires_at --retention 720h
  gsgen add kafka product-events --topic products
  gsgen add asynq --asynq-mode dedicated
  gsgen add outbox --dry-run`,
		Args: argsBetween(1, 2, "COMPONENT and, for kafka and cleaner, a NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c := generator.Component(args[0])
			name := ""
			if len(args) == 2 {
				name = args[1]
			}
			return rerun(e, rf, func(a *generator.Answers) error {
				if err := settings.apply(cmd.Flags(), a); err != nil {
					return err
				}
				i, err := inst.instance(cmd.Flags(), c, name)
				if err != nil {
					return err
				}
				*a, err = a.AddComponent(c, i)
				return err
			})
		},
	}
	rf = addRerunFlags(cmd)
	settings = addSettingFlags(cmd)
	inst.register(cmd.Flags())
	return cmd
}

// instanceFlags describe a new Kafka consumer or cleaner.
type instanceFlags struct {
	topic, group, table, column, key string
	handlerTimeout, retention, every time.Duration
	batch                            int
}

func (f *instanceFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.topic, "topic", "", "kafka: the topic to read (default: NAME)")
	fs.StringVar(&f.group, "group", "", "kafka: the consumer group (default: <service>-NAME)")
	fs.DurationVar(&f.handlerTimeout, "handler-timeout", 0, "kafka: how long one message may take (default 10s); must fit in --worker-drain")
	fs.StringVar(&f.table, "table", "", "cleaner: the table to clean; a migration in db/migrations must create it")
	fs.StringVar(&f.column, "column", "created_at", "cleaner: the timestamp column compared with now() - retention")
	fs.StringVar(&f.key, "key", "", "cleaner: the key column(s) of the keyed delete (default: the table's primary key)")
	fs.DurationVar(&f.retention, "retention", 0, "cleaner: delete rows older than this (default 168h)")
	fs.DurationVar(&f.every, "interval", 0, "cleaner: pause between runs (default 1m)")
	fs.IntVar(&f.batch, "batch", 0, "cleaner: rows per DELETE (default 500)")
}

// instance builds the named instance add needs: a consumer for kafka, a
// cleaner for cleaner, nothing for the others.
func (f *instanceFlags) instance(fs *pflag.FlagSet, c generator.Component, name string) (any, error) {
	if !slices.Contains(generator.AllComponents, c) {
		// Before anything about NAME: "add consumer x" is a wrong component,
		// not a name too many.
		return nil, &generator.InputError{Field: "COMPONENT", Msg: "unknown component " + generator.Quote(string(c)),
			Fix: "choose from " + strings.Join(generator.ComponentNames(), ",") + " (a Kafka consumer is: gsgen add kafka NAME)"}
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"handler-timeout", f.handlerTimeout}, {"retention", f.retention}, {"interval", f.every}} {
		if fs.Changed(d.flag) {
			if err := positive(d.flag, d.v); err != nil {
				return nil, err
			}
		}
	}
	if fs.Changed("batch") {
		if err := positive("batch", f.batch); err != nil {
			return nil, err
		}
	}
	switch c {
	case generator.Kafka:
		if name == "" {
			return nil, usageError{errors.New("add kafka needs a NAME for the consumer, e.g. gsgen add kafka product-events --topic products")}
		}
		return &generator.ConsumerAnswers{Name: name, Topic: f.topic, Group: f.group, HandlerTimeout: generator.Duration(f.handlerTimeout)}, nil
	case generator.Cleaner:
		if name == "" || f.table == "" {
			return nil, usageError{errors.New("add cleaner needs a NAME and --table, e.g. gsgen add cleaner expired-sessions --table sessions --retention 720h")}
		}
		return &generator.CleanerAnswers{Name: name, Table: f.table, Column: f.column, Key: f.key,
			Retention: generator.Duration(f.retention), Interval: generator.Duration(f.every), BatchSize: f.batch}, nil
	}
	if name != "" {
		return nil, usageError{fmt.Errorf("%s has no named instances: leave out %s", generator.Quote(string(c)), generator.Quote(name))}
	}
	return nil, nil
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
		Use:   "remove COMPONENT [NAME]",
		Short: "Remove a component (or one named consumer or cleaner) from a service",
		Long: `Remove a component from the service and regenerate it. The files gsgen owns
for it are deleted; the files you own for it are left in place and listed.`,
		Example: `  gsgen remove cleaner expired-sessions
  gsgen remove asynq --dry-run`,
		Args: argsBetween(1, 2, "COMPONENT and, for kafka and cleaner, optionally a NAME"),
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
