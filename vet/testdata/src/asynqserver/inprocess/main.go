// Command inprocess runs asynq beside HTTP with Start, as lesson 21 does, and
// stops it from its own signal handling.
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

type app struct {
	tasks *asynq.Server
	api   *http.Server
}

func main() {
	a := &app{
		tasks: asynq.NewServer(asynq.RedisClientOpt{Addr: "localhost:6379"}, asynq.Config{Concurrency: 10, ShutdownTimeout: 25 * time.Second}),
		api:   &http.Server{Addr: ":8080", ReadHeaderTimeout: 5 * time.Second},
	}
	if err := a.tasks.Start(asynq.NewServeMux()); err != nil {
		log.Fatal(err)
	}
	go a.api.ListenAndServe()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	<-sigs
	a.stop()
}

// stop is the lesson's order: Stop, Shutdown, then HTTP.
func (a *app) stop() {
	a.tasks.Stop()
	a.tasks.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	a.api.Shutdown(ctx)
}

// stopElsewhere stops in another function: the order is not known, so a
// Stop anywhere in the package counts.
func (a *app) shutdownOnly() {
	a.tasks.Shutdown()
}

func noStop(srv *asynq.Server) {
	srv.Shutdown() // want `asynq Shutdown without Stop first`
}

func stopAfter(srv *asynq.Server) {
	srv.Shutdown() // want `asynq Shutdown runs before srv.Stop\(\)`
	srv.Stop()
}

func stopOnly(srv *asynq.Server) {
	srv.Stop() // want `asynq Stop without Shutdown`
}
