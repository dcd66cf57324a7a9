package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/gsgen-dev/gsgen/internal/disktest"
)

// runMainEnv makes a copy of this test binary run gsgen itself, so the
// terminal tests drive the real program under a pseudo-terminal.
const runMainEnv = "GSGEN_TEST_RUN_MAIN"

func init() {
	if os.Getenv(runMainEnv) == "1" {
		main()
	}
}

// gsgenAnswering runs the CLI in-process with answers on stdin, one per line
// (stdin is not a terminal, so only --accessible or ACCESSIBLE makes it ask).
func gsgenAnswering(t *testing.T, answers []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	in := ""
	if len(answers) > 0 {
		in = strings.Join(answers, "\n") + "\n"
	}
	code = run(args, strings.NewReader(in), &out, &errb)
	return code, out.String(), errb.String()
}

// Scripts of the accessible prompts: one answer per line, "" keeps the default.
var (
	httpScript = []string{
		"",     // Service name [orders]
		"",     // Go module path [example.com/orders]
		"0",    // Components: http is preselected; 0 confirms
		"9090", // HTTP port [8080]
		"",     // preStop [10s]
		"40s",  // HTTP drain [25s]
		"",     // worker drain [20s]: your parts drain in it
		"",     // close [1s]
		"",     // margin [5s]
		"75s",  // grace period [60s]
		"",     // Write it to DIR? [Y/n]
	}
	fullScript = []string{
		"",                       // Service name [orders]
		"github.com/acme/orders", // Go module path
		"2", "4", "5", "0",       // Components: add outbox, kafka, cleaner to http; confirm
		"",             // HTTP port [8080]
		"orders",       // Outbox topic [events]
		"100",          // Outbox batch size [50]
		"",             // Outbox poll interval [500ms]
		"order-events", // Kafka consumer 1 name [events]
		"",             // Kafka consumer 1 topic [orders]: the outbox topic
		"",             // Add another Kafka consumer? [y/N]
		"",             // Cleaner of outbox_event rows: name [outbox-dispatched]
		"72h",          // Cleaner of outbox_event rows: retention [168h]
		"",             // Cleaner of processed_event rows: name [processed-events]
		"",             // Cleaner of processed_event rows: retention [336h]
		"",             // preStop [10s]
		"30s",          // HTTP drain [25s]
		"",             // worker drain [20s]
		"",             // outbox batch timeout [10s]
		"",             // close [1s]
		"",             // margin [5s]
		"",             // grace period [60s]
		"",             // Write it to DIR? [Y/n]
	}
	asynqScript = []string{
		"shop",   // Service name [orders]
		"",       // Go module path [example.com/shop]
		"3", "0", // Components: add asynq to http; confirm
		"",         // HTTP port [8080]
		"2",        // asynq mode [inprocess]: 2 is dedicated
		"", "", "", // preStop, HTTP drain, asynq drain
		"",         // asynq task timeout [20s]
		"",         // worker drain [20s]: your parts drain in it
		"", "", "", // close, margin, grace period
		"", // Write it to DIR? [Y/n]
	}
	// grpc's questions are the grpc kind's flags with a title, asked after
	// the older kinds' steps; bad answers are asked again with the reason.
	grpcScript = []string{
		"",       // Service name [orders]
		"",       // Go module path [example.com/orders]
		"6", "0", // Components: add grpc to http; confirm
		"",              // HTTP port [8080]
		"8080", "50052", // gRPC port [50051]: the HTTP port is refused
		"soon", "30s", // gRPC drain [25s]: not a duration
		"y",        // Register the gRPC reflection service? [y/N]
		"", "", "", // preStop, HTTP drain, worker drain
		"", "", "", // close, margin, grace period
		"", // Write it to DIR? [Y/n]
	}
)

