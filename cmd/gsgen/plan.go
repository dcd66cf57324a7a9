package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gsgen-dev/gsgen/generator"
)

func newPlanCmd(e *env) *cobra.Command {
	var flags *answerFlags
	cmd := &cobra.Command{
		Use:   "plan [DIR]",
		Short: "Check the timeout ladder and print the shutdown budget",
		Long: `Check the timeout ladder (preStop + longest drain + close + margin must fit
in the grace period; batch and task timeouts must fit in their drains) and
print the shutdown budget as a table and a timeline.

The answers come from DIR/gsgen.yaml, from -f FILE, or from the defaults, and
flags override them. Exits 2 when the ladder breaks, naming the numbers that
collide and a value that would fit.`,
		Example: `  gsgen plan                    # the defaults
  gsgen plan ./orders           # a generated service
  gsgen plan -f gsgen.yaml --grace 45s`,
		Args: argsBetween(0, 1, "at most one DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if flags.file != "" {
					return usageError{errors.New("plan takes DIR or -f FILE, not both")}
				}
				flags.file = filepath.Join(args[0], "gsgen.yaml")
				if _, err := os.Stat(flags.file); err != nil {
					return &generator.InputError{Field: "DIR", Msg: fmt.Sprintf("%s has no gsgen.yaml", args[0]), Fix: "give the directory of a service gsgen generated, or -f FILE"}
				}
			}
			a, _, err := flags.answers(cmd.Flags())
			if err != nil {
				return err
			}
			if a.Name == "" {
				a.Name = "service" // plan is about the timeouts; any valid name will do
			}
			m, err := generator.NewModel(a.WithDefaults())
			var broken *generator.LadderError
			switch {
			case errors.As(err, &broken):
				printBudget(e, broken.Ladder)
				fmt.Fprintln(e.stdout, "\nladder: BROKEN")
				return err
			case err != nil:
				return err
			}
			printBudget(e, m.Ladder)
			if w := m.Deploy.Worker; w != nil {
				fmt.Fprintf(e.stdout, "\nThe asynq worker, cmd/%s: its own pod, no preStop, its own grace period\n\n%s", w.Name, w.Ladder.Table())
			}
			if m.Pool.Default > 0 {
				fmt.Fprintf(e.stdout, "\nPostgreSQL pool (DATABASE_MAX_CONNS): %d by default, at least %d\n  %s\n", m.Pool.Default, m.Pool.Min, m.Pool)
			}
			printWarnings(e, m.Ladder)
			fmt.Fprintln(e.stdout, "\nladder: ok")
			return nil
		},
	}
	flags = addAnswerFlags(cmd)
	return cmd
}

func printBudget(e *env, l generator.Ladder) {
	fmt.Fprintf(e.stdout, "Shutdown budget\n\n%s\nTimeline (from the start of preStop)\n\n%s", l.Table(), l.Timeline(60))
}

// printWarnings writes each allowed excess of the ladder to stderr.
func printWarnings(e *env, l generator.Ladder) {
	for _, w := range l.Warnings() {
		fmt.Fprintln(e.stderr, "gsgen: warning:", w)
	}
}
