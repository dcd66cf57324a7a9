package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/gsgen-dev/gsgen/cmd/gsgen/internal/prompt"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Exit codes. exitCode picks one from the error's type; README.md lists them.
const (
	exitOK       = 0
	exitFailure  = 1 // anything unexpected: a template bug
	exitFindings = 1 // gsgen vet found something (like go vet)
	exitBadInput = 2 // usage, validation, ladder, target directory, packages vet cannot load
	exitIO       = 3 // the file system refused a read or a write
	exitLocked   = 4 // another gsgen run kept the service locked: run again later
	exitJournal  = 5 // an interrupted write is left that this run could not settle
	// Ctrl+C at a prompt, before anything is written: 128 + SIGINT, as shells
	// report it. Other signals at a prompt exit 128 + their number.
	exitInterrupted = 130
)

// say tells the user, on stderr, what gsgen does besides the command: that
// it waits for another run, or finished a write an interrupted run left.
func (e *env) say(msg string) { fmt.Fprintln(e.stderr, "gsgen:", msg) }

// usageError is a command line that cannot be run as given.
type usageError struct{ error }

// env is what the commands read from the outside world, so tests can drive them.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	interactive    bool // stdin is a terminal someone can answer on
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, interactive: isTerminal(stdin)}
	err := e.execute(args)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "gsgen:", shortenEchoes(err.Error(), args))
	return exitCode(err)
}

// execute runs the command args name and returns its error, as run reports it.
func (e *env) execute(args []string) error {
	root := newRootCmd(e)
	root.SetArgs(args)
	root.DisableSuggestions = true // unknownCommand suggests, on the same line
	err := root.Execute()
	if err != nil && unknownCommand(root, args) {
		err = usageError{fmt.Errorf("unknown command %s; %s", problem.Quote(args[0]), suggest(root, args[0]))}
	}
	return err
}

// exitCode is the exit status for err, decided by its type alone. A journal
// error may wrap the I/O error that left the journal, so it is asked first.
func exitCode(err error) int {
	var interrupted *prompt.Interrupted
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &interrupted):
		return interrupted.ExitCode()
	case errors.As(err, new(findingsError)), errors.As(err, new(labFailed)):
		return exitFindings
	case errors.As(err, new(*problem.JournalError)):
		return exitJournal
	case errors.As(err, new(*problem.LockError)):
		return exitLocked
	case errors.As(err, new(*problem.IOError)):
		return exitIO
	case errors.As(err, new(*problem.InputError)), errors.As(err, new(usageError)):
		return exitBadInput
	}
	return exitFailure
}

// suggest names the commands close to an unknown one.
func suggest(root *cobra.Command, name string) string {
	root.SuggestionsMinimumDistance = 2
	if s := root.SuggestionsFor(name); len(s) > 0 {
		return "did you mean " + strings.Join(s, " or ") + "? See gsgen --help"
	}
	return "see gsgen --help"
}

// unknownCommand reports whether args name no command: cobra says so with
// a plain error, which is a usage error all the same. (Asked after Execute,
// which adds the help and completion commands.)
func unknownCommand(root *cobra.Command, args []string) bool {
	_, _, err := root.Find(args)
	return err != nil
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "gsgen",
		Short: "Scaffold Go services whose parts start and stop in the right order",
		Long: `gsgen writes a complete Go backend service — HTTP server, outbox relay, asynq
worker, Kafka consumers, cleaners — whose main.go starts and stops every part
in the right order, with Kubernetes timeouts that agree with the Go code.`,
		Example: `  gsgen new ./orders --yes
  gsgen new ./orders --components http --grace 90s --http-shutdown 40s --yes
  gsgen plan ./orders
  gsgen vet ./...`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{shortFlagError(err)} })
	root.AddCommand(newNewCmd(e), newAddCmd(e), newRegenCmd(e), newUpgradeCmd(e), newRemoveCmd(e), newPlanCmd(e), newTimelineCmd(e), newVetCmd(e), newLabCmd(e), newDoctorCmd(e), newVersionCmd(e))
	return root
}

// exactArgs is cobra.ExactArgs whose error is a usage error (exit 2).
func exactArgs(n int, what string) cobra.PositionalArgs { return argsBetween(n, n, what) }

// argsBetween is cobra.RangeArgs whose error is a usage error (exit 2) that
// says what the command takes.
func argsBetween(min, max int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || len(args) > max {
			return usageError{fmt.Errorf("%s takes %s (got %d arguments); see %s --help", cmd.CommandPath(), what, len(args), cmd.CommandPath())}
		}
		return nil
	}
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	// A character device is not enough: /dev/null is one, and a script
	// running gsgen </dev/null has nobody to answer.
	return isatty.IsTerminal(f.Fd())
}