// The prompts write byte for byte the service the equivalent flags or
// answers file write, and print that command line.
func TestPromptsWriteTheSameServiceAsFlags(t *testing.T) {
	cases := []struct {
		name    string
		answers []string
		same    []string // flags or -f giving the same service, after DIR
		printed string   // the command printed at the end, DIR for the directory
	}{
		{"http", httpScript, []string{"--http-port", "9090", "--grace", "75s", "--http-shutdown", "40s", "--yes"},
			"gsgen new DIR --http-port 9090 --grace 75s --http-shutdown 40s --yes"},
		{"http,outbox,kafka,cleaner", fullScript, []string{"-f", filepath.Join("testdata", "prompted-full.yaml")},
			"gsgen new DIR -f DIR/gsgen.yaml --yes   (some answers have no flag)"}, // a cleaner's retention has no flag
		{"http,asynq dedicated", asynqScript, []string{"--name", "shop", "--components", "http,asynq", "--asynq-mode", "dedicated", "--yes"},
			"gsgen new DIR --name shop --components http,asynq --asynq-mode dedicated --yes"},
		{"http,grpc", grpcScript, []string{"--components", "http,grpc", "--grpc-port", "50052", "--grpc-shutdown", "30s", "--grpc-reflection", "--yes"},
			"gsgen new DIR --components http,grpc --grpc-port 50052 --grpc-shutdown 30s --grpc-reflection --yes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			prompted, flagged := filepath.Join(root, "prompted", "orders"), filepath.Join(root, "flags", "orders")
			code, stdout, stderr := gsgenAnswering(t, c.answers, "new", prompted, "--accessible")
			if code != exitOK {
				t.Fatalf("prompted: exit %d: %s\n%s", code, stderr, stdout)
			}
			if got := printedCommand(stdout, prompted); got != c.printed {
				t.Errorf("printed command\n  %s\nwant\n  %s", got, c.printed)
			}
			if code, _, stderr := gsgen(t, append([]string{"new", flagged}, c.same...)...); code != exitOK {
				t.Fatalf("flags: exit %d: %s", code, stderr)
			}
			assertSameTree(t, prompted, flagged)
		})
	}
}

// printedCommand is the "Same service without questions" line, with dir
// written DIR.
func printedCommand(stdout, dir string) string {
	_, line, _ := strings.Cut(stdout, "Same service without questions:\n  ")
	line, _, _ = strings.Cut(line, "\n")
	return strings.ReplaceAll(line, dir, "DIR")
}

func assertSameTree(t *testing.T, got, want string) {
	t.Helper()
	a, b := disktest.ReadTree(t, got), disktest.ReadTree(t, want)
	if len(a) < 10 || len(a) != len(b) {
		t.Fatalf("trees have %d and %d files", len(a), len(b))
	}
	for p, content := range b {
		if a[p] != content {
			t.Errorf("%s differs between the prompts and the flags", p)
		}
	}
}

// A bad answer is asked again with the reason; the next good one continues.
// A broken ladder names the numbers that collide and offers one that fits.
func TestPromptsAskAgainWithTheReason(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "orders")
	answers := []string{
		"Orders", "orders", // Service name
		"example.com/my orders", "", // Go module path
		"1", "0", // Components: unselect http, confirm none
		"5", "0", // cleaner alone
		"5", "1", "0", // back to http
		"http", "", // HTTP port
		"",                  // preStop
		"25 seconds", "25s", // HTTP drain
		"",       // worker drain
		"0s", "", // close
		"",    // margin
		"20s", // grace period: breaks the ladder
		"",    // Which number do you change? [grace]
		"",    // grace period, asked again: keep the value offered
		"",    // Write it to DIR?
	}
	code, stdout, stderr := gsgenAnswering(t, answers, "new", dir, "--accessible")
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, reason := range []string{
		`"Orders" has upper-case letters; it names Kubernetes objects, which must be lower case; use orders`,
		`"example.com/my orders" is not a valid Go module path`,
		"choose at least one component",
		"the cleaner component has no table to clean",
		`"http" is not a whole number`,
		`"25 seconds" is not a duration; write it in Go syntax`,
		"0s must be positive",
		"The timeouts do not fit: timeouts.grace: 20s is shorter than preStop 10s + HTTP drain 25s + close 1s + margin 5s = 41s",
		"Which number do you change? [grace]:",
		"1. grace — raise the grace period to 41s",
		"2. http_shutdown — shorten HTTP drain (http_shutdown) to 4s",
		"3. worker_drain — shorten worker drain (worker_drain) to 4s",
		"grace period [41s]:",
	} {
		if !strings.Contains(stdout, reason) {
			t.Errorf("stdout lacks %q", reason)
		}
	}
	if got, want := printedCommand(stdout, dir), "gsgen new DIR --grace 41s --yes"; got != want {
		t.Errorf("printed command %q, want %q\n%s", got, want, stdout)
	}
}

