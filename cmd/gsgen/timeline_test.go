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
		"svg unwritable":   {[]string{"timeline", "--dir", orders, "--svg", filepath.Join(t.TempDir(), "no", "x.svg"), idle}, "--svg: cannot write beside"},
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

// The SVG never replaces a file unasked, never the log, never through a
// link; with --force it replaces a file of its own name.
func TestTimelineSVGNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	orders, idle := filepath.Join(timelineData, "orders"), filepath.Join(timelineData, "idle.log")
	log := filepath.Join(dir, "a.log")
	data, err := os.ReadFile(idle)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, log, string(data))
	mine := filepath.Join(dir, "mine.svg")
	writeFile(t, mine, "mine")
	target := filepath.Join(dir, "target")
	writeFile(t, target, "target")
	link := filepath.Join(dir, "link.svg")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--svg", log, log}, "exists, and gsgen never overwrites a file it did not write; name a new file, or pass --force"},
		{[]string{"--svg", log, "--force", log}, `is the log being read`},
		{[]string{"--svg", mine, log}, "exists"},
		{[]string{"--svg", link, log}, "is a symbolic link; gsgen never writes through a link"},
		{[]string{"--svg", link, "--force", log}, "is a symbolic link"},
		{[]string{"--svg", "", log}, "--svg: is empty"},
		{[]string{"--svg", dir, "--force", log}, "is a directory"},
	} {
		before := treeHash(t, dir)
		code, _, stderr := gsgen(t, append([]string{"timeline", "--dir", orders}, c.args...)...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if treeHash(t, dir) != before {
			t.Errorf("%q changed the directory", c.args)
		}
	}
	if code, _, stderr := gsgen(t, "timeline", "--dir", orders, "--svg", mine, "--force", log); code != exitOK {
		t.Fatalf("--force over a file: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(mine); !bytes.HasPrefix(b, []byte("<svg")) && !bytes.HasPrefix(b, []byte("<?xml")) {
		t.Errorf("--force did not write the SVG: %.40q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 { // a.log, mine.svg, target, link.svg, and no temporary file left
		t.Errorf("the directory holds %d entries, want 4 and no temporary file", len(entries))
	}
}

// Log fields are printed escaped: a control sequence in a log never reaches
// the terminal (or the SVG) as one.
func TestTimelineEscapesControls(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(timelineData, "http-cut.log"))
	if err != nil {
		t.Fatal(err)
	}
	hostile := strings.Replace(string(data), `"err":"not drained`, `"err":"\u001b[2J\u001b]0;pwned\u0007\u202enot drained`, 1)
	log := filepath.Join(t.TempDir(), "hostile.log")
	writeFile(t, log, hostile)
	svg := filepath.Join(t.TempDir(), "x.svg")
	code, stdout, stderr := gsgen(t, "timeline", "--dir", filepath.Join(timelineData, "orders"), "--svg", svg, log)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(svg)
	for what, out := range map[string]string{"stdout": stdout, "svg": string(b)} {
		if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && (r < 0x20 || r == 0x7f || r == 0x202e) }); i >= 0 {
			t.Errorf("%s holds control character %q at %d", what, out[i], i)
		}
	}
	if !strings.Contains(stdout, `\x1b[2J\x1b]0;pwned\a\u202enot drained`) {
		t.Errorf("stdout does not show the escaped error:\n%s", stdout)
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
