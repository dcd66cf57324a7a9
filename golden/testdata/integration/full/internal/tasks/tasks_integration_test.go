package tasks

// These tests run the generated task server against a real Redis and check
// the shutdown contract of design §4: Stop takes no new task, Shutdown lets a
// short task finish, and a task that outlives ShutdownTimeout goes back to the
// queue (not as a retry) and runs again on the next server.
//
// Redis comes from GSGEN_TEST_REDIS_ADDR (default 127.0.0.1:6379). The tests
// use database 13, which no other test of this service uses, and flush only it.

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

const testDB = 13

// testConfig returns a task server config on the test database, emptied,
// with one worker and the given ShutdownTimeout. It skips the test when
// Redis is unreachable, and fails it instead when CI is set.
func testConfig(t *testing.T, shutdownTimeout time.Duration) Config {
	t.Helper()
	addr := os.Getenv("GSGEN_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, DB: testDB})
	t.Cleanup(func() { rdb.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Redis at %s is unreachable: %v", addr, err)
		}
		t.Skipf("Redis at %s is unreachable (%v): start redis-server or set GSGEN_TEST_REDIS_ADDR", addr, err)
	}
	flush := func() {
		if err := rdb.FlushDB(context.Background()).Err(); err != nil {
			t.Errorf("flush Redis DB %d: %v", testDB, err)
		}
	}
	flush()
	t.Cleanup(flush)
	return Config{RedisAddr: addr, RedisDB: testDB, Concurrency: 1, ShutdownTimeout: shutdownTimeout}
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}

// enqueue puts a task of type typ on the queue. Retention keeps it in Redis
// once done, so the test can read its final state.
func enqueue(t *testing.T, cfg Config, typ string) string {
	t.Helper()
	client := NewClient(cfg)
	defer client.Close()
	info, err := client.Enqueue(asynq.NewTask(typ, nil),
		asynq.Queue(QueueDefault), asynq.Timeout(time.Minute), asynq.MaxRetry(3), asynq.Retention(time.Hour))
	if err != nil {
		t.Fatalf("enqueue %s: %v", typ, err)
	}
	return info.ID
}

func taskInfo(t *testing.T, cfg Config, id string) *asynq.TaskInfo {
	t.Helper()
	inspector := asynq.NewInspector(RedisOpt(cfg))
	defer inspector.Close()
	info, err := inspector.GetTaskInfo(QueueDefault, id)
	if err != nil {
		t.Fatalf("task %s: %v", id, err)
	}
	return info
}

// waitState polls until the task reaches want; the deadline is generous
// because the test machine may be slow.
func waitState(t *testing.T, cfg Config, id string, want asynq.TaskState) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		info := taskInfo(t, cfg, id)
		if info.State == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %v, want %v", id, info.State, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(15 * time.Second):
		t.Fatalf("timed out waiting until %s", what)
	}
}

func startServer(t *testing.T, cfg Config, mux *asynq.ServeMux) *asynq.Server {
	t.Helper()
	srv := NewServer(cfg, testLogger(t))
	if err := srv.Ping(); err != nil {
		t.Fatalf("ping: %v", err)
	}
	if err := srv.Start(mux); err != nil {
		t.Fatalf("start: %v", err)
	}
	return srv
}

// A task that is running when Stop and Shutdown are called, and finishes
// within ShutdownTimeout, completes once and is not run again.
func TestShortTaskFinishesDuringShutdown(t *testing.T) {
	cfg := testConfig(t, 2*time.Second)
	started, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	var finished atomic.Bool
	mux := asynq.NewServeMux()
	mux.HandleFunc("test:short", func(ctx context.Context, _ *asynq.Task) error {
		if runs.Add(1) == 1 {
			close(started)
		}
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		finished.Store(true)
		return nil
	})
	srv := startServer(t, cfg, mux)
	id := enqueue(t, cfg, "test:short")
	waitClosed(t, started, "the task started")

	srv.Stop()
	// The task ends 200ms into Shutdown, well inside its 2s timeout.
	time.AfterFunc(200*time.Millisecond, func() { close(release) })
	srv.Shutdown()

	if !finished.Load() {
		t.Fatal("Shutdown returned while the task was still running")
	}
	info := taskInfo(t, cfg, id)
	if info.State != asynq.TaskStateCompleted || info.Retried != 0 {
		t.Errorf("task is %v with retried=%d, want completed with retried=0", info.State, info.Retried)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the task ran %d times, want 1", n)
	}
}

