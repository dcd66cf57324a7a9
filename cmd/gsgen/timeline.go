package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/gsgen-dev/gsgen/cmd/gsgen/internal/screen"
	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/timeline"
)

func newTimelineCmd(e *env) *cobra.Command {
	var dir, svg, colour string
	var force bool
	cmd := &cobra.Command{
		Use:   "timeline [LOGFILE]",
		Short: "Draw a real shutdown from a service's log against its budget",
		Long: `Read the JSON log a generated service writes to stderr (LOGFILE, or stdin
when there is none or it is "-"), find its last shutdown, and draw what really
happened: each step and part with its real start and duration, against the
budget of the service's gsgen.yaml (in --dir, the current directory by
default), in the style of gsgen plan's timeline. The log of the dedicated
asynq worker (<name>-worker) is drawn against the worker's own ladder.

The axis starts where the grace period does, at the start of preStop, which
the service does not log: SIGTERM is drawn preStop later. A shutdown much
shorter than the grace period is drawn a second time, zoomed in from SIGTERM.
Marked: a step or part that took longer than its budget (!), a part that
logged an error (x), one that had not ended when the log does (>), and
SIGKILL at the end of the grace period (^).

Lines that are not JSON are skipped, as is text before a line's first '{'
(the prefixes of docker compose logs). --svg also writes the drawing as a
standalone SVG for a projector: into a new file, or over an existing one
with --force (never through a symbolic link, never over the log). Exits 2 when the log has no shutdown or
cannot be read, or --dir has no gsgen.yaml.`,
		Example: `  ./bin/orders 2> orders.log   # then SIGTERM (Ctrl-C) and: gsgen timeline orders.log
  kubectl logs deploy/orders --previous | gsgen timeline --dir ./orders
  gsgen timeline orders.log --svg shutdown.svg`,
		Args: argsBetween(0, 1, "at most one LOGFILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			scr, err := screen.New(e.stdout, colour, os.Getenv)
			if err != nil {
				return usageError{err}
			}
			name := "-"
			if len(args) == 1 {
				name = args[0]
			}
			// Where the SVG goes is checked before anything is read.
			writeSVG := cmd.Flags().Changed("svg")
			if writeSVG {
				if err := checkSVG(svg, name, force); err != nil {
					return err
				}
			}
			// The budget first: a wrong --dir should not wait for a log on stdin.
			// Read only, as a dry run: the lock waits out a run in progress.
			d, err := servicedir.OpenServiceDir(dir, true, e.say)
			if err != nil {
				return err
			}
			defer d.Close()
			svc, err := generator.ReadService(d)
			if err != nil {
				return err
			}
			m, err := svc.Model()
			if err != nil {
				return err
			}
			log, label, err := openLog(e, name)
			if err != nil {
				return err
			}
			defer log.Close()
			s, err := timeline.Read(log, label)
			if err != nil {
				return err
			}
			plan, err := timeline.PlanFor(m, s.Service, dir)
			if err != nil {
				return err
			}
			t := timeline.New(s, plan)
			if writeSVG {
				if err := servicedir.WriteNamedFile("--svg", svg, []byte(t.SVG()), force); err != nil {
					return err
				}
			}
			_, err = io.WriteString(e.stdout, scr.Colour(t.Text(scr.Cols)))
			return err
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "the generated `SERVICE` whose gsgen.yaml holds the budget")
	cmd.Flags().StringVar(&svg, "svg", "", "also write the timeline to `FILE` as a standalone SVG (a new file; see --force)")
	cmd.Flags().BoolVar(&force, "force", false, "let --svg replace an existing file")
	addColourFlag(cmd, &colour)
	return cmd
}

// checkSVG refuses an --svg file gsgen may not write: see
// servicedir.CheckWritable, and never the log being read, even with --force.
func checkSVG(svg, log string, force bool) error {
	if err := servicedir.CheckWritable("--svg", svg, force); err != nil {
		return err
	}
	if log == "-" {
		return nil
	}
	s, serr := os.Stat(svg)
	l, lerr := os.Stat(log)
	if serr == nil && lerr == nil && os.SameFile(s, l) {
		return &problem.InputError{Field: "--svg", Msg: fmt.Sprintf("%s is the log being read", problem.Quote(svg)), Fix: "name another file for the SVG"}
	}
	return nil
}

// openLog opens the log to read: stdin for "-", else a regular file of at
// most timeline.MaxLogBytes (a FIFO or a device would never end). label
// names it in errors.
func openLog(e *env, name string) (io.ReadCloser, string, error) {
	if name == "-" {
		if e.interactive {
			return nil, "", usageError{errors.New("timeline reads the log from stdin, which is a terminal: pipe the log in (./bin/orders 2>&1 | gsgen timeline) or name LOGFILE")}
		}
		return io.NopCloser(e.stdin), "stdin", nil
	}
	fix := "name the file the service's stderr went to (./bin/orders 2> orders.log), or pipe the log in"
	st, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", &problem.InputError{Field: name, Msg: "no such file", Fix: fix}
	case err != nil:
		return nil, "", &problem.InputError{Field: name, Msg: err.Error(), Fix: fix}
	case !st.Mode().IsRegular():
		return nil, "", &problem.InputError{Field: name, Msg: "not a regular file", Fix: fix}
	case st.Size() > timeline.MaxLogBytes:
		return nil, "", &problem.InputError{Field: name, Msg: fmt.Sprintf("%d MiB: more than the %d MiB of one run's log", st.Size()>>20, timeline.MaxLogBytes>>20),
			Fix: "keep the part with the shutdown: tail -n 5000 " + name + " | gsgen timeline"}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, "", &problem.InputError{Field: name, Msg: err.Error(), Fix: fix}
	}
	return f, name, nil
}
