// Command dedicatedworker is the lesson's minimal main: a worker that does
// nothing else, so Run owns the signals.
package main

import (
	"context"
	"log"
	"time"

	"github.com/hibiken/asynq"
)

func handleWelcomeEmail(ctx context.Context, t *asynq.Task) error { return nil }

func main() {
	srv := asynq.NewServer(
		asynq.RedisClientOpt{Addr: "localhost:6379"},
		asynq.Config{Concurrency: 10, ShutdownTimeout: 25 * time.Second},
	)
	mux := asynq.NewServeMux()
	mux.HandleFunc("email:welcome", handleWelcomeEmail)
	if err := srv.Run(mux); err != nil {
		log.Fatal(err)
	}
}
