// Command webworkerright is lesson 21's web+worker pair done right: Start,
// the service's own signal handling, Stop, Shutdown, then HTTP; task
// timeouts within ShutdownTimeout.
package main

import (
	"context"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hibiken/asynq"
)

const TypeWelcomeEmail = "email:welcome"

func NewWelcomeEmailTask(payload []byte) *asynq.Task {
	return asynq.NewTask(TypeWelcomeEmail, payload, asynq.Timeout(20*time.Second), asynq.MaxRetry(5))
}

func main() {
	srv := asynq.NewServer(asynq.RedisClientOpt{Addr: "localhost:6379"}, asynq.Config{Concurrency: 10, ShutdownTimeout: 25 * time.Second})
	if err := srv.Start(asynq.NewServeMux()); err != nil {
		log.Fatal(err)
	}
	httpSrv := &http.Server{Addr: ":8080", ReadHeaderTimeout: 5 * time.Second}
	go httpSrv.ListenAndServe()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	<-sigs
	srv.Stop()     // take no new tasks
	srv.Shutdown() // wait for the running ones, up to ShutdownTimeout
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	httpSrv.Shutdown(ctx)
	log.Print("shut down")
}
