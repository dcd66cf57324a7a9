package tasks

// Added by gsgen's end-to-end tests to the service they build, registered in
// example.go (the user's file) the way its comment asks for a new task type.
// It is not part of what gsgen generates.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/hibiken/asynq"
)

// TypeE2EHold is a task that runs until the test releases it.
const TypeE2EHold = "e2e:hold"

// HandleE2EHold logs "e2e task started", then holds until the file named in
// its payload ({"id": "...", "until": "/tmp/.../release"}) exists and logs
// "e2e task done" — or logs "e2e task cut" when its context ends first
// (shutdown, timeout), as a handler that checks ctx.Done between steps would
// stop. The test decides when a task ends, so no clock decides what it sees.
func (h *Handlers) HandleE2EHold(ctx context.Context, t *asynq.Task) error {
	var p struct {
		ID    string `json:"id"`
		Until string `json:"until"`
	}
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("decode %s payload: %v: %w", TypeE2EHold, err, asynq.SkipRetry)
	}
	h.Logger.Info("e2e task started", "id", p.ID)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(p.Until); err == nil {
			h.Logger.Info("e2e task done", "id", p.ID)
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			h.Logger.Info("e2e task cut", "id", p.ID, "err", ctx.Err())
			return ctx.Err()
		}
	}
}
