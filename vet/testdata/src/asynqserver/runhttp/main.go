// Command runhttp runs asynq with Run beside an HTTP server in one process.
package main

import (
	"log"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
)

func main() {
	srv := asynq.NewServer(asynq.RedisClientOpt{Addr: "localhost:6379"}, asynq.Config{Concurrency: 10, ShutdownTimeout: 25 * time.Second})
	api := &http.Server{Addr: ":8080", ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := api.ListenAndServe(); err != nil {
			log.Print(err)
		}
	}()
	if err := srv.Run(asynq.NewServeMux()); err != nil { // want `asynq Server.Run in a program that also serves HTTP \(main.go:16\)`
		log.Fatal(err)
	}
}
