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

// printRemoveNextSteps says what to do after a remove that left files of
// the user's in place: what called them is gone, and go.mod requires only
// the modules gsgen's own files import, so they may no longer build as
// they are. A remove that left none needs nothing more.
func printRemoveNextSteps(e *env, dir string, changes servicedir.Changes) {
	var left []string
	for _, c := range changes {
		if c.Action == servicedir.Leave {
			left = append(left, c.Path)
		}
	}
	if len(left) == 0 {
		return
	}
	fmt.Fprintln(e.stdout, "\nNext steps:")
	them, they := "it", "it imports"
	if len(left) > 1 {
		them, they = "them", "they import"
	}
	fmt.Fprintf(e.stdout, "  adapt or delete %s: what used %s is removed, and go.mod no longer requires a module only %s\n", strings.Join(left, ", "), them, they)
	if dir != "." {
		fmt.Fprintf(e.stdout, "  %s\n", shellJoin("cd", dir))
	}
	fmt.Fprintln(e.stdout, "  go build ./... && make test")
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
							Fix: "name it: gsgen add KIND [NAME], KIND one of " + strings.Join(model.KindNames(), ", ") + " (e.g. " + model.KindNamed(string(answers.Worker)).AddExample + "), or pass --accessible to answer line by line on stdin"}
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

// instanceFlags are the flags of a new named instance (gsgen add KIND
// NAME): each kind's (model.Kind.AddFlags), registered once by name. add
// refuses a flag on any kind that does not take it: a flag that is not used
// must not look as if it were.
type instanceFlags struct {
	set   *pflag.FlagSet                 // the flags of every kind, and only them
	kinds map[string][]answers.Component // the kinds that take each
}

func (f *instanceFlags) register(into *pflag.FlagSet) {
	fs := pflag.NewFlagSet("instance", pflag.ContinueOnError)
	for _, k := range model.Kinds {
		for _, fl := range k.AddFlags() {
			if fs.Lookup(fl.Name) != nil {
				continue // another kind's too: registered with the first
			}
			usage := model.AddFlagUsage(fl.Name)
			switch fl.Type {
			case "duration":
				fs.Duration(fl.Name, 0, usage)
			case "int":
				fs.Int(fl.Name, 0, usage)
			default:
				fs.String(fl.Name, fl.Default, usage)
			}
		}
	}
	into.AddFlagSet(fs)
	f.set, f.kinds = fs, model.AddFlagKinds()
}

// checkKind refuses an instance flag given for a kind it is not for, or
// for no kind ("": gsgen add asks).
func (f *instanceFlags) checkKind(fs *pflag.FlagSet, kind answers.Component) error {
	var err error
	f.set.VisitAll(func(flag *pflag.Flag) {
		kinds := f.kinds[flag.Name]
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
	values := flagValues{fs}
	for _, fl := range k.AddFlags() {
		if !fl.Positive || !fs.Changed(fl.Name) {
			continue
		}
		var err error
		if fl.Type == "int" {
			err = positive(fl.Name, values.Int(fl.Name))
		} else {
			err = positive(fl.Name, values.Duration(fl.Name))
		}
		if err != nil {
			return a, err
		}
	}
	if k.Instances == nil {
		if name != "" {
			return a, usageError{fmt.Errorf("%s has no named instances: leave out %s", problem.Quote(kind), problem.Quote(name))}
		}
		return a.AddComponent(k.Name)
	}
	if name == "" {
		return a, usageError{fmt.Errorf("add %s needs a %s, e.g. %s", kind, map[bool]string{true: "TYPE", false: "NAME"}[k.Name == answers.Task], k.AddExample)}
	}
	a, err := k.AddFromFlags(a, name, values)
	if usage := (*model.AddUsageError)(nil); errors.As(err, &usage) {
		return a, usageError{usage}
	}
	return a, err
}

// flagValues reads gsgen add's instance flags for a kind (model.AddFlagValues).
type flagValues struct{ fs *pflag.FlagSet }

func (v flagValues) Changed(name string) bool { return v.fs.Changed(name) }

func (v flagValues) String(name string) string {
	s, _ := v.fs.GetString(name) // the flag is registered, of this type
	return s
}

func (v flagValues) Duration(name string) time.Duration {
	d, _ := v.fs.GetDuration(name)
	return d
}

func (v flagValues) Int(name string) int {
	n, _ := v.fs.GetInt(name)
	return n
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
			changes, err := rerunService(e, rf, func(_ *generator.Service, a *answers.Answers) (err error) {
				*a, err = a.RemoveComponent(answers.Component(args[0]), name)
				return err
			})
			if err == nil && !rf.dryRun {
				printRemoveNextSteps(e, rf.dir, changes)
			}
			return err
		},
	}
	rf = addRerunFlags(cmd)
	return cmd
}