// A task still running when ShutdownTimeout ends is pushed back to pending,
// not counted as a retry, its context is cancelled, and a fresh server runs
// it again to completion.
func TestLongTaskGoesBackToQueue(t *testing.T) {
	cfg := testConfig(t, time.Second)
	started, cancelled := make(chan struct{}), make(chan struct{})
	first := asynq.NewServeMux()
	first.HandleFunc("test:long", func(ctx context.Context, _ *asynq.Task) error {
		close(started)
		select {
		case <-ctx.Done(): // longer than ShutdownTimeout: only cancellation ends it
			close(cancelled)
			return ctx.Err()
		case <-time.After(time.Minute):
			return errors.New("context was never cancelled")
		}
	})
	srv := startServer(t, cfg, first)
	id := enqueue(t, cfg, "test:long")
	waitClosed(t, started, "the task started")

	srv.Stop()
	srv.Shutdown()

	info := taskInfo(t, cfg, id)
	if info.State != asynq.TaskStatePending || info.Retried != 0 {
		t.Fatalf("after Shutdown the task is %v with retried=%d, want pending with retried=0", info.State, info.Retried)
	}
	waitClosed(t, cancelled, "the cut task's context was cancelled")

	done := make(chan struct{})
	var retried atomic.Int32
	second := asynq.NewServeMux()
	second.HandleFunc("test:long", func(ctx context.Context, _ *asynq.Task) error {
		n, _ := asynq.GetRetryCount(ctx)
		retried.Store(int32(n))
		close(done)
		return nil
	})
	fresh := startServer(t, cfg, second)
	defer fresh.Shutdown()
	waitClosed(t, done, "the fresh server ran the task")
	waitState(t, cfg, id, asynq.TaskStateCompleted)
	if n := retried.Load(); n != 0 {
		t.Errorf("the second run saw retry count %d, want 0", n)
	}
}

// After Stop the server takes no task from the queue, not even when a worker
// becomes free: neither one queued before Stop nor one queued after it.
func TestStopTakesNoNewTask(t *testing.T) {
	cfg := testConfig(t, 2*time.Second) // one worker
	started, release := make(chan struct{}), make(chan struct{})
	var quickRuns atomic.Int32
	mux := asynq.NewServeMux()
	mux.HandleFunc("test:hold", func(ctx context.Context, _ *asynq.Task) error {
		close(started)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	mux.HandleFunc("test:quick", func(context.Context, *asynq.Task) error {
		quickRuns.Add(1)
		return nil
	})
	srv := startServer(t, cfg, mux)
	defer srv.Shutdown()
	hold := enqueue(t, cfg, "test:hold")
	waitClosed(t, started, "the first task started")
	before := enqueue(t, cfg, "test:quick") // waits: the only worker is busy

	srv.Stop()
	after := enqueue(t, cfg, "test:quick")
	close(release)
	waitState(t, cfg, hold, asynq.TaskStateCompleted)
	// The worker is free now; a server that was not stopped would take the
	// next task within one poll (100ms). Give it ten.
	time.Sleep(time.Second)

	for _, id := range []string{before, after} {
		if info := taskInfo(t, cfg, id); info.State != asynq.TaskStatePending {
			t.Errorf("task %s is %v after Stop, want pending", id, info.State)
		}
	}
	if n := quickRuns.Load(); n != 0 {
		t.Errorf("the stopped server ran %d new tasks, want 0", n)
	}
}

// The example task carries explicit limits and runs through the generated mux.
func TestWelcomeEmailTask(t *testing.T) {
	cfg := testConfig(t, 2*time.Second)
	task, err := NewWelcomeEmailTask(WelcomeEmailPayload{UserID: 7, Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	client := NewClient(cfg)
	defer client.Close()
	info, err := client.Enqueue(task, asynq.Retention(time.Hour))
	if err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	if info.Timeout != TaskTimeout || info.MaxRetry >= 25 {
		t.Errorf("task has timeout %v and max retry %d, want timeout %v and fewer than asynq's default 25 retries",
			info.Timeout, info.MaxRetry, TaskTimeout)
	}
	srv := startServer(t, cfg, NewMux(&Handlers{Logger: testLogger(t)}))
	defer srv.Shutdown()
	waitState(t, cfg, info.ID, asynq.TaskStateCompleted)
}
