package worker

// This file is yours, like weekly_digest.go: test your worker's
// function here as it grows.

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"example.com/shop/internal/parts"
	"example.com/shop/internal/testenv"
)

func TestWeeklyDigest(t *testing.T) {
	pool, _ := testenv.Postgres(t)
	// The deadline the worker gives each run.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := WeeklyDigest(ctx, parts.Deps{Logger: slog.New(slog.DiscardHandler), Pool: pool}); err != nil {
		t.Fatalf("WeeklyDigest: %v", err)
	}
}
