package tasks

// This file is yours: gsgen wrote it once and will not touch it again. It
// shows one task type from end to end; copy it for your own.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hibiken/asynq"
)

// register routes each task type to its handler. NewMux calls it: add a line
// for every task type you add.
func (h *Handlers) register(mux *asynq.ServeMux) {
	mux.HandleFunc(TypeWelcomeEmail, h.HandleWelcomeEmail)
}

// TypeWelcomeEmail names the task in Redis. Do not rename a type while tasks
// of it may still be queued: after the deploy they would find no handler.
const TypeWelcomeEmail = "email:welcome"

// WelcomeEmailPayload is the task's body, stored in Redis as JSON. During a
// rolling deploy the old release enqueues what the new one handles: add
// fields, never change the meaning of one.
type WelcomeEmailPayload struct {
	UserID int64  `json:"user_id"`
	Email  string `json:"email"`
}

// NewWelcomeEmailTask builds the task. Enqueue it with EnqueueWelcomeEmail,
// which gives it the trace of its caller's span.
func NewWelcomeEmailTask(p WelcomeEmailPayload) (*asynq.Task, error) {
	return newWelcomeEmailTask(p, nil)
}

// EnqueueWelcomeEmail enqueues the task with the traceparent of ctx's span
// in its headers, so that its handler's span continues that trace.
func EnqueueWelcomeEmail(ctx context.Context, c *asynq.Client, p WelcomeEmailPayload) (*asynq.TaskInfo, error) {
	task, err := newWelcomeEmailTask(p, TraceHeaders(ctx))
	if err != nil {
		return nil, err
	}
	return c.EnqueueContext(ctx, task)
}

func newWelcomeEmailTask(p WelcomeEmailPayload, headers map[string]string) (*asynq.Task, error) {
	payload, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", TypeWelcomeEmail, err)
	}
	return asynq.NewTaskWithHeaders(TypeWelcomeEmail, payload, headers,
		asynq.Queue(QueueDefault),
		// Without it asynq allows 30 minutes. asynq keeps whole seconds
		// only: a timeout under one second silently becomes those 30 minutes.
		asynq.Timeout(TaskTimeout),
		// asynq's default is 25 retries, spread over about three weeks.
		asynq.MaxRetry(5),
	), nil
}

// HandleWelcomeEmail sends one user's welcome email.
//
// The same task can run more than once: a deploy that outlasts
// ShutdownTimeout pushes it back to the queue and it runs again from the
// start; after a crash it comes back as a retry once its lease expires. So
// every step is safe to repeat, and ctx is checked between steps: once ctx
// is cancelled (shutdown, TaskTimeout) the handler starts no further step,
// because asynq may already have handed the task to another worker.
func (h *Handlers) HandleWelcomeEmail(ctx context.Context, t *asynq.Task) error {
	var p WelcomeEmailPayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		// A payload that cannot be decoded never will be: do not retry.
		return fmt.Errorf("decode %s payload: %v: %w", TypeWelcomeEmail, err, asynq.SkipRetry)
	}

	// Step 1: render. No side effect, so running it twice costs nothing.
	body := fmt.Sprintf("Welcome! Your account %d is ready.", p.UserID)

	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}

	// Step 2: send. The task ID stays the same when the task runs again; as
	// the provider's idempotency key it turns a repeated send into a no-op.
	key, _ := asynq.GetTaskID(ctx)
	if err := h.sendEmail(ctx, key, p.Email, body); err != nil {
		return fmt.Errorf("send welcome email to user %d: %w", p.UserID, err)
	}
	return nil
}

// sendEmail stands in for your email provider's client.
func (h *Handlers) sendEmail(ctx context.Context, idempotencyKey, to, body string) error {
	h.Logger.InfoContext(ctx, "welcome email sent", "to", to, "idempotency_key", idempotencyKey, "bytes", len(body))
	return nil
}
