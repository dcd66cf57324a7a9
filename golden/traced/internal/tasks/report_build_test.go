package tasks

// This file is yours, like report_build.go: test your handler here as it
// grows.

import (
	"context"
	"log/slog"
	"testing"
	"time"
)

func TestHandleReportBuild(t *testing.T) {
	h := &Handlers{Logger: slog.New(slog.DiscardHandler)}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.HandleReportBuild(ctx, ReportBuildPayload{ID: "42"}); err != nil {
		t.Fatalf("HandleReportBuild: %v", err)
	}
}