// A kind's questions say why an answer is refused, skip what its flags
// gave, and its drain is one of the numbers a broken ladder offers to change.
func TestPromptsAskTheKindsQuestions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders")
	code, stdout, stderr := gsgenAnswering(t, grpcScript, "new", dir, "--accessible")
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{
		"port the gRPC server listens on\ngRPC port [50051]: 8080 is the HTTP port too; give gRPC a port of its own, e.g. 50051\ngRPC port [50051]:",
		`gRPC drain [25s]: "soon" is not a positive duration; use Go's syntax, e.g. 25s or 1m30s`,
		"Register the gRPC reflection service? [y/N]",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}

	dir = filepath.Join(t.TempDir(), "orders")
	answers := []string{
		"", "", "", // name, module, HTTP port
		"50s",      // gRPC drain [25s]: longer than the grace period allows
		"", "", "", // preStop, HTTP drain, worker drain
		"", "", // close, margin
		"60s", // grace period [66s], typed shorter: breaks the ladder
		"2",   // Which number do you change? the gRPC drain
		"",    // gRPC drain, asked again [44s]
		"",    // Write it to DIR?
	}
	code, stdout, stderr = gsgenAnswering(t, answers, "new", dir, "--accessible", "--components", "http,grpc", "--grpc-port", "50052", "--grpc-reflection")
	if code != exitOK {
		t.Fatalf("flags given: exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, q := range []string{"gRPC port", "reflection service?"} {
		if strings.Contains(stdout, q) {
			t.Errorf("asked %q, which a flag gave:\n%s", q, stdout)
		}
	}
	for _, want := range []string{
		"2. grpc.shutdown_timeout — shorten gRPC drain (grpc.shutdown_timeout) to 44s",
		"gRPC drain [44s]:",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if got, want := printedCommand(stdout, dir), "gsgen new DIR --components http,grpc --grpc-port 50052 --grpc-shutdown 44s --grpc-reflection --yes"; got != want {
		t.Errorf("printed command %q, want %q", got, want)
	}

	// Every other answer given: the kind's questions alone make gsgen new
	// ask, and without a terminal it names them as missing.
	dir = filepath.Join(t.TempDir(), "orders")
	given := []string{"new", dir, "--name", "orders", "--components", "http,grpc", "--module", "example.com/orders", "--http-port", "8080",
		"--prestop", "10s", "--grace", "60s", "--http-shutdown", "25s", "--worker-drain", "20s",
		"--asynq-shutdown", "25s", "--task-timeout", "20s", "--close-budget", "1s", "--margin", "5s"}
	t.Setenv("ACCESSIBLE", "")
	code, _, stderr = gsgenAnswering(t, nil, given...)
	if code != exitBadInput || !strings.Contains(stderr, "these are not given: --grpc-port --grpc-shutdown --grpc-reflection;") {
		t.Errorf("without a terminal: exit %d, %s", code, stderr)
	}
	code, stdout, stderr = gsgenAnswering(t, []string{"", "", "", ""}, append(given, "--accessible")...)
	if code != exitOK || !strings.Contains(stdout, "gRPC port [50051]:") || !strings.Contains(stdout, "gRPC drain [25s]:") {
		t.Errorf("only grpc's answers missing: exit %d, %s\n%s", code, stderr, stdout)
	}
}

// A broken ladder asks which of the numbers it names to change, and the
// grace period is offered at least the sum its help gives.
func TestPromptsBrokenLadderAsksWhichNumber(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders")
	answers := []string{
		"", "", "0", "", // name, module, components (http), HTTP port
		"",         // preStop
		"50s",      // HTTP drain
		"", "", "", // worker drain, close, margin
		"60s", // grace period [66s]: typed shorter, breaks the ladder
		"2",   // Which number do you change? the HTTP drain
		"",    // HTTP drain, asked again [44s]
		"",    // Write it to DIR?
	}
	code, stdout, stderr := gsgenAnswering(t, answers, "new", dir, "--accessible")
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{
		"preStop + longest drain + close + margin = 66s, so at least that\ngrace period [66s]:",
		"use grace 66s or more, or shorten http_shutdown to 44s",
		"1. grace — raise the grace period to 66s",
		"2. http_shutdown — shorten HTTP drain (http_shutdown) to 44s",
		"HTTP drain [44s]:",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if got, want := printedCommand(stdout, dir), "gsgen new DIR --http-shutdown 44s --yes"; got != want {
		t.Errorf("printed command %q, want %q", got, want)
	}
}

// Input that ends before the last answer writes nothing: huh would quietly
// take the default for every question left.
func TestPromptsTruncatedInputWritesNothing(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "orders")
	for n := range len(fullScript) {
		code, _, stderr := gsgenAnswering(t, fullScript[:n], "new", dir, "--accessible")
		if code != exitBadInput || !strings.Contains(stderr, "stdin: input ended at ") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("after %d of %d answers: exit %d, stderr %q", n, len(fullScript), code, stderr)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("after %d answers, %s was written", n, dir)
		}
	}
}

