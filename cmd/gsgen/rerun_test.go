package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/internal/disktest"
	"github.com/gsgen-dev/gsgen/internal/gotool"
)

// newService runs gsgen new into root/name and returns the service's dir.
func newService(t *testing.T, root, name string, args ...string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if code, _, stderr := gsgen(t, append([]string{"new", dir, "--yes"}, args...)...); code != exitOK {
		t.Fatalf("gsgen new: exit %d: %s", code, stderr)
	}
	return dir
}

func mustGsgen(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := gsgen(t, args...)
	if code != exitOK {
		t.Fatalf("gsgen %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// Run once, rerun to add workers: the user's edits survive byte for byte, and
// the result is what gsgen new would write from the final answers.
func TestAddKeepsUserFilesAndMatchesNew(t *testing.T) {
	root := t.TempDir()
	dir := newService(t, root, "shop")
	routes := filepath.Join(dir, "internal/httpapi/routes.go")
	edited, _ := os.ReadFile(routes)
	edited = append(edited, "\n// GET /orders goes here.\n"...)
	writeFile(t, routes, string(edited))
	mine := filepath.Join(dir, "internal/pricing/pricing.go")
	writeFile(t, mine, "package pricing\n\n// Total is mine.\nfunc Total(a, b int) int { return a + b }\n")

	// kafka brings a cleaner of processed_event (and the cleaner component).
	out := mustGsgen(t, "add", "kafka", "product-events", "--topic", "products", "--dir", dir)
	if !strings.Contains(out, "create    internal/cleaner/cleaner.go") {
		t.Errorf("add kafka output:\n%s", out)
	}
	mustGsgen(t, "add", "cleaner", "old-events", "--table", "processed_event", "--column", "processed_at", "--retention", "48h", "--dir", dir)
	if b, _ := os.ReadFile(routes); string(b) != string(edited) {
		t.Error("the user's routes.go changed")
	}
	if b, _ := os.ReadFile(mine); !strings.Contains(string(b), "Total is mine") {
		t.Error("the user's own file changed")
	}

	fresh := filepath.Join(root, "fresh", "shop")
	mustGsgen(t, "new", fresh, "-f", filepath.Join(dir, "gsgen.yaml"))
	got, want := disktest.ReadTree(t, dir), disktest.ReadTree(t, fresh)
	delete(got, "internal/httpapi/routes.go")
	delete(want, "internal/httpapi/routes.go")
	delete(got, "internal/pricing/pricing.go")
	for p := range want {
		if got[p] != want[p] {
			t.Errorf("%s differs from a fresh gsgen new with the final answers", p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s is not in a fresh gsgen new", p)
		}
	}
	if testing.Short() {
		return
	}
	// The service's tests in a database of their own, so that its
	// migrations wait for no other test's transactions.
	env := gotool.TestEnv(t)
	for _, args := range [][]string{{"build", "-trimpath", "./..."}, {"vet", "-trimpath", "./..."}, {"test", "-trimpath", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

func TestAddStopsAtAHandEdit(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop")
	main := filepath.Join(dir, "cmd/shop/main.go")
	b, _ := os.ReadFile(main)
	writeFile(t, main, string(b)+"// tuned by hand\n")
	before := treeHash(t, dir)

	code, stdout, stderr := gsgen(t, "add", "kafka", "product-events", "--dir", dir)
	if code != exitBadInput || !strings.Contains(stderr, "cmd/shop/main.go: edited by hand") || !strings.Contains(stderr, "--force") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "+++ b/cmd/shop/main.go (on disk)") || !strings.Contains(stdout, "+// tuned by hand") {
		t.Errorf("no diff of the hand edit:\n%s", stdout)
	}
	if treeHash(t, dir) != before {
		t.Error("a refused add changed the service")
	}

	stdout = mustGsgen(t, "add", "kafka", "product-events", "--dir", dir, "--force")
	if !strings.Contains(stdout, "overwrite cmd/shop/main.go (your hand edit is overwritten: --force)") {
		t.Errorf("--force does not say what it overwrote:\n%s", stdout)
	}
	if b, _ := os.ReadFile(main); strings.Contains(string(b), "tuned by hand") {
		t.Error("--force kept the hand edit")
	}
}

func TestAddDryRunShowsDiffAndWritesNothing(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop")
	before := treeHash(t, dir)
	stdout := mustGsgen(t, "add", "outbox", "--dir", dir, "--dry-run")
	for _, s := range []string{"+++ b/internal/outbox/relay.go", "--- a/cmd/shop/main.go", "dry run: nothing written"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("dry run output lacks %q", s)
		}
	}
	if treeHash(t, dir) != before {
		t.Error("--dry-run changed the service")
	}
}

func TestAddRefusesWhatExists(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop", "--components", "http,kafka", "--consumer", "orders:orders")
	before := treeHash(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"add", "kafka", "orders"}, `already has a consumer named "orders"`},
		{[]string{"add", "http"}, "already has http"},
		{[]string{"add", "graphql"}, `unknown kind "graphql"`},
		{[]string{"add", "consumer", "payments"}, `unknown kind "consumer"; choose from http, outbox, asynq, kafka, cleaner, worker, task, grpc (a Kafka consumer is: gsgen add kafka NAME)`},
		{[]string{"add", "kafka"}, "needs a NAME"},
		{[]string{"add", "cleaner", "sessions", "--table", "sessions"}, `table "sessions" is not defined by this service's migrations; add a migration that creates it, e.g. db/migrations/0100_sessions.sql`},
		{[]string{"add", "cleaner", "x", "--table", "processed_event", "--column", "processed_at; drop table x"}, "not a plain SQL identifier"},
		{[]string{"remove", "outbox"}, "the service has no outbox"},
		{[]string{"regen", "--dir", t.TempDir()}, "has no gsgen.yaml"},
	} {
		args := c.args
		if args[0] != "regen" {
			args = append(args, "--dir", dir)
		}
		code, _, stderr := gsgen(t, args...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("gsgen %s: exit %d, stderr %q, want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	if treeHash(t, dir) != before {
		t.Error("a refused command changed the service")
	}
}

// A cleaner may target the user's own table once a migration creates it;
// sqlc then reads the user's SQL beside gsgen's.
func TestAddCleanerOnTheUsersTable(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop", "--components", "http,outbox")
	writeFile(t, filepath.Join(dir, "db/migrations/0100_sessions.sql"), "-- +goose Up\nCREATE TABLE sessions (\n    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n    expires_at timestamptz NOT NULL\n);\n\n-- +goose Down\nDROP TABLE sessions;\n")
	writeFile(t, filepath.Join(dir, "db/queries/sessions.sql"), "-- name: CountSessions :one\nSELECT count(*) FROM sessions;\n")
	mustGsgen(t, "add", "cleaner", "expired-sessions", "--table", "sessions", "--column", "expires_at", "--retention", "720h", "--dir", dir)
	for path, want := range map[string]string{
		"db/queries/cleaners.sql":         "DELETE FROM sessions\nWHERE (id) IN (",
		"internal/db/sessions.sql.go":     "func (q *Queries) CountSessions(",
		"internal/db/cleaners.sql.go":     "DeleteExpiredExpiredSessions",
		"db/migrations/0100_sessions.sql": "CREATE TABLE sessions",
	} {
		if b, _ := os.ReadFile(filepath.Join(dir, path)); !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q", path, want)
		}
	}
	// A regen keeps the user's queries in internal/db.
	mustGsgen(t, "regen", dir)
	if _, err := os.Stat(filepath.Join(dir, "internal/db/sessions.sql.go")); err != nil {
		t.Errorf("regen dropped the user's generated queries: %v", err)
	}
}

func TestRemoveLeavesUserFilesAndRegenRespectsDeletions(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop", "--components", "http,kafka")
	out := mustGsgen(t, "remove", "kafka", "--dir", dir)
	for _, s := range []string{"delete    internal/consumer/consumer.go", "leave     internal/consumer/events_handler.go (yours",
		"adapt or delete internal/consumer/events_handler.go, internal/consumer/events_handler_test.go: what used them is removed"} {
		if !strings.Contains(out, s) {
			t.Errorf("remove output lacks %q:\n%s", s, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "internal/consumer/events_handler.go")); err != nil {
		t.Errorf("remove deleted the user's handler: %v", err)
	}

	os.Remove(filepath.Join(dir, "Dockerfile"))
	os.Remove(filepath.Join(dir, "internal/httpapi/routes.go"))
	out = mustGsgen(t, "regen", dir)
	if _, err := os.Stat(filepath.Join(dir, "Dockerfile")); err != nil || !strings.Contains(out, "create    Dockerfile") {
		t.Errorf("a deleted gsgen-owned file did not come back: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "internal/httpapi/routes.go")); !os.IsNotExist(err) || !strings.Contains(out, "skip      internal/httpapi/routes.go (yours, and you deleted it") {
		t.Errorf("a deleted user file came back or was not reported: %v\n%s", err, out)
	}
}

// An HTTP service gets a cleaner on a table of the user's: PostgreSQL
// arrives with the cleaner alone (dependency set pgx, which had no stored
// go.mod), and the new go.mod requires pgx.
func TestAddCleanerToAnHTTPService(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop")
	writeFile(t, filepath.Join(dir, "db/migrations/0100_orders.sql"), "-- +goose Up\nCREATE TABLE orders (\n    id bigint PRIMARY KEY,\n    created_at timestamptz NOT NULL\n);\n")
	code, _, stderr := gsgen(t, "add", "cleaner", "old-orders", "--table", "orders", "--dir", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "no index of orders begins with created_at") {
		t.Errorf("no warning about the missing index: %q", stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "go.mod")); !strings.Contains(string(b), "github.com/jackc/pgx/v5") {
		t.Errorf("go.mod does not require pgx:\n%s", b)
	}
}

// Removing grpc leaves the user's register.go, which imports
// google.golang.org/grpc that go.mod no longer requires: the remove says to
// adapt or delete it, and a remove that leaves nothing of the user's says
// nothing more.
func TestRemoveSaysWhatToDoWithTheFilesItLeaves(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop", "--components", "http,grpc")
	out := mustGsgen(t, "remove", "grpc", "--dir", dir)
	for _, s := range []string{"leave     internal/grpcapi/register.go (yours", "Next steps:",
		"adapt or delete internal/grpcapi/register.go: what used it is removed, and go.mod no longer requires a module only it imports"} {
		if !strings.Contains(out, s) {
			t.Errorf("remove grpc output lacks %q:\n%s", s, out)
		}
	}
	if gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod")); strings.Contains(string(gomod), "google.golang.org/grpc ") {
		t.Errorf("go.mod still requires grpc after remove grpc:\n%s", gomod)
	}

	mustGsgen(t, "add", "worker", "nightly", "--interval", "1h", "--dir", dir)
	for _, f := range []string{"nightly.go", "nightly_test.go"} {
		if err := os.Remove(filepath.Join(dir, "internal/worker", f)); err != nil {
			t.Fatal(err)
		}
	}
	if out := mustGsgen(t, "remove", "worker", "nightly", "--dir", dir); strings.Contains(out, "Next steps") {
		t.Errorf("a remove that left no file of the user's gave next steps:\n%s", out)
	}
}
