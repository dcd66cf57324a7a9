package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gsgen-dev/gsgen/cmd/gsgen/internal/screen"
	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/generator/textchart"
)

func newPlanCmd(e *env) *cobra.Command {
	var flags *answerFlags
	var colour string
	cmd := &cobra.Command{
		Use:   "plan [DIR]",
		Short: "Check the timeout ladder and print the shutdown budget",
		Long: `Check the timeout ladder (preStop + longest drain + close + margin must fit
in the grace period; batch and task timeouts must fit in their drains) and
print the shutdown budget as a table and a timeline.

The answers come from DIR/gsgen.yaml (the current directory's when it holds
one), from -f FILE, or from the defaults, and flags override them. Exits 2 when the ladder breaks, naming the numbers that
collide and a value that would fit.`,
		Example: `  gsgen plan                    # the service here, or the defaults outside one
  gsgen plan ./orders           # a generated service
  gsgen plan -f gsgen.yaml --grace 45s`,
		Args: argsBetween(0, 1, "at most one DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			scr, err := screen.New(e.stdout, colour, os.Getenv)
			if err != nil {
				return usageError{err}
			}
			// The picture is laid out whole, then coloured and printed.
			var out strings.Builder
			defer func() { io.WriteString(e.stdout, scr.Colour(out.String())) }()
			dir := ""
			if len(args) == 1 {
				if flags.fromFile(cmd.Flags()) {
					return usageError{errors.New("plan takes DIR or -f FILE, not both")}
				}
				dir = args[0]
			} else if !flags.fromFile(cmd.Flags()) {
				if _, err := os.Lstat(answers.AnswersFile); err == nil {
					dir = "." // inside a service: plan it, as regen would
				}
			}
			var m *model.Model
			if dir != "" {
				m, err = serviceModel(dir, func(a answers.Answers) (answers.Answers, error) {
					a, _, err := flags.over(cmd.Flags(), a)
					return a, err
				})
			} else {
				var a answers.Answers
				if a, _, err = flags.answers(cmd.Flags(), e.stdin); err != nil {
					return err
				}
				if a.Name == "" {
					a.Name = "service" // plan is about the timeouts; any valid name will do
				}
				m, err = generator.NewModel(a.WithDefaults())
			}
			var broken *model.LadderError
			switch {
			case errors.As(err, &broken):
				printBudget(&out, broken.Ladder, scr.Cols)
				fmt.Fprintln(&out, "\nladder: BROKEN")
				return err
			case err != nil:
				return err
			}
			printBudget(&out, m.Ladder, scr.Cols)
			if w := m.Deploy.Worker; w != nil {
				fmt.Fprintf(&out, "\n%s\n%s", textchart.Wrap("The asynq worker, cmd/"+w.Name+": its own pod, no preStop, its own grace period", scr.Cols, "", "  "), w.Ladder.TableFit(scr.Cols))
			}
			if t := m.PeriodicTable(); t != "" {
				// Fleet: each tick in the one replica holding the part's lease
				// (gsgen_lease); replica: in every replica.
				fmt.Fprintf(&out, "\n%s%s", textchart.Wrap("Periodic parts (fleet: each tick in one replica, the lease's holder; replica: in every replica)", scr.Cols, "", "  "), t)
			}
			if m.Pool.Default > 0 {
				// The sum breaks between its terms, never inside one.
				sum := textchart.Pack(strings.Split(m.Pool.String(), " + "), " + ", scr.Cols, "    ")
				fmt.Fprintf(&out, "\n%s  %s\n", textchart.Wrap(fmt.Sprintf("PostgreSQL pool (DATABASE_MAX_CONNS): %d by default, at least %d", m.Pool.Default, m.Pool.Min), scr.Cols, "", "  "), sum)
			}
			printWarnings(e, m)
			fmt.Fprintln(&out, "\nladder: ok")
			return nil
		},
	}
	flags = addAnswerFlags(cmd)
	addColourFlag(cmd, &colour)
	return cmd
}

// addColourFlag gives a command that prints pictures its --color flag.
func addColourFlag(cmd *cobra.Command, mode *string) {
	cmd.Flags().StringVar(mode, "color", screen.Auto, "colour what went wrong: `auto` (a terminal without NO_COLOR), always or never")
}

// serviceModel reads the service in dir, answers and SQL of its own (a
// cleaner may name a table of the user's migrations), with override
// applied to its answers.
func serviceModel(dir string, override func(answers.Answers) (answers.Answers, error)) (*model.Model, error) {
	d, err := servicedir.OpenServiceDir(dir, true, nil)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if !d.Exists() {
		return nil, &problem.InputError{Field: "DIR", Msg: fmt.Sprintf("%s does not exist", dir), Fix: "give the directory of a service gsgen generated, or -f FILE"}
	}
	s, err := generator.ReadService(d)
	if err != nil {
		return nil, err
	}
	if s.Answers, err = override(s.Answers); err != nil {
		return nil, err
	}
	return s.Model()
}

// printBudget writes the ladder as a table and a timeline, for cols
// terminal columns (0: no limit).
func printBudget(w io.Writer, l model.Ladder, cols int) {
	fmt.Fprintf(w, "Shutdown budget\n\n%s\nTimeline (from the start of preStop)\n\n%s", l.TableFit(cols), l.TimelineFit(60, cols))
}

// printWarnings writes to stderr what the answers allow at a cost: an
// allowed excess of the ladder, a cleaner no index helps.
func printWarnings(e *env, m *model.Model) {
	for _, w := range m.Warnings() {
		fmt.Fprintln(e.stderr, "gsgen: warning:", w)
	}
}