// Answers given by flags are not asked again; ACCESSIBLE turns the prompts on.
func TestPromptsSkipWhatFlagsGave(t *testing.T) {
	t.Setenv("ACCESSIBLE", "1")
	root := t.TempDir()
	flags := []string{"--name", "shop", "--components", "http,asynq", "--grace", "90s", "--asynq-mode", "inprocess"}
	prompted, flagged := filepath.Join(root, "prompted", "shop"), filepath.Join(root, "flags", "shop")
	answers := []string{
		"github.com/acme/shop", // Go module path
		"",                     // HTTP port
		"", "40s", "", "",      // preStop, HTTP drain, asynq drain, asynq task timeout
		"",     // worker drain
		"", "", // close, margin
		"", // Write it to DIR?
	}
	code, stdout, stderr := gsgenAnswering(t, answers, append([]string{"new", prompted}, flags...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, given := range []string{"Service name", "Components", "asynq mode", "grace period"} {
		if strings.Contains(stdout, given+" [") {
			t.Errorf("asked for %s, which a flag gave", given)
		}
	}
	t.Setenv("ACCESSIBLE", "")
	code, _, stderr = gsgen(t, append([]string{"new", flagged, "--module", "github.com/acme/shop", "--http-shutdown", "40s", "--yes"}, flags...)...)
	if code != exitOK {
		t.Fatalf("flags: exit %d: %s", code, stderr)
	}
	assertSameTree(t, prompted, flagged)
}

// A bad answer given by a flag is refused before any question is asked.
func TestPromptsRefuseABadFlagFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders")
	code, stdout, stderr := gsgenAnswering(t, httpScript, "new", dir, "--accessible", "--components", "http,outbox", "--outbox-topic", "orders events")
	if code != exitBadInput || !strings.Contains(stderr, `outbox.topic: "orders events" is not a valid Kafka topic name`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(stdout, "Service name") {
		t.Errorf("asked questions before refusing the flag:\n%s", stdout)
	}
}

// A flag that needs a component is checked once the components are chosen.
func TestPromptsCheckComponentFlagsAfterTheChoice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orders")
	answers := []string{
		"", "", // Service name, Go module path
		"4", "0", // Components: add kafka to http; confirm
		"",                 // HTTP port
		"", "", "", "", "", // preStop, HTTP drain, worker drain, close, margin
		"", "", // grace period, Write it to DIR?
	}
	code, stdout, stderr := gsgenAnswering(t, answers, "new", dir, "--accessible", "--dry-run", "--consumer", "payments")
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	if got, want := printedCommand(stdout, dir), "gsgen new DIR --components http,kafka,cleaner --consumer payments:payments --yes"; got != want {
		t.Errorf("printed command %q, want %q", got, want)
	}
}

// TERM=dumb makes a terminal accessible; it does not make a pipe a terminal.
func TestPromptsNeverWaitWithoutATerminal(t *testing.T) {
	t.Setenv("ACCESSIBLE", "")
	t.Setenv("TERM", "dumb")
	dir := filepath.Join(t.TempDir(), "orders")
	code, _, stderr := gsgenAnswering(t, httpScript, "new", dir)
	if code != exitBadInput || !strings.Contains(stderr, "stdin is not a terminal, so gsgen cannot ask") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// Under a real pseudo-terminal the first prompt renders, and Ctrl+C exits
// 130 with nothing written: as a key in the full-screen form, as SIGINT in
// the line-by-line prompts of a dumb terminal.
func TestPromptsCtrlCInATerminal(t *testing.T) {
	for _, c := range []struct{ term, prompt string }{
		{"xterm-256color", "Service name"},
		{"dumb", "Service name [orders]:"},
	} {
		t.Run("TERM="+c.term, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "orders")
			cmd := exec.Command(os.Args[0], "new", dir)
			cmd.Env = append(os.Environ(), runMainEnv+"=1", "TERM="+c.term, "ACCESSIBLE=")
			term := startInTerminal(t, cmd)
			term.waitFor(t, c.prompt)
			term.send(t, "\x03")
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
				t.Errorf("exit: %v, want code 130; screen:\n%q", err, term.screen())
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s was written", dir)
			}
		})
	}
}

