// Command outboxwrong is the source text's service (background goroutines:
// outbox relay, consumer, cleaner) with the mistakes the text warns about,
// each where a hurried hand puts it. Every rule that applies catches its own.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"
)

type config struct {
	DatabaseURL string
	KafkaBroker string
	Addr        string
}

func buildRouter() http.Handler { return http.NewServeMux() }

func main() {
	cfg := config{DatabaseURL: os.Getenv("DATABASE_URL"), KafkaBroker: "kafka:9092", Addr: ":8080"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	pool, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		slog.Error("pgxpool connect", "error", err)
		os.Exit(1)
	}

	producer := &kafka.Writer{Addr: kafka.TCP(cfg.KafkaBroker), Topic: "order-events"} // want `without RequiredAcks .*\[kafkawriter\]` `default BatchTimeout .*\[kafkawriter\]`
	relay := &OutboxRelay{pool: pool, producer: producer, interval: 500 * time.Millisecond}
	consumer := &ProductConsumer{reader: kafka.NewReader(kafka.ReaderConfig{Brokers: []string{cfg.KafkaBroker}, GroupID: "orders", Topic: "products"})}
	cleaner := &ExpiredOrderCleaner{pool: pool}

	var wg sync.WaitGroup
	wg.Add(1)
	go relay.Run(ctx, &wg)
	wg.Add(1)
	go consumer.Run(ctx, &wg)
	go cleaner.Run(ctx, &wg)

	srv := &http.Server{Addr: cfg.Addr, Handler: buildRouter()} // want `http.Server without ReadHeaderTimeout.*\[httpserver\]`
	go srv.ListenAndServe()

	sigC := make(chan os.Signal)
	signal.Notify(sigC, syscall.SIGTERM, syscall.SIGINT) // want `misuse of unbuffered os.Signal channel as argument to signal.Notify \[sigchanyzer\]`
	<-sigC

	cancel()
	// The HTTP drain "reuses" the context that was just cancelled.
	if err := srv.Shutdown(ctx); err != nil { // want `Shutdown gets a context that is already done \(cancel\(\) at line 58 cancelled it\).*\[shutdownctx\]`
		slog.Error("http shutdown", "error", err)
	}
	pool.Close() // want `pool.Close\(\) runs before wg.Wait\(\) \(line 64\).*\[closeorder\]`
	wg.Wait()
	producer.Close()
}
