// Package pgx is a stub of github.com/jackc/pgx/v5 v5.12.0 for the analyzer
// tests: the names and signatures the rules look at, nothing that works.
package pgx

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
)

type TxOptions struct{}

type Rows interface {
	Close()
	Next() bool
	Scan(dest ...any) error
	Err() error
}

type Tx interface {
	Begin(ctx context.Context) (Tx, error)
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
}

type Conn struct{}

type Batch struct{}

func (b *Batch) BeginTx(txOptions TxOptions) {}

func (b *Batch) Queue(query string, arguments ...any) {}

type BatchResults interface {
	Tx() Tx
	Close() error
}

func (c *Conn) SendBatch(ctx context.Context, b *Batch) BatchResults { return nil }

func (c *Conn) Begin(ctx context.Context) (Tx, error) { return nil, nil }

func (c *Conn) BeginTx(ctx context.Context, txOptions TxOptions) (Tx, error) { return nil, nil }

func (c *Conn) Close(ctx context.Context) error { return nil }

func BeginFunc(ctx context.Context, db interface {
	Begin(ctx context.Context) (Tx, error)
}, fn func(Tx) error) (err error) {
	return nil
}
