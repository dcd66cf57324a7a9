package testpg

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// hang bounds a wait that should end at once: it catches a hang, nothing
// more.
const hang = 2 * time.Minute

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func database(t *testing.T) string {
	t.Helper()
	url, err := Database(t, AdminURL(), "gsgen_testpg")
	if err != nil {
		msg := "PostgreSQL of GSGEN_TEST_POSTGRES_URL (default " + DefaultURL + "): " + err.Error() + "; start it or set the variable"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return url
}

// A database of the test's own: a migration's CREATE INDEX CONCURRENTLY in
// it completes while another database holds a transaction open, which in
// a shared database it would wait for (PostgreSQL waits for the older
// transactions of the same database only). And it is gone once the test is.
func TestDatabaseWaitsForNoOneElse(t *testing.T) {
	var name string
	t.Run("own", func(t *testing.T) {
		other := connect(t, database(t))
		ctx, cancel := context.WithTimeout(context.Background(), hang)
		defer cancel()
		tx, err := other.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(context.Background())
		// A snapshot held, as a transaction stuck mid-test holds one.
		if _, err := tx.Exec(ctx, "SELECT txid_current()"); err != nil {
			t.Fatal(err)
		}

		own := connect(t, database(t))
		if err := own.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(name, "gsgen_testpg_") {
			t.Errorf("database %q, want gsgen_testpg_<random>", name)
		}
		for _, sql := range []string{
			"CREATE TABLE t (id integer)",
			"CREATE INDEX CONCURRENTLY t_id_idx ON t (id)",
		} {
			if _, err := own.Exec(ctx, sql); err != nil {
				t.Fatalf("%s, beside another database's open transaction: %v", sql, err)
			}
		}
	})
	if name == "" {
		return // skipped, or failed above
	}
	admin := connect(t, AdminURL())
	var left bool
	if err := admin.QueryRow(context.Background(), "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left {
		t.Errorf("database %s is still there after its test", name)
	}
}
