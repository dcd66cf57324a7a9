package tasks

// This file is yours, like example.go: gsgen wrote it once and will not
// touch it again. It shows how to test a task type: its handler as a plain
// function, and the whole path through Redis and the server with the
// helpers of server_test.go (newTestServer: a server of the test's own, on
// a queue of its own, in the Redis of REDIS_ADDR and REDIS_DB).

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The handler, called directly: no Redis needed.
func TestHandleWelcomeEmail(t *testing.T) {
	h := &Handlers{Logger: slog.New(slog.DiscardHandler)}
	task, err := NewWelcomeEmailTask(WelcomeEmailPayload{UserID: 7, Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.HandleWelcomeEmail(context.Background(), task); err != nil {
		t.Errorf("a good payload: %v", err)
	}
	// A payload that can never be decoded must not be retried.
	err = h.HandleWelcomeEmail(context.Background(), asynq.NewTask(TypeWelcomeEmail, []byte("not json")))
	if !errors.Is(err, asynq.SkipRetry) {
		t.Errorf("a broken payload: %v, want an error wrapping asynq.SkipRetry", err)
	}
}

// The task end to end: enqueued with its limits, routed by the mux, done.
func TestWelcomeEmailTaskRuns(t *testing.T) {
	s := newTestServer(t, TaskTimeout)
	task, err := NewWelcomeEmailTask(WelcomeEmailPayload{UserID: 7, Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	client := NewClient(s.cfg)
	defer client.Close()
	info, err := client.Enqueue(task, asynq.Queue(s.queue), asynq.Retention(time.Hour))
	if err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	if info.Timeout != TaskTimeout || info.MaxRetry >= 25 {
		t.Errorf("task has timeout %v and max retry %d, want timeout %v and fewer than asynq's default 25 retries",
			info.Timeout, info.MaxRetry, TaskTimeout)
	}
	s.start(NewMux(&Handlers{Logger: slog.New(slog.DiscardHandler)}))
	s.waitState(info.ID, asynq.TaskStateCompleted)
}

// EnqueueWelcomeEmail carries the trace of the span it is called in.
func TestEnqueueWelcomeEmailCarriesTheTrace(t *testing.T) {
	s := newTestServer(t, TaskTimeout)
	client := NewClient(s.cfg)
	defer client.Close()
	ctx, span := sdktrace.NewTracerProvider().Tracer("test").Start(context.Background(), "enqueue")
	defer span.End()
	info, err := EnqueueWelcomeEmail(ctx, client, WelcomeEmailPayload{UserID: 7, Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	checkStoredTrace(t, ctx, s.cfg, info)
}
