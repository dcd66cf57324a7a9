package e2e

import (
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
)

// Scenario 5: asynq beside HTTP (srv.Start). At SIGTERM one task shorter and
// one longer than ASYNQ_SHUTDOWN_TIMEOUT are running: the short one completes,
// once; the long one goes back to pending, not counted as a retry, and
// completes after the restart. Nothing is lost.
func TestAsynqShutdownRequeuesLongTask(t *testing.T) {
	e2eOnly(t)
	rig := newFullRig(t, fullShortAsynq)
	const shutdownTimeout = 2 * time.Second // ASYNQ_SHUTDOWN_TIMEOUT of fullShortAsynq
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

	first := rig.start("asynq, first", nil)
	for id, d := range map[string]time.Duration{"short": shutdownTimeout / 4, "long": 2 * shutdownTimeout} {
		payload, _ := json.Marshal(map[string]string{"id": id, "for": d.String()})
		// Retention keeps a completed task visible to the inspector.
		task := asynq.NewTask("e2e:sleep", payload, asynq.TaskID(id), asynq.Timeout(30*time.Second), asynq.MaxRetry(3), asynq.Retention(time.Hour))
		if _, err := client.Enqueue(task); err != nil {
			t.Fatalf("enqueueing %s: %v", id, err)
		}
	}
	first.waitLog(msgWith("e2e task started", "id", "short"))
	first.waitLog(msgWith("e2e task started", "id", "long"))
	sent := first.signal(syscall.SIGTERM)
	if code := first.wait(); code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0", code)
	}
	shutdown := first.endAt.Sub(sent)
	drained := first.waitLog(msgWith("drained", "part", "asynq"))

	if n := first.logs.count(msgWith("e2e task done", "id", "short")); n != 1 {
		t.Errorf("the short task completed %d times before the exit, want 1", n)
	}
	if n := first.logs.count(msgWith("e2e task done", "id", "long")); n != 0 {
		t.Errorf("the long task completed although it outlasts ASYNQ_SHUTDOWN_TIMEOUT %v", shutdownTimeout)
	}
	if s := taskState("short"); s.State != asynq.TaskStateCompleted {
		t.Errorf("short task after the shutdown: %v, want completed", s.State)
	}
	long := taskState("long")
	if long.State != asynq.TaskStatePending || long.Retried != 0 {
		t.Errorf("long task after the shutdown: %v with %d retries, want pending with 0 (pushed back, not failed)", long.State, long.Retried)
	}

	second := rig.start("asynq, restarted", nil)
	second.waitLog(msgWith("e2e task done", "id", "long"))
	second.stop()
	if n := second.logs.count(msgWith("e2e task started", "id", "short")); n != 0 {
		t.Errorf("the short task ran again after the restart (%d times)", n)
	}
	if s := taskState("long"); s.State != asynq.TaskStateCompleted {
		t.Errorf("long task after the restart: %v, want completed", s.State)
	}
	t.Logf("scenario 5, asynq in-process: 1/1 trial passed; short task (%v) completed once, long task (%v) pushed back to pending with 0 retries and completed after the restart; ASYNQ_SHUTDOWN_TIMEOUT %v, asynq drain took %s, SIGTERM to exit %v",
		shutdownTimeout/4, 2*shutdownTimeout, shutdownTimeout, drained.str("took"), shutdown.Round(time.Millisecond))
}
