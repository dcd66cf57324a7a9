// Command runnotifyctx handles SIGTERM with signal.NotifyContext and runs
// asynq with Run.
package main

import (
	"context"
	"log"
	"os/signal"
	"syscall"

	"github.com/hibiken/asynq"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	_ = ctx
	srv := asynq.NewServer(asynq.RedisClientOpt{Addr: "localhost:6379"}, asynq.Config{Concurrency: 10})
	if err := srv.Run(asynq.NewServeMux()); err != nil { // want `asynq Server.Run beside the program's own signal handling`
		log.Fatal(err)
	}
}
