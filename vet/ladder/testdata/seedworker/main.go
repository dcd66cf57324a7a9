// Command seedworker is the lesson's minimal dedicated worker: Run owns the
// signals, and ShutdownTimeout is left at asynq's default.
package main

import (
	"log"

	"github.com/hibiken/asynq"
)

func main() {
	srv := asynq.NewServer(
		asynq.RedisClientOpt{Addr: "localhost:6379"},
		asynq.Config{Concurrency: 10},
	)
	if err := srv.Run(asynq.NewServeMux()); err != nil {
		log.Fatal(err)
	}
}
