package txctx

import (
	"context"
	"database/sql"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

type Relay struct {
	pool    *pgxpool.Pool
	db      *sql.DB
	timeout time.Duration
}

func (r *Relay) Run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			r.onLoopCtx(ctx)
			r.onBackground(ctx)
			r.right(ctx)
			r.derived(ctx)
			r.sqlTx(ctx)
			r.sqlBegin()
			r.beginFunc(ctx)
			r.clean(ctx)
			r.batchOnLoopCtx(ctx)
			r.batchRight(ctx)
			r.batchNoTx(ctx)
		}
	}
}

// onLoopCtx begins on the loop's ctx: SIGTERM cuts the batch in half.
func (r *Relay) onLoopCtx(ctx context.Context) error {
	tx, err := r.pool.Begin(ctx) // want `transaction begun on the Run loop's ctx`
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	return tx.Commit(ctx)
}

// onBackground is the source text's batch: it survives SIGTERM, but nothing
// bounds it.
func (r *Relay) onBackground(ctx context.Context) error {
	tx, err := r.pool.Begin(context.Background()) // want `transaction begun inside a Run loop on a context without a deadline`
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	return tx.Commit(context.Background())
}

// right is the design's batch: not cancelled by SIGTERM, bounded by its own timeout.
func (r *Relay) right(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
	defer cancel()
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	return tx.Commit(ctx)
}

// derived adds a deadline but keeps SIGTERM's cancellation.
func (r *Relay) derived(ctx context.Context) {
	c, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	r.pool.BeginTx(c, pgx.TxOptions{}) // want `transaction begun on the Run loop's ctx`
}

func (r *Relay) sqlTx(ctx context.Context) {
	r.db.BeginTx(ctx, nil) // want `transaction begun on the Run loop's ctx`
}

func (r *Relay) sqlBegin() {
	r.db.Begin() // want `transaction begun without a context inside a Run loop`
}

func (r *Relay) beginFunc(ctx context.Context) {
	pgx.BeginFunc(ctx, r.pool, func(pgx.Tx) error { return nil }) // want `transaction begun on the Run loop's ctx`
}

// clean deletes on ctx directly: interruptible work, no transaction.
func (r *Relay) clean(ctx context.Context) {
	r.pool.Exec(ctx, "DELETE FROM outbox_event WHERE dispatched_at < now() - interval '7 days'")
}

// batchOnLoopCtx begins its transaction in a pipeline, BEGIN in the same
// round trip as the first statement, on the loop's ctx.
func (r *Relay) batchOnLoopCtx(ctx context.Context) {
	conn, _ := r.pool.Acquire(ctx)
	defer conn.Release()
	b := &pgx.Batch{}
	b.BeginTx(pgx.TxOptions{})
	b.Queue("SELECT 1")
	conn.SendBatch(ctx, b) // want `transaction begun on the Run loop's ctx`
}

// batchRight is batchOnLoopCtx on the design's context.
func (r *Relay) batchRight(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
	defer cancel()
	b := &pgx.Batch{}
	b.BeginTx(pgx.TxOptions{})
	r.pool.SendBatch(ctx, b)
}

// batchNoTx sends a batch that begins no transaction: interruptible.
func (r *Relay) batchNoTx(ctx context.Context) {
	b := &pgx.Batch{}
	b.Queue("DELETE FROM outbox_event WHERE dispatched_at < now() - interval '7 days'")
	r.pool.SendBatch(ctx, b)
}

// Handler is not reached from a Run loop: its request context is not the
// loop's concern.
func (r *Relay) Handler(w http.ResponseWriter, req *http.Request) {
	tx, err := r.pool.Begin(req.Context())
	if err == nil {
		tx.Commit(req.Context())
	}
}