// A terminating signal at a prompt (kill, the terminal going away, SIGINT
// from outside) stops gsgen with exit 128+signal and nothing written, in
// both kinds of prompt, however many times it is sent: bubbletea used to
// take SIGTERM for "submit", so repeated SIGTERMs confirmed the service.
func TestPromptsSignalsInATerminal(t *testing.T) {
	for _, c := range []struct{ term, prompt string }{
		{"xterm-256color", "Service name"},
		{"dumb", "Service name [orders]:"},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
			t.Run("TERM="+c.term+"/"+sig.String(), func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "orders")
				cmd := exec.Command(os.Args[0], "new", dir)
				cmd.Env = append(os.Environ(), runMainEnv+"=1", "TERM="+c.term, "ACCESSIBLE=")
				term := startInTerminal(t, cmd)
				term.waitFor(t, c.prompt)
				for range 3 {
					cmd.Process.Signal(sig)
				}
				err := cmd.Wait()
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) {
					t.Errorf("exit: %v, want code %d; screen:\n%q", err, 128+int(sig), term.screen())
				}
				if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s was written", dir)
				}
			})
		}
	}
}

// terminal is the controlling end of a pseudo-terminal, playing the part
// of a terminal emulator: it keeps what the program writes and answers the
// colour and cursor queries a terminal answers.
type terminal struct {
	pty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	seen chan struct{} // a signal after each write by the program
}

func startInTerminal(t *testing.T, cmd *exec.Cmd) *terminal {
	t.Helper()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		f.Close()
	})
	term := &terminal{pty: f, seen: make(chan struct{}, 1)}
	go term.read()
	return term
}

func (term *terminal) read() {
	replies := map[string]string{
		"\x1b]11;?": "\x1b]11;rgb:0000/0000/0000\x1b\\", // background colour: black
		"\x1b[6n":   "\x1b[1;1R",                        // cursor position
	}
	buf := make([]byte, 4096)
	for {
		n, err := term.pty.Read(buf)
		for query, reply := range replies {
			if bytes.Contains(buf[:n], []byte(query)) {
				io.WriteString(term.pty, reply)
			}
		}
		term.mu.Lock()
		term.out.Write(buf[:n])
		term.mu.Unlock()
		select {
		case term.seen <- struct{}{}:
		default:
		}
		if err != nil {
			return // the program exited (EIO)
		}
	}
}

func (term *terminal) screen() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.out.String()
}

// waitFor waits until the program has written s.
func (term *terminal) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(30 * time.Second) // a hung program, not a slow one
	for !strings.Contains(term.screen(), s) {
		select {
		case <-term.seen:
		case <-deadline:
			t.Fatalf("%q never appeared; screen:\n%q", s, term.screen())
		}
	}
}

func (term *terminal) send(t *testing.T, keys string) {
	t.Helper()
	if _, err := io.WriteString(term.pty, keys); err != nil {
		t.Fatal(err)
	}
}
