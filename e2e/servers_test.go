package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/gsgen-dev/gsgen/internal/testpg"
)

const (
	defaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	defaultRedisAddr   = "127.0.0.1:6379"
	// redisDB is the Redis database the services under test use, emptied
	// before and after each scenario. The generated main_tests use 12 and a
	// developer's own services 0.
	redisDB = 11
	// partitions of every Kafka topic the scenarios create.
	partitions = 4
)

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// unreachable skips the test because a server it needs is not there, or
// fails it when CI is set: CI starts the servers, so a skip would hide a test
// that never ran.
func unreachable(t *testing.T, what, envVar, addr string, err error) {
	t.Helper()
	msg := fmt.Sprintf("%s at %s is unreachable (%v); start it or set %s", what, addr, err, envVar)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// newDatabase creates a database of its own for the test (gsgen_e2e_<random>)
// on the server of GSGEN_TEST_POSTGRES_URL, applies the service's migrations
// (the text above "-- +goose Down" of each db/migrations file, in order) and
// returns its URL and a pool on it. The database is dropped at cleanup.
func newDatabase(t *testing.T, serviceDir string) (string, *pgxpool.Pool) {
	t.Helper()
	adminURL := envOr("GSGEN_TEST_POSTGRES_URL", defaultPostgresURL)
	dbURL, err := testpg.Database(t, adminURL, "gsgen_e2e")
	if err != nil {
		unreachable(t, "PostgreSQL", "GSGEN_TEST_POSTGRES_URL", adminURL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close) // runs before the drop above: cleanups run last-in first-out

	migrations, err := filepath.Glob(filepath.Join(serviceDir, "db", "migrations", "*.sql"))
	if err != nil || len(migrations) == 0 {
		t.Fatalf("no migrations under %s/db/migrations (%v)", serviceDir, err)
	}
	for _, m := range migrations { // Glob sorts: 0001_, 0002_, ...
		src, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		up, _, _ := strings.Cut(string(src), "-- +goose Down")
		// No arguments: pgx sends it with the simple protocol, which runs several
		// statements, in one transaction. A migration goose runs outside one (NO
		// TRANSACTION, for CREATE INDEX CONCURRENTLY) goes a statement at a time.
		statements := []string{up}
		if strings.Contains(up, "-- +goose NO TRANSACTION") {
			statements = strings.SplitAfter(up, ";\n")
		}
		for _, statement := range statements {
			if _, err := pool.Exec(ctx, statement); err != nil {
				t.Fatalf("applying %s: %v", filepath.Base(m), err)
			}
		}
	}
	return dbURL, pool
}

// newRedis empties Redis database redisDB before and after the test and
// returns the server's address and a client on that database.
func newRedis(t *testing.T) (string, *redis.Client) {
	t.Helper()
	addr := envOr("GSGEN_TEST_REDIS_ADDR", defaultRedisAddr)
	holdRedisDB(t, addr, redisDB)
	rdb := redis.NewClient(&redis.Options{Addr: addr, DB: redisDB})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		unreachable(t, "Redis", "GSGEN_TEST_REDIS_ADDR", addr, err)
	}
	if err := rdb.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := rdb.FlushDB(ctx).Err(); err != nil {
			t.Errorf("emptying Redis database %d: %v", redisDB, err)
		}
		rdb.Close()
	})
	return addr, rdb
}

// newKafka starts a Kafka-protocol cluster (three kfake brokers on loopback)
// with the topics created, and returns it and its KAFKA_BROKERS value.
func newKafka(t *testing.T, topics ...string) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.SeedTopics(partitions, topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, strings.Join(c.ListenAddrs(), ",")
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
