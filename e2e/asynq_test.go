package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
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
