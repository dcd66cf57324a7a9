// Package benchtest gives the benchmarks of this service (laid over it by
// gsgen's golden/bench_test.go, never shipped with it) what they run against:
// a PostgreSQL schema of their own with the migrations applied, a Redis
// database emptied before and after, and an in-process Kafka cluster (kfake).
// Without a reachable server a benchmark is skipped, or fails when CI is set.
package benchtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"github.com/twmb/franz-go/pkg/kfake"
)

// RedisDB is the Redis database the benchmarks use: gsgen's other tests use
// 11, 13 and 14, and each empties its own.
const RedisDB = 12

// setupTimeout bounds each call to a server while setting up or cleaning up.
const setupTimeout = 30 * time.Second

// unreachable skips tb, or fails it when CI is set.
func unreachable(tb testing.TB, what, envVar string, err error) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s unreachable (%s): %v", what, envVar, err)
	}
	tb.Skipf("%s unreachable, skipping (set %s): %v", what, envVar, err)
}

// Postgres creates a schema of its own, applies the service's migrations
// (their "-- +goose Up" part) from migrationsDir, and returns a DATABASE_URL
// whose search_path is that schema, with a pool on it. The pool is closed and
// the schema dropped when tb ends.
func Postgres(tb testing.TB, migrationsDir string) (string, *pgxpool.Pool) {
	tb.Helper()
	base := os.Getenv("GSGEN_TEST_POSTGRES_URL")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		unreachable(tb, "PostgreSQL", "GSGEN_TEST_POSTGRES_URL", err)
	}
	schema := "bench_" + randomHex(6)
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close(ctx)
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		if _, err := admin.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			tb.Errorf("dropping schema %s: %v", schema, err)
		}
		admin.Close(ctx)
	})

	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema) // pgx sends unknown parameters as run-time settings
	u.RawQuery = q.Encode()
	dbURL := u.String()

	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close) // cleanups run last-in first-out: before the schema is dropped

	migrations, err := filepath.Glob(filepath.Join(migrationsDir, "*.sql"))
	if err != nil || len(migrations) == 0 {
		tb.Fatalf("no migrations in %s (%v)", migrationsDir, err)
	}
	for _, m := range migrations { // Glob sorts: 0001_, 0002_, ...
		src, err := os.ReadFile(m)
		if err != nil {
			tb.Fatal(err)
		}
		up, _, _ := strings.Cut(string(src), "-- +goose Down")
		// Its statements in one transaction; a migration goose runs outside
		// one (NO TRANSACTION: CREATE INDEX CONCURRENTLY) a statement at a time.
		statements := []string{up}
		if strings.Contains(up, "-- +goose NO TRANSACTION") {
			statements = strings.SplitAfter(up, ";\n")
		}
		for _, statement := range statements {
			if _, err := pool.Exec(ctx, statement); err != nil {
				tb.Fatalf("applying %s: %v", filepath.Base(m), err)
			}
		}
	}
	return dbURL, pool
}

// Redis empties database RedisDB before and after tb and returns the
// server's address.
func Redis(tb testing.TB) string {
	tb.Helper()
	addr := os.Getenv("GSGEN_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, DB: RedisDB})
	flush := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		return rdb.FlushDB(ctx).Err()
	}
	if err := flush(); err != nil {
		rdb.Close()
		unreachable(tb, "Redis", "GSGEN_TEST_REDIS_ADDR", err)
	}
	tb.Cleanup(func() {
		if err := flush(); err != nil {
			tb.Errorf("emptying Redis database %d: %v", RedisDB, err)
		}
		rdb.Close()
	})
	return addr
}

// Kafka starts three in-process brokers on loopback with topic created
// (partitions partitions) and returns their addresses. They stop when tb ends.
func Kafka(tb testing.TB, topic string, partitions int32) []string {
	tb.Helper()
	c, err := kfake.NewCluster(kfake.SeedTopics(partitions, topic))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return c.ListenAddrs()
}

// turns counts the calls of Turn in this process.
var turns atomic.Int64

// Turn says which of its runs a benchmark that takes turns starts with,
// counting up from one sample to the next: within a process (-count N)
// by the calls before, and across processes by GSGEN_BENCH_ROUND, which
// bench/relay.sh sets to its round. With -benchtime 1x a counter of the
// benchmark's own would start at 0 every sample, the same run first.
func Turn() int {
	round, _ := strconv.Atoi(os.Getenv("GSGEN_BENCH_ROUND"))
	return round + int(turns.Add(1)) - 1
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
