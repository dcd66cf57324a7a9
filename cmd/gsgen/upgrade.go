package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

func newUpgradeCmd(e *env) *cobra.Command {
	var dir, conflicts string
	var forceLab bool
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "upgrade [DIR]",
		Short: "Bring a service to this gsgen's templates, merging them with your edits",
		Long: `Re-render the service from its gsgen.yaml with this gsgen, and bring every
file to it: a file you did not edit gets gsgen's new version (yours and gsgen's
alike); a file you edited is merged three ways — what gsgen wrote last (kept in
gsgen.base), the file as it is, gsgen's new version — so your edits and gsgen's
changes both stay. Where both changed the same lines, nothing is written: the
conflicts are listed and gsgen exits 1, unless --conflicts=markers, which writes
them with diff3 markers for you to resolve. A file gsgen no longer writes is
removed only if you never edited it. An older gsgen.yaml is brought to this
gsgen's format, saying what changed, and the changes to the generated code since
the gsgen that wrote the service are listed.`,
		Example: `  gsgen upgrade --dry-run
  gsgen upgrade ./orders
  gsgen upgrade ./orders --conflicts=markers`,
		Args: argsBetween(0, 1, "at most one DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				dir = args[0]
			}
			if conflicts != "stop" && conflicts != "markers" {
				return usageError{fmt.Errorf("--conflicts is stop or markers, not %s", problem.Quote(conflicts))}
			}
			if err := refuseLab(dir, forceLab); err != nil {
				return err
			}
			return upgrade(e, dir, dryRun, conflicts == "markers")
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "the service's directory (where gsgen.yaml is)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the plan and a unified diff of every change, merges included; write nothing")
	cmd.Flags().BoolVar(&forceLab, "force-lab", false, "run in a lab's directory too, undoing its planted mistake")
	cmd.Flags().StringVar(&conflicts, "conflicts", "stop", "on a conflict: stop (write nothing, list them, exit 1) or markers (write diff3 markers to resolve, exit 1)")
	return cmd
}

// conflictsLeft is an upgrade that wrote conflict markers: done, but the
// service does not build until they are resolved (exit 1).
type conflictsLeft struct{ files []generator.FileConflict }

func (c conflictsLeft) Error() string {
	var paths []string
	for _, f := range c.files {
		paths = append(paths, f.Path)
	}
	return fmt.Sprintf("written, with conflict markers in %s: the service will not build until you resolve them (search for <<<<<<<; keep what you want of each side, delete the marker lines), then go build ./... && go test ./...", strings.Join(paths, ", "))
}

// upgrade is gsgen upgrade: read the service (its gsgen.yaml migrated),
// render and merge, then show or write.
func upgrade(e *env, dir string, dryRun, markers bool) error {
	d, err := servicedir.OpenServiceDir(dir, dryRun, e.say)
	if err != nil {
		return err
	}
	defer d.Close()
	svc, notes, err := generator.ReadServiceToUpgrade(d)
	if err != nil {
		return err
	}
	u, err := svc.Upgrade(svc.Answers.WithDefaults(), notes, markers)
	var conflict *generator.ConflictError
	if err != nil && !errors.As(err, &conflict) {
		return err
	}
	printUpgradeHeader(e, svc.Answers.Name, u)
	printWarnings(e, u.Model)
	for _, c := range u.Changes {
		if c.Action != servicedir.Identical {
			fmt.Fprintf(e.stdout, "%-9s %s%s\n", c.Action, c.Path, upgradeNote(c))
		}
	}
	if len(u.Conflicts) > 0 {
		fmt.Fprint(e.stdout, "\n"+u.ConflictList())
	}
	if dryRun {
		fmt.Fprint(e.stdout, "\n"+u.Changes.Diff())
		fmt.Fprintf(e.stdout, "dry run: nothing written to %s\n", dir)
		return err // a conflict still exits 1: the real run would stop
	}
	if err != nil {
		return err
	}
	if err := d.Apply(u.Changes); err != nil {
		return err
	}
	if len(u.Conflicts) > 0 {
		return conflictsLeft{u.Conflicts}
	}
	return nil
}

func printUpgradeHeader(e *env, name string, u *generator.Upgrade) {
	from := "a gsgen before " + generator.BaseSince + " (it kept no record of what it wrote: an edited file whose gsgen version changed is a conflict)"
	if u.From != "" {
		from = "gsgen " + u.From
	}
	fmt.Fprintf(e.stdout, "%s: written by %s; upgrading to gsgen %s\n", name, from, generator.Version)
	if changes := generator.ChangesSince(u.From); len(changes) > 0 {
		fmt.Fprintln(e.stdout, "\nWhat changed in the generated code since:")
		for _, c := range changes {
			fmt.Fprintf(e.stdout, "  %s %s: %s\n", c.Version, c.Part, c.Change)
		}
	}
	if len(u.Notes) > 0 {
		fmt.Fprintln(e.stdout, "\ngsgen.yaml:")
		for _, n := range u.Notes {
			fmt.Fprintln(e.stdout, "  "+n)
		}
	}
	fmt.Fprintln(e.stdout)
}

func upgradeNote(c servicedir.Change) string {
	if c.Note != "" {
		return " (" + c.Note + ")"
	}
	return rerunNote(c)
}
