// Command dedicated is a dedicated worker, as the lesson's minimal main and
// gsgen's worker: Run owns the first signal; a watcher only counts them and
// exits on the second.
package main

import (
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hibiken/asynq"
)

func main() {
	srv := asynq.NewServer(asynq.RedisClientOpt{Addr: "localhost:6379"}, asynq.Config{Concurrency: 10, ShutdownTimeout: 25 * time.Second})
	first := watchSignals()
	if err := srv.Run(asynq.NewServeMux()); err != nil {
		log.Fatal(err)
	}
	log.Printf("drained in %v", time.Since(<-first))
}

func watchSignals() <-chan time.Time {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, os.Interrupt)
	first := make(chan time.Time, 1)
	go func() {
		sig := <-signals
		first <- time.Now()
		log.Printf("shutdown started by %v", sig)
		<-signals
		os.Exit(1)
	}()
	return first
}
