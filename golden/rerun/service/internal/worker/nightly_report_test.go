package worker

// This file is yours, like nightly_report.go: test your worker's
// function here as it grows.

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"example.com/shop/internal/parts"
	"example.com/shop/internal/testenv"
)

func TestNightlyReport(t *testing.T) {
	pool, _ := testenv.Postgres(t)
	// The deadline the worker gives each run.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := NightlyReport(ctx, parts.Deps{Logger: slog.New(slog.DiscardHandler), Pool: pool}); err != nil {
		t.Fatalf("NightlyReport: %v", err)
	}
}
