// Command runsignal runs asynq with Run in a goroutine and stops the rest of
// the service on its own SIGTERM handler: the two shutdowns race.
package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/hibiken/asynq"
)

func work(ctx context.Context) {}

func main() {
	srv := asynq.NewServer(asynq.RedisClientOpt{Addr: "localhost:6379"}, asynq.Config{Concurrency: 10})
	go func() {
		if err := srv.Run(asynq.NewServeMux()); err != nil { // want `asynq Server.Run beside the program's own signal handling \(main.go:31\)`
			log.Fatal(err)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	go work(ctx)
	run(cancel)
}

func run(cancel context.CancelFunc) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	<-sigs
	cancel()
}
