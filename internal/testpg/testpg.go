// Package testpg gives a test of gsgen's a PostgreSQL database of its own,
// for what it runs against the server: a generated service's tests, a demo,
// an end-to-end scenario.
//
// A database of its own, not only a schema: a service's migrations build
// their indexes CONCURRENTLY, and such a build waits for every transaction
// of the same database that is older than it. In the one database that
// everything gsgen's suite runs at once used to share, a transaction held
// for minutes (a mutated service's, or a planted lab's, waiting out its
// test's bound) held up another service's migrations until they timed out.
package testpg

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the server gsgen's tests use when GSGEN_TEST_POSTGRES_URL
// is not set: the local one, as the README says.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// AdminURL is GSGEN_TEST_POSTGRES_URL, or DefaultURL.
func AdminURL() string {
	if v := os.Getenv("GSGEN_TEST_POSTGRES_URL"); v != "" {
		return v
	}
	return DefaultURL
}

// Database creates a database named prefix_<random> on the server of
// adminURL and returns its URL, adminURL's with the database changed. It is
// dropped when t ends, WITH (FORCE): a service killed with SIGKILL may leave
// a backend behind for a moment. An error says the server could not be
// reached or refused; the caller decides whether that skips or fails.
func Database(t testing.TB, adminURL, prefix string) (string, error) {
	t.Helper()
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", fmt.Errorf("the PostgreSQL URL %q: %w", adminURL, err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := prefix + "_" + hex.EncodeToString(b)
	if err := exec(adminURL, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("creating database %s: %w", name, err)
	}
	t.Cleanup(func() {
		if err := exec(adminURL, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String(), nil
}

// exec runs one statement on a connection of its own.
func exec(adminURL, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}
