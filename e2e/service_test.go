package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// hang bounds a wait in which nothing moves. Every wait returns as soon as
// what it waits for happens, and most restart their clock whenever progress
// is made (a log line, a row), so a busy machine only makes a test slower:
// only a test that is really stuck waits this long, and then it reports
// what it saw.
const hang = 3 * time.Minute

// service is one process of a generated service.
type service struct {
	t      *testing.T
	name   string // for messages: "worker#2"
	cmd    *exec.Cmd
	logs   *logs
	admin  string        // where its admin listener serves the probes
	exited chan struct{} // closed when the process has ended
	code   int           // exit code, -1 if a signal ended it; valid once exited is closed
	endAt  time.Time
}

// start runs bin with exactly env (plus HTTP_ADDR and ADMIN_ADDR on free
// loopback ports) and returns once its /readyz answers 200: everything has
// started. Cleanup kills it if it is still running.
func start(t *testing.T, name, bin string, env map[string]string) *service {
	t.Helper()
	vars := map[string]string{"HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0"}
	maps.Copy(vars, env)
	s := &service{t: t, name: name, cmd: exec.Command(bin), logs: newLogs(), exited: make(chan struct{})}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		s.cmd.Env = append(s.cmd.Env, k+"="+vars[k])
	}
	s.cmd.Stdout = s.logs
	s.cmd.Stderr = s.logs
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		s.cmd.Wait()
		s.endAt = time.Now()
		s.code = s.cmd.ProcessState.ExitCode()
		close(s.exited)
	}()
	t.Cleanup(func() {
		if !s.done() {
			s.cmd.Process.Kill()
			<-s.exited
		}
		if t.Failed() {
			t.Logf("log of %s:\n%s", s.name, s.logs)
		}
	})
	s.admin = s.waitLog(msgIs("admin server listening")).str("addr")
	// Ready is logged nowhere: ask, as the kubelet would. Every answer is
	// progress; only a process that stops answering altogether is stuck.
	for {
		if r := probe("http://" + s.admin + "/readyz"); r.err == nil && r.status == 200 {
			break
		}
		select {
		case <-s.exited:
			t.Fatalf("%s exited %d before it was ready", name, s.code)
		case <-time.After(10 * time.Millisecond):
		}
	}
	return s
}

// httpAddr is where the service's HTTP server listens (for a service that
// has one). The service logs "http server listening" before it turns ready,
// so the line is written by the time start returns, but not necessarily
// read: /readyz's answer comes over a socket and the log over a pipe, and on
// a busy machine the answer can win. So it waits for the line; reading the
// log as it stood when /readyz answered gave an empty address about once in
// a hundred starts, and a request to "http:///..." that never arrived.
func (s *service) httpAddr() string {
	s.t.Helper()
	return s.waitLog(msgIs("http server listening")).str("addr")
}

func (s *service) done() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// signal sends sig and returns when it was sent.
func (s *service) signal(sig syscall.Signal) time.Time {
	s.t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatalf("signalling %s: %v", s.name, err)
	}
	return time.Now()
}

// wait returns the exit code once the process has ended; it kills the
// process and fails the test if that takes longer than hang (a shutdown is
// bounded by the service's own budget, far below it).
func (s *service) wait() int {
	s.t.Helper()
	select {
	case <-s.exited:
		return s.code
	case <-time.After(hang):
		s.cmd.Process.Kill()
		<-s.exited
		s.t.Fatalf("%s did not exit within %v; killed. Its log:\n%s", s.name, hang, s.logs)
		return -1
	}
}

// stop sends SIGTERM and requires a clean exit (0).
func (s *service) stop() {
	s.t.Helper()
	s.signal(syscall.SIGTERM)
	if code := s.wait(); code != 0 {
		s.t.Fatalf("%s exited %d after SIGTERM, want 0", s.name, code)
	}
}

// waitLog returns the first log line that matches, waiting for it; it fails
// the test if the process ends first, or logs nothing at all for hang.
func (s *service) waitLog(match func(logLine) bool) logLine {
	s.t.Helper()
	return s.waitLogs(1, match)[0]
}

// waitLogs waits until n lines match and returns them. The process logging
// anything counts as progress; it fails when the process exits first or logs
// nothing for hang.
func (s *service) waitLogs(n int, match func(logLine) bool) []logLine {
	s.t.Helper()
	for {
		lines, changed := s.logs.matching(match)
		if len(lines) >= n {
			return lines
		}
		select {
		case <-changed:
		case <-s.exited:
			if lines, _ := s.logs.matching(match); len(lines) >= n {
				return lines
			}
			s.t.Fatalf("%s exited %d before logging %d matching lines (got %d)", s.name, s.code, n, len(lines))
		case <-time.After(hang):
			s.t.Fatalf("%s logged nothing for %v, with %d of %d matching lines", s.name, hang, len(lines), n)
		}
	}
}

// waitCount waits until count() reaches want. count going up is progress:
// it gives up only when count has not moved for hang, and says how far it
// got. what names the count for that message ("events handled").
func waitCount(t *testing.T, what string, want int, count func() int) {
	t.Helper()
	last, since := -1, time.Now()
	for {
		got := count()
		if got >= want {
			return
		}
		if got != last {
			last, since = got, time.Now()
		} else if time.Since(since) > hang {
			t.Fatalf("%s: %d of %d, and no progress for %v", what, got, want, hang)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logLine is one JSON log line of a service.
type logLine map[string]any

func (l logLine) str(key string) string {
	s, _ := l[key].(string)
	return s
}

// num reads a number field (JSON numbers decode as float64).
func (l logLine) num(key string) int {
	f, _ := l[key].(float64)
	return int(f)
}

// took is the line's "took" field as a duration.
func (l logLine) took() (time.Duration, error) { return time.ParseDuration(l.str("took")) }

func msgIs(msg string) func(logLine) bool {
	return func(l logLine) bool { return l.str("msg") == msg }
}

func msgWith(msg, key, value string) func(logLine) bool {
	return func(l logLine) bool { return l.str("msg") == msg && l.str(key) == value }
}

// logs collects a process's output line by line. A line that is not JSON is
// kept with the text as its msg, so a panic shows up in failure output.
type logs struct {
	mu      sync.Mutex
	partial []byte
	lines   []logLine
	raw     bytes.Buffer
	changed chan struct{} // closed and replaced whenever a line arrives
}

func newLogs() *logs { return &logs{changed: make(chan struct{})} }

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.raw.Write(p)
	l.partial = append(l.partial, p...)
	added := false
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		text := l.partial[:i]
		var line logLine
		if err := json.Unmarshal(text, &line); err != nil {
			line = logLine{"msg": string(text)}
		}
		l.lines = append(l.lines, line)
		l.partial = l.partial[i+1:]
		added = true
	}
	if added {
		close(l.changed)
		l.changed = make(chan struct{})
	}
	return len(p), nil
}

// matching returns the lines that match so far, and a channel closed when
// more arrive.
func (l *logs) matching(match func(logLine) bool) ([]logLine, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logLine
	for _, line := range l.lines {
		if match(line) {
			out = append(out, line)
		}
	}
	return out, l.changed
}

// all returns every line so far.
func (l *logs) all() []logLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

func (l *logs) count(match func(logLine) bool) int {
	lines, _ := l.matching(match)
	return len(lines)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	const max = 20000
	s := l.raw.String()
	if len(s) > max {
		s = fmt.Sprintf("[... %d bytes cut ...]\n%s", len(s)-max, s[len(s)-max:])
	}
	return strings.TrimRight(s, "\n")
}

// median of ds, which it sorts.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
