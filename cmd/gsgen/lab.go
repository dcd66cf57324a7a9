package main

import (
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gsgen-dev/gsgen/lab"
)

// labFailed is lab check's result when the mistake is still there: exit 1.
type labFailed struct{ n int }

func (e labFailed) Error() string {
	return fmt.Sprintf("lab %d: the check fails: the mistake is still there (gsgen lab hint for a hint)", e.n)
}

func newLabCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Workshop labs: services with one planted shutdown mistake each",
		Long: `Labs for a workshop on background work and graceful shutdown. Each lab is a
service gsgen generates with exactly one mistake planted, the kind the design
rules exist to prevent; its LAB.md says what production showed, not what is
wrong. Find it, fix it, and gsgen lab check says whether it is gone: it runs
the service's tests that demonstrate the failure (PostgreSQL and Redis as the
service's README says; Kafka in-process) and gsgen vet where a rule applies.`,
		Example: `  gsgen lab list
  gsgen lab new 1 ./lab1
  cd lab1 && gsgen lab check
  gsgen lab hint`,
		// Without a subcommand, the help; an unknown one is a usage error.
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return usageError{fmt.Errorf("unknown command %q for gsgen lab; choose list, new, check, hint, reset, skip or solution (see gsgen lab --help)", args[0])}
		},
	}
	cmd.AddCommand(newLabListCmd(e), newLabNewCmd(e), newLabCheckCmd(e), newLabHintCmd(e), newLabResetCmd(e), newLabSkipCmd(e), newLabSolutionCmd(e))
	return cmd
}

func newLabListCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the labs: number, title and difficulty, one per line",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			for _, l := range lab.Labs {
				fmt.Fprintf(w, "%d\t%s\t%s\n", l.Number, l.Title, l.Difficulty)
			}
			return w.Flush()
		},
	}
}

func newLabNewCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "new N DIR",
		Short: "Write lab N's service into DIR (missing or empty)",
		Long: `Write lab N's service into DIR, which must not exist or be empty: the service
gsgen generates, with the lab's mistake planted, its LAB.md (the symptom) and
` + lab.MarkerFile + ` (which lab it is, and the hints shown).`,
		Example: `  gsgen lab new 3 ./lab3`,
		Args:    exactArgs(2, "two arguments, the lab's number and the directory"),
		RunE: func(_ *cobra.Command, args []string) error {
			n, err := strconv.Atoi(args[0])
			if err != nil {
				return usageError{fmt.Errorf("lab number %q is not a number; gsgen lab list shows them", args[0])}
			}
			l, err := lab.Get(n)
			if err != nil {
				return err
			}
			if err := lab.New(l, args[1]); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "lab %d (%s) written to %s\nread %s/%s, then: cd %s && gsgen lab check\n",
				l.Number, l.Difficulty, args[1], args[1], lab.ReadmeFile, args[1])
			return nil
		},
	}
}

func labDir(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return "."
}

func newLabCheckCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "check [DIR]",
		Short: "Check whether the lab's mistake is fixed",
		Long: `Run the check of the lab in DIR (the current directory by default): the
service's tests that demonstrate its mistake, and gsgen vet where a rule
applies. Exits 0 when the mistake is fixed, 1 while it is not, 2 when DIR
holds no lab.`,
		Args: argsBetween(0, 1, "at most one DIR"),
		RunE: func(_ *cobra.Command, args []string) error {
			dir := labDir(args)
			l, _, err := lab.Open(dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "lab %d: %s\n", l.Number, l.Title)
			ok, err := lab.Check(l, dir, e.stdout, nil)
			if err != nil {
				return err
			}
			if !ok {
				return labFailed{l.Number}
			}
			fmt.Fprintf(e.stdout, "lab %d: fixed: the check passes\n", l.Number)
			return nil
		},
	}
}

func newLabHintCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "hint [DIR]",
		Short: "Show the next hint of the lab in DIR",
		Long: `Show the next hint of the lab in DIR (the current directory by default), one
at a time: each run shows one more, and ` + lab.MarkerFile + ` remembers how
many were shown. After the last, it shows the last again.`,
		Args: argsBetween(0, 1, "at most one DIR"),
		RunE: func(_ *cobra.Command, args []string) error {
			l, n, hint, more, err := lab.NextHint(labDir(args))
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "lab %d, hint %d of %d: %s\n", l.Number, n, len(l.Hints), hint)
			if !more {
				fmt.Fprintln(e.stdout, "that was the last hint")
			}
			return nil
		},
	}
}
