// Command outboxright is the source text's service as the design corrects
// it: readiness first, cancel, HTTP drained on a fresh deadline, wg.Wait,
// the writer and then the pool closed last; the batch on a context SIGTERM
// does not cancel, with a deadline of its own. No rule reports it.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"
)

type appState struct{ ready atomic.Bool }

func (s *appState) SetNotReady() { s.ready.Store(false) }

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		slog.Error("pgxpool connect", "error", err)
		os.Exit(1)
	}
	producer := &kafka.Writer{
		Addr:         kafka.TCP("kafka:9092"),
		RequiredAcks: kafka.RequireAll,
		Balancer:     &kafka.Hash{},
		BatchSize:    50,
		BatchTimeout: time.Millisecond,
	}
	relay := &OutboxRelay{pool: pool, producer: producer, interval: 500 * time.Millisecond, batchTimeout: 10 * time.Second}
	consumer := &ProductConsumer{reader: kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"kafka:9092"}, GroupID: "orders", Topic: "products", MaxWait: 250 * time.Millisecond})}

	var wg sync.WaitGroup
	wg.Add(1)
	go relay.Run(ctx, &wg)
	wg.Add(1)
	go consumer.Run(ctx, &wg)

	state := &appState{}
	srv := &http.Server{Addr: ":8080", Handler: http.NewServeMux(), ReadHeaderTimeout: 5 * time.Second}
	errC := make(chan error, 1)
	go func() { errC <- srv.ListenAndServe() }()

	sigC := make(chan os.Signal, 1)
	signal.Notify(sigC, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigC)
	select {
	case sig := <-sigC:
		slog.Info("graceful shutdown", "signal", sig.String())
	case err := <-errC:
		slog.Error("server error", "error", err)
	}

	state.SetNotReady() // readiness -> 503 first
	cancel()            // loops start no new iteration

	shutCtx, shutCancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer shutCancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		slog.Error("http shutdown", "error", err)
	}
	wg.Wait()
	if err := producer.Close(); err != nil {
		slog.Error("kafka writer close", "error", err)
	}
	consumer.reader.Close()
	pool.Close() // the pool last
}
