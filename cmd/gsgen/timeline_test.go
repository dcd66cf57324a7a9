package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The recorded logs and their expected drawings live in package timeline;
// here the CLI must print exactly those, from a file, "-" or stdin.
const timelineData = "../../timeline/testdata"

func TestTimeline(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(timelineData, "http-cut.txt"))
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(timelineData, "http-cut.log")
	dir := filepath.Join(timelineData, "orders")
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		args  []string
		stdin string
	}{
		"file":     {[]string{"timeline", "--dir", dir, log}, ""},
		"dash":     {[]string{"timeline", "--dir", dir, "-"}, string(data)},
		"no file":  {[]string{"timeline", "--dir", dir}, string(data)},
		"dir flag": {[]string{"timeline", log, "--dir=" + dir}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(c.args, strings.NewReader(c.stdin), &out, &errb); code != exitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("stdout is not http-cut.txt:\n%s", out.String())
			}
		})
	}
}

func TestTimelineSVG(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "shutdown.svg")
	code, _, stderr := gsgen(t, "timeline", "--dir", filepath.Join(timelineData, "billing"), "--svg", svg, filepath.Join(timelineData, "worker.log"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(timelineData, "worker.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("--svg did not write worker.svg")
	}
}

// TestTimelineBadInput: each exits 2 with one line naming the input and how to fix it.
func TestTimelineBadInput(t *testing.T) {
	orders := filepath.Join(timelineData, "orders")
	idle := filepath.Join(timelineData, "idle.log")
	noShutdown := filepath.Join(t.TempDir(), "up.log")
	writeFile(t, noShutdown, `{"time":"2026-01-02T10:00:00Z","level":"INFO","msg":"http server listening","service":"orders"}`+"\n")
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"no shutdown":      {[]string{"timeline", "--dir", orders, noShutdown}, noShutdown + `: no shutdown in this log (1 line): a generated service logs "shutdown started"`},
		"empty stdin":      {[]string{"timeline", "--dir", orders}, "stdin: no shutdown in this log"},
		"missing log":      {[]string{"timeline", "--dir", orders, "nope.log"}, "nope.log: no such file; name the file the service's stderr went to"},
		"log is a dir":     {[]string{"timeline", "--dir", orders, orders}, orders + ": not a regular file"},
		"dir sans answers": {[]string{"timeline", "--dir", t.TempDir(), idle}, "has no gsgen.yaml"},
		"another service":  {[]string{"timeline", "--dir", filepath.Join(timelineData, "billing"), idle}, `--dir: the log is of service "orders", but`},
		"two logs":         {[]string{"timeline", idle, idle}, "at most one LOGFILE"},
		"svg unwritable":   {[]string{"timeline", "--dir", orders, "--svg", filepath.Join(t.TempDir(), "no", "x.svg"), idle}, "--svg: open"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := gsgen(t, c.args...)
			if code != exitBadInput {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitBadInput, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, c.want)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 || stdout != "" {
				t.Errorf("stderr has %d lines, want one, and stdout %q, want none:\n%s", lines, stdout, stderr)
			}
		})
	}
}

// With no LOGFILE and a terminal on stdin, waiting for a log nobody pipes in
// would hang: it says how to give one instead.
func TestTimelineTerminalStdin(t *testing.T) {
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, interactive: true}
	root := newRootCmd(e)
	root.SetArgs([]string{"timeline", "--dir", filepath.Join(timelineData, "orders")})
	err := root.Execute()
	if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "pipe the log in") {
		t.Errorf("err = %v, want a usage error saying to pipe the log in", err)
	}
}
