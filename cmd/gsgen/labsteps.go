package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/lab"
)

func newLabResetCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "reset [DIR]",
		Short: "Put the lab in DIR back to its planted state",
		Long: `Give every file the lab wrote into DIR (the current directory by default)
its planted bytes again, undoing your edits in one step; files you added are
left, and the hints shown are remembered.`,
		Args: argsBetween(0, 1, "at most one DIR"),
		RunE: func(_ *cobra.Command, args []string) error {
			l, restored, err := lab.Reset(labDir(args))
			if err != nil {
				return err
			}
			for _, p := range restored {
				fmt.Fprintf(e.stdout, "restored  %s\n", p)
			}
			fmt.Fprintf(e.stdout, "lab %d: planted again (%d files restored)\n", l.Number, len(restored))
			return nil
		},
	}
}

func newLabSkipCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "skip [DIR]",
		Short: "Give up on the lab in DIR: its solution may be shown",
		Args:  argsBetween(0, 1, "at most one DIR"),
		RunE: func(_ *cobra.Command, args []string) error {
			dir := labDir(args)
			l, err := lab.Skip(dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "lab %d skipped: gsgen lab solution %s shows the fix\n", l.Number, dir)
			if next, err := lab.Get(l.Number + 1); err == nil {
				fmt.Fprintf(e.stdout, "next: gsgen lab new %d %s (%s, %s)\n", next.Number,
					filepath.Join(filepath.Dir(filepath.Clean(dir)), fmt.Sprintf("lab%d", next.Number)), next.Title, next.Difficulty)
			} else {
				fmt.Fprintln(e.stdout, "that was the last lab")
			}
			return nil
		},
	}
}

func newLabSolutionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "solution [DIR]",
		Short: "Show the fix of the lab in DIR, once every hint was shown (or after skip)",
		Long: `Print the fix of the lab in DIR (the current directory by default) as a
unified diff from the planted files; apply it with patch -p1 or git apply.
Refused until every hint was shown (gsgen lab hint) or the lab was skipped
(gsgen lab skip).`,
		Args: argsBetween(0, 1, "at most one DIR"),
		RunE: func(_ *cobra.Command, args []string) error {
			_, diff, err := lab.Solution(labDir(args))
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(e.stdout, diff)
			return err
		},
	}
}

// refuseLab stops regen, add, remove and upgrade in a lab's directory: they
// would write the planted mistake out of the service along with the
// participant's fix, which is the exercise, unless --force-lab says so.
func refuseLab(dir string, forced bool) error {
	if forced {
		return nil
	}
	fi, err := os.Lstat(filepath.Join(dir, lab.MarkerFile))
	if err != nil || fi.IsDir() {
		return nil // no lab here (a broken marker is lab's own business)
	}
	n := "a lab"
	if l, _, err := lab.Open(dir); err == nil {
		n = fmt.Sprintf("lab %d", l.Number)
	}
	return &problem.InputError{Field: "DIR", Msg: fmt.Sprintf("%s holds %s: regenerating it would write the planted mistake out, and finding it is the exercise", problem.Quote(dir), n),
		Fix: "fix it by hand (gsgen lab hint, gsgen lab check; gsgen lab reset starts over), or pass --force-lab to regenerate anyway"}
}
