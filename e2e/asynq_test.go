package e2e

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
)

// Scenario 5: asynq beside HTTP (srv.Start). At SIGTERM two tasks are
// running: one the test releases as soon as the shutdown has started, one it
// holds past ASYNQ_SHUTDOWN_TIMEOUT. The released one completes, once; the
// held one goes back to pending, not counted as a retry, and completes after
// the restart. Nothing is lost.
func TestAsynqShutdownRequeuesLongTask(t *testing.T) {
	e2eOnly(t)
	rig := newFullRig(t, fullShortAsynq)
	client := asynq.NewClientFromRedisClient(rig.rdb)
	inspector := asynq.NewInspectorFromRedisClient(rig.rdb)
	taskState := func(id string) *asynq.TaskInfo {
		t.Helper()
		info, err := inspector.GetTaskInfo("default", id)
		if err != nil {
			t.Fatalf("task %s: %v", id, err)
		}
		return info
	}
	releases := t.TempDir()
	release := func(id string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(releases, id), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	first := rig.start("asynq, first", nil)
	for _, id := range []string{"short", "long"} {
		payload, _ := json.Marshal(map[string]string{"id": id, "until": filepath.Join(releases, id)})
		// Retention keeps a completed task visible to the inspector.
		task := asynq.NewTask("e2e:hold", payload, asynq.TaskID(id), asynq.Timeout(time.Hour), asynq.MaxRetry(3), asynq.Retention(time.Hour))
		if _, err := client.Enqueue(task); err != nil {
			t.Fatalf("enqueueing %s: %v", id, err)
		}
	}
	first.waitLog(msgWith("e2e task started", "id", "short"))
	first.waitLog(msgWith("e2e task started", "id", "long"))
	sent := first.signal(syscall.SIGTERM)
	// The short task ends during the drain: after the signal, well inside
	// ASYNQ_SHUTDOWN_TIMEOUT (it notices the release within milliseconds).
	first.waitLog(msgIs("shutdown started"))
	release("short")
	if code := first.wait(); code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0", code)
	}
	shutdown := first.endAt.Sub(sent)
	drained := first.waitLog(msgWith("drained", "part", "asynq"))

	if n := first.logs.count(msgWith("e2e task done", "id", "short")); n != 1 {
		t.Errorf("the short task completed %d times before the exit, want 1", n)
	}
	if n := first.logs.count(msgWith("e2e task done", "id", "long")); n != 0 {
		t.Errorf("the long task completed although the test held it past ASYNQ_SHUTDOWN_TIMEOUT")
	}
	if n := first.logs.count(msgWith("e2e task cut", "id", "long")); n != 1 {
		t.Errorf("the long task's context was cancelled %d times at the shutdown timeout, want 1", n)
	}
	if s := taskState("short"); s.State != asynq.TaskStateCompleted {
		t.Errorf("short task after the shutdown: %v, want completed", s.State)
	}
	long := taskState("long")
	if long.State != asynq.TaskStatePending || long.Retried != 0 {
		t.Errorf("long task after the shutdown: %v with %d retries, want pending with 0 (pushed back, not failed)", long.State, long.Retried)
	}

	release("long")
	second := rig.start("asynq, restarted", nil)
	second.waitLog(msgWith("e2e task done", "id", "long"))
	second.stop()
	if n := second.logs.count(msgWith("e2e task started", "id", "short")); n != 0 {
		t.Errorf("the short task ran again after the restart (%d times)", n)
	}
	if s := taskState("long"); s.State != asynq.TaskStateCompleted {
		t.Errorf("long task after the restart: %v, want completed", s.State)
	}
	t.Logf("scenario 5, asynq in-process: 1/1 trial passed; the task released after SIGTERM completed once, the task held past ASYNQ_SHUTDOWN_TIMEOUT was cut, pushed back to pending with 0 retries and completed after the restart; asynq drain took %s, SIGTERM to exit %v",
		drained.str("took"), shutdown.Round(time.Millisecond))
}

// Issue 27: a Redis that stops answering while the service shuts down
// cannot hold the asynq drain past ASYNQ_SHUTDOWN_TIMEOUT + CLOSE_TIMEOUT.
// asynq's Shutdown pushes the task it cut back to Redis and says goodbye to
// it with no timer of its own; the service gives up on it at that bound,
// logs the drain as failed and exits 1 after closing the rest in order,
// instead of waiting for Redis's client timeouts (or SIGKILL).
func TestAsynqDrainIsBoundedWhenRedisHangs(t *testing.T) {
	e2eOnly(t)
	rig := newFullRig(t, fullShortAsynq)
	proxy := newHangingProxy(t, rig.env["REDIS_ADDR"])
	client := asynq.NewClientFromRedisClient(rig.rdb)
	svc := rig.start("asynq, Redis hangs at shutdown", map[string]string{"REDIS_ADDR": proxy.addr()})

	// A task that holds past ASYNQ_SHUTDOWN_TIMEOUT (its release never
	// comes), so Shutdown must push it back to Redis.
	payload, _ := json.Marshal(map[string]string{"id": "held", "until": filepath.Join(t.TempDir(), "never")})
	if _, err := client.Enqueue(asynq.NewTask("e2e:hold", payload, asynq.TaskID("held"), asynq.Timeout(time.Hour))); err != nil {
		t.Fatalf("enqueueing: %v", err)
	}
	svc.waitLog(msgWith("e2e task started", "id", "held"))
	proxy.hang()
	sent := svc.signal(syscall.SIGTERM)
	if code := svc.wait(); code != 1 {
		t.Errorf("exit %d after a drain Redis held, want 1 (a part over its budget)", code)
	}
	drained := svc.waitLog(msgWith("drained", "part", "asynq"))
	if drained.str("level") != "ERROR" || !strings.Contains(drained.str("err"), "ASYNQ_SHUTDOWN_TIMEOUT + CLOSE_TIMEOUT") {
		t.Errorf("asynq drain logged %v, want an error naming ASYNQ_SHUTDOWN_TIMEOUT + CLOSE_TIMEOUT", drained)
	}
	if svc.logs.count(msgIs("shutdown complete")) != 1 {
		t.Errorf("no \"shutdown complete\": the shutdown did not run to its end")
	}
	t.Logf("asynq drain with Redis hung from SIGTERM on: given up as %q after %s; SIGTERM to exit %v (measured under load)",
		drained.str("err"), drained.str("took"), svc.endAt.Sub(sent).Round(time.Millisecond))
}

// hangingProxy forwards TCP connections to a server until hang is called;
// from then on it passes nothing on in either direction while keeping every
// connection open: a server that stopped answering, not one that is down.
type hangingProxy struct {
	ln     net.Listener
	hung   chan struct{}
	closed chan struct{}
	once   sync.Once
}

func newHangingProxy(t *testing.T, target string) *hangingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &hangingProxy{ln: ln, hung: make(chan struct{}), closed: make(chan struct{})}
	var conns sync.WaitGroup
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() { p.serve(c, target) })
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		close(p.closed)
		conns.Wait()
	})
	return p
}

func (p *hangingProxy) addr() string { return p.ln.Addr().String() }

// hang stops forwarding.
func (p *hangingProxy) hang() { p.once.Do(func() { close(p.hung) }) }

func (p *hangingProxy) serve(c net.Conn, target string) {
	defer c.Close()
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	go p.pipe(c, up)
	p.pipe(up, c)
}

// pipe copies what src sends to dst; once the proxy hangs, it keeps what it
// reads until the test ends, then closes both.
func (p *hangingProxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		select {
		case <-p.hung:
			<-p.closed
			return
		default:
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
