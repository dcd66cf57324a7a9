package tasks

// This file is yours: gsgen wrote it once and will not touch it again, and
// `gsgen remove task report:build` leaves it in place. gsgen keeps the
// task's name, options, registration and EnqueueReportBuild in types.go.

import "context"

// ReportBuildPayload is the report:build task's body, stored in Redis as
// JSON. During a rolling deploy the old release enqueues what the new one
// handles: add fields, never change the meaning of one.
type ReportBuildPayload struct {
	ID string `json:"id"`
}

// HandleReportBuild handles one report:build task.
//
// The same task can run more than once: a deploy that outlasts
// ASYNQ_SHUTDOWN_TIMEOUT puts it back on its queue and it runs again from
// the start, and a crash brings it back as a retry. Make every step safe to
// repeat, and check ctx between steps: once it is cancelled (shutdown, the
// task's timeout of 20s), start no further step. An
// error is retried (up to 5 times); wrap asynq.SkipRetry in it for
// one that retrying cannot fix.
func (h *Handlers) HandleReportBuild(ctx context.Context, p ReportBuildPayload) error {
	h.Logger.InfoContext(ctx, "report:build handled", "id", p.ID)
	return nil
}

// The user's note: reports are built from the read replica.
