// Command broken serves HTTP without a header timeout, closes its pool before
// its loops are done, and silences one finding on purpose.
package main

import (
	"context"
	"database/sql"
	"net/http"
	"sync"
	"time"
)

func main() {
	srv := &http.Server{Addr: ":8080"}
	debug := &http.Server{Addr: "127.0.0.1:6060"} //gsgen:ignore httpserver local pprof listener, no client reaches it
	go srv.ListenAndServe()
	go debug.ListenAndServe()

	var db *sql.DB
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	wg.Add(1)
	go run(ctx, &wg, db)
	time.Sleep(time.Minute)
	cancel()
	db.Close()
	wg.Wait()
}

func run(ctx context.Context, wg *sync.WaitGroup, db *sql.DB) {
	defer wg.Done()
	<-ctx.Done()
}
