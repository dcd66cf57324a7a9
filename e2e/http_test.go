package e2e

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Scenario 1: requests in flight at SIGTERM all complete; readiness turns
// 503 while liveness stays 200; the process exits 0 within its drain. In the
// http preset and in the full one, whose stop-intake step (asynq's Stop)
// leaves the listener open long enough for a probe to see the 503.
func TestHTTPDrain(t *testing.T) {
	e2eOnly(t)
	env := map[string]string{"HTTP_SHUTDOWN_TIMEOUT": "10s"}
	t.Run("http", func(t *testing.T) {
		_, bin := httpService.build(t)
		httpDrain(t, start(t, "http", bin, env))
	})
	t.Run("full", func(t *testing.T) {
		httpDrain(t, newFullRig(t, fullService).start("full", env))
	})
}

func httpDrain(t *testing.T, svc *service) {
	const (
		inFlight = 100
		hold     = 2 * time.Second // how long each request takes
	)
	admin := "http://" + svc.admin
	for path, want := range map[string]int{"/readyz": 200, "/healthz": 200} {
		if got := probe(admin + path); got.status != want {
			t.Fatalf("before SIGTERM: %s = %+v, want %d", path, got, want)
		}
	}

	client := &http.Client{Timeout: hang, Transport: &http.Transport{MaxIdleConnsPerHost: inFlight}}
	results := svc.slowRequests(client, inFlight, hold)

	// The probes, polled on fresh connections from the signal until the exit.
	watch := watchProbes(admin, svc.exited)
	sent := svc.signal(syscall.SIGTERM)
	svc.waitLog(func(l logLine) bool { return l.str("msg") == "shutdown step" && l.num("step") == 1 })
	watch.readinessFlipped.Store(true)
	code := svc.wait()
	exitAfter := svc.endAt.Sub(sent)
	watch.wg.Wait()

	ok := 0
	for range inFlight {
		r := <-results
		if r.err != nil || r.status != http.StatusOK || r.body != "done" {
			t.Errorf("request in flight at SIGTERM: %+v, want 200 done", r)
			continue
		}
		ok++
	}
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	drained := svc.waitLog(msgWith("drained", "part", "http"))
	if drained.str("err") != "" {
		t.Errorf("HTTP drain failed: %v", drained["err"])
	}
	for _, p := range watch.results() {
		switch {
		case p.path == "/healthz" && p.err == nil && p.status != http.StatusOK:
			t.Errorf("/healthz answered %d during shutdown; liveness must stay 200 while the process answers", p.status)
		case p.path == "/readyz" && p.afterStep1 && p.status == http.StatusOK:
			t.Errorf("/readyz answered 200 after shutdown step 1 (readiness) was logged")
		}
	}
	t.Logf("scenario 1, HTTP drain (%s): %d/%d requests in flight at SIGTERM completed with 200; exit %d %v after SIGTERM (HTTP_SHUTDOWN_TIMEOUT 10s, requests %v each); HTTP drain took %s",
		svc.name, ok, inFlight, code, exitAfter.Round(time.Millisecond), hold, drained.str("took"))
	t.Logf("scenario 1, probes polled on new connections between SIGTERM and exit (%s): %s", svc.name, watch.summary())
}

type response struct {
	status int
	body   string
	err    error
}

func (r response) String() string {
	if r.err != nil {
		return fmt.Sprintf("error %v", r.err)
	}
	return fmt.Sprintf("%d %q", r.status, r.body)
}

func get(c *http.Client, url string) response {
	resp, err := c.Get(url)
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, body: string(body), err: err}
}

// slowRequests sends n GET /e2e/slow?for=hold (the tests' handler,
// testdata/overlay/httpapi) with c, each from a goroutine of its own, and
// returns once the service has logged "e2e request started" n times: all n
// are in the handler. Their responses come on the channel it returns.
//
// A GET that fails before it reaches the handler (no address, refused,
// reset, a client timeout) logs nothing, so it waits for the responses as
// well as for the log: one that is not 200 "done" fails the test at once
// with its error or status, rather than a wait for a line that cannot come
// ending in "logged nothing" after hang. One that is 200 "done" (its hold
// over already on a slow machine) logged its line first; it is passed on.
func (s *service) slowRequests(c *http.Client, n int, hold time.Duration) <-chan response {
	s.t.Helper()
	base := "http://" + s.httpAddr()
	answered := make(chan response, n)
	for i := range n {
		go func() { answered <- get(c, fmt.Sprintf("%s/e2e/slow?for=%v&id=%d", base, hold, i)) }()
	}
	var done []response
	for {
		started, changed := s.logs.matching(msgIs("e2e request started"))
		if len(started) >= n {
			break
		}
		select {
		case <-changed:
		case r := <-answered:
			if r.err != nil || r.status != http.StatusOK || r.body != "done" {
				s.t.Fatalf("%s: a GET /e2e/slow?for=%v answered %v before all %d requests were in the handler (%d were)", s.name, hold, r, n, len(started))
			}
			done = append(done, r)
		case <-s.exited:
			if lines, _ := s.logs.matching(msgIs("e2e request started")); len(lines) >= n {
				continue // they all started before it ended: the loop returns
			}
			s.t.Fatalf("%s exited %d before %d requests were in the handler (%d were)", s.name, s.code, n, len(started))
		case <-time.After(hang):
			s.t.Fatalf("%s logged nothing for %v and no GET answered, with %d of %d requests in the handler", s.name, hang, len(started), n)
		}
	}
	// Room for them: n sends at most, and these were taken out.
	for _, r := range done {
		answered <- r
	}
	return answered
}

// probe sends one GET on a new connection, as a load balancer's health check does.
func probe(url string) response {
	return get(&http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}, url)
}

// probeWatch polls /readyz and /healthz until the process exits.
type probeWatch struct {
	wg sync.WaitGroup
	// readinessFlipped is set once the test has seen the readiness step in
	// the log: a /readyz sent after that must not answer 200.
	readinessFlipped atomic.Bool
	mu               sync.Mutex
	seen             []probeResult
}

type probeResult struct {
	path       string
	afterStep1 bool
	response
}

func watchProbes(base string, exited <-chan struct{}) *probeWatch {
	w := &probeWatch{}
	for _, path := range []string{"/readyz", "/healthz"} {
		w.wg.Go(func() {
			for {
				select {
				case <-exited:
					return
				default:
				}
				after := w.readinessFlipped.Load()
				r := probe(base + path)
				w.mu.Lock()
				w.seen = append(w.seen, probeResult{path, after, r})
				w.mu.Unlock()
				time.Sleep(time.Millisecond)
			}
		})
	}
	return w
}

func (w *probeWatch) results() []probeResult {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}

// summary counts the answers per probe: status codes, and refused
// connections once the listener has closed.
func (w *probeWatch) summary() string {
	counts := map[string]map[string]int{"/readyz": {}, "/healthz": {}}
	for _, p := range w.results() {
		key := fmt.Sprint(p.status)
		if p.err != nil {
			key = "no answer"
			if errors.Is(p.err, syscall.ECONNREFUSED) {
				key = "refused"
			}
		}
		counts[p.path][key]++
	}
	return fmt.Sprintf("/readyz %v, /healthz %v", counts["/readyz"], counts["/healthz"])
}
