package closeorder

import (
	"context"
	"database/sql"
	"net/http"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"
)

type relay struct {
	pool     *pgxpool.Pool
	producer *kafka.Writer
}

func (r *relay) Run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	<-ctx.Done()
}

func poolBeforeWait(ctx context.Context, pool *pgxpool.Pool) {
	var wg sync.WaitGroup
	r := &relay{pool: pool}
	wg.Add(1)
	go r.Run(ctx, &wg)
	pool.Close() // want `pool.Close\(\) runs before wg.Wait\(\) \(line 31\)`
	wg.Wait()
}

func dbBeforeHTTP(srv *http.Server, db *sql.DB) {
	db.Close() // want `db.Close\(\) runs before http.Server.Shutdown`
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
}

func poolBeforeAsynq(srv *asynq.Server, pool *pgxpool.Pool) {
	srv.Stop()
	pool.Close() // want `pool.Close\(\) runs before asynq Server.Shutdown`
	srv.Shutdown()
}

// deferOrder: deferred calls run last deferred first, so the pool closes
// before the wait.
func deferOrder(pool *pgxpool.Pool, wg *sync.WaitGroup) {
	defer wg.Wait()
	defer pool.Close() // want `pool.Close\(\) runs before wg.Wait\(\)`
}

func deferOrderRight(pool *pgxpool.Pool, wg *sync.WaitGroup) {
	defer pool.Close()
	defer wg.Wait()
}

// seed is the source text's main: Shutdown, wg.Wait, writer, pool last.
func seed(ctx context.Context, pool *pgxpool.Pool, srv *http.Server, stop <-chan struct{}) {
	producer := &kafka.Writer{Addr: kafka.TCP("kafka:9092"), Topic: "order-events"}
	r := &relay{pool: pool, producer: producer}
	var wg sync.WaitGroup
	wg.Add(1)
	go r.Run(ctx, &wg)
	<-stop
	shutCtx, shutCancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer shutCancel()
	srv.Shutdown(shutCtx)
	wg.Wait()
	producer.Close()
	pool.Close()
}

// errorPath closes the pool on a path that returns before any drain.
func errorPath(ctx context.Context, pool *pgxpool.Pool, wg *sync.WaitGroup) error {
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return err
	}
	wg.Wait()
	pool.Close()
	return nil
}

func step(name string, do func()) { do() }

// steps is the generated main's shape: numbered steps as literals.
func steps(pool *pgxpool.Pool, wg *sync.WaitGroup) {
	step("drain", func() {
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		<-done
	})
	step("close", func() { pool.Close() })
}

func stepsWrong(pool *pgxpool.Pool, wg *sync.WaitGroup) {
	step("close", func() { pool.Close() }) // want `pool.Close\(\) runs before wg.Wait\(\)`
	step("drain", func() { wg.Wait() })
}

// closeAll is called after the drain, where it is called, not where it is written.
func boundLater(pool *pgxpool.Pool, wg *sync.WaitGroup) {
	closeAll := func() { pool.Close() }
	wg.Wait()
	closeAll()
}

func boundEarly(pool *pgxpool.Pool, wg *sync.WaitGroup) {
	closeAll := func() { pool.Close() } // want `pool.Close\(\) runs before wg.Wait\(\)`
	closeAll()
	wg.Wait()
}

func writerBeforeWait(ctx context.Context, w *kafka.Writer) {
	r := &relay{producer: w}
	var wg sync.WaitGroup
	wg.Add(1)
	go r.Run(ctx, &wg)
	r.producer.Close() // want `r.producer.Close\(\) runs before wg.Wait\(\) \(line \d+\)`
	wg.Wait()
}

func readerBeforeWait(ctx context.Context, wg *sync.WaitGroup) {
	reader := kafka.NewReader(kafka.ReaderConfig{Topic: "events"})
	wg.Add(1)
	go consume(ctx, wg, reader)
	reader.Close() // want `reader.Close\(\) runs before wg.Wait\(\)`
	wg.Wait()
}

func consume(ctx context.Context, wg *sync.WaitGroup, r *kafka.Reader) {
	defer wg.Done()
	for {
		if _, err := r.FetchMessage(ctx); err != nil {
			return
		}
	}
}

// writerOwn is a writer nobody else uses: closing it first harms no loop.
func writerOwn(wg *sync.WaitGroup) {
	w := &kafka.Writer{}
	w.Close()
	wg.Wait()
}

// readerOfItsOwn reads with a reader it never hands to the loop it starts:
// closing it before wg.Wait cuts nothing the loop does.
func readerOfItsOwn(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1)
	go consume(ctx, wg, nil)
	reader := kafka.NewReader(kafka.ReaderConfig{Topic: "events"})
	defer wg.Wait()
	defer reader.Close()
	if _, err := reader.ReadMessage(ctx); err != nil {
		return
	}
}
