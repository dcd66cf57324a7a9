package tasks

// Added by gsgen's end-to-end tests to the service they build, registered in
// example.go (the user's file) the way its comment asks for a new task type.
// It is not part of what gsgen generates.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// TypeE2ESleep is a task that takes as long as its payload says.
const TypeE2ESleep = "e2e:sleep"

// HandleE2ESleep waits for the payload's duration ({"id": "...", "for": "3s"})
// and logs "e2e task started", then "e2e task done", or "e2e task cut" when
// its context ends first (shutdown, timeout), as a handler that checks
// ctx.Done between steps would stop.
func (h *Handlers) HandleE2ESleep(ctx context.Context, t *asynq.Task) error {
	var p struct {
		ID  string `json:"id"`
		For string `json:"for"`
	}
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("decode %s payload: %v: %w", TypeE2ESleep, err, asynq.SkipRetry)
	}
	d, err := time.ParseDuration(p.For)
	if err != nil {
		return fmt.Errorf("%s payload: %v: %w", TypeE2ESleep, err, asynq.SkipRetry)
	}
	h.Logger.Info("e2e task started", "id", p.ID)
	select {
	case <-time.After(d):
		h.Logger.Info("e2e task done", "id", p.ID)
		return nil
	case <-ctx.Done():
		h.Logger.Info("e2e task cut", "id", p.ID, "err", ctx.Err())
		return ctx.Err()
	}
}
