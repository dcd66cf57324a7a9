// Command webworkerwrong is lesson 21's web+worker pair in one process, put
// together the way the lesson says not to: Run in a goroutine beside the
// HTTP server and the service's own SIGTERM handler, the worker stopped with
// Stop only, and a task timeout asynq's default ShutdownTimeout cannot hold.
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

const TypeReport = "report:build"

func NewReportTask(payload []byte) *asynq.Task {
	return asynq.NewTask(TypeReport, payload, asynq.Timeout(10*time.Minute)) // want `asynq.Timeout\(10m0s\) is longer than ShutdownTimeout 8s \(asynq's default, as asynq.Config at main.go:\d+ leaves it unset\).*\[asynqserver\]`
}

func main() {
	opt := asynq.RedisClientOpt{Addr: "localhost:6379"}
	worker := asynq.NewServer(opt, asynq.Config{Concurrency: 10})
	mux := asynq.NewServeMux()
	go func() {
		if err := worker.Run(mux); err != nil { // want `asynq Server.Run in a program that also serves HTTP \(main.go:\d+\).*\[asynqserver\]`
			log.Fatal(err)
		}
	}()

	httpSrv := &http.Server{Addr: ":8080", ReadHeaderTimeout: 5 * time.Second}
	go httpSrv.ListenAndServe()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	<-sigs
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	httpSrv.Shutdown(ctx)
}

// pause is the quiz's mistake: Stop, then return from main.
func pause(srv *asynq.Server) {
	srv.Stop() // want `asynq Stop without Shutdown.*\[asynqserver\]`
}
