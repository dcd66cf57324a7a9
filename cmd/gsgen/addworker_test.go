package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// add worker and add task write the user's files once and wire gsgen's;
// remove takes the wiring away and leaves the user's files, listed.
func TestAddWorkerAndTask(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop")
	out := mustGsgen(t, "add", "worker", "nightly-report", "--interval", "24h", "--timeout", "15s", "--dir", dir)
	for _, want := range []string{"create    internal/worker/nightly_report.go", "create    internal/worker/worker.go", "overwrite cmd/shop/main.go"} {
		if !strings.Contains(out, want) {
			t.Errorf("add worker output lacks %q:\n%s", want, out)
		}
	}
	out = mustGsgen(t, "add", "task", "report:build", "--timeout", "20s", "--queue", "reports", "--dir", dir)
	for _, want := range []string{"create    internal/tasks/report_build.go", "create    internal/tasks/types.go", "added asynq too"} {
		if !strings.Contains(out, want) {
			t.Errorf("add task output lacks %q:\n%s", want, out)
		}
	}
	yaml, _ := os.ReadFile(filepath.Join(dir, "gsgen.yaml"))
	for _, want := range []string{"name: nightly-report", "interval: 24h", "type: report:build", "queue: reports", "components: [http, asynq]"} {
		if !strings.Contains(string(yaml), want) {
			t.Errorf("gsgen.yaml lacks %q:\n%s", want, yaml)
		}
	}
	mine := filepath.Join(dir, "internal/worker/nightly_report.go")
	edited, _ := os.ReadFile(mine)
	edited = append(edited, "// mine\n"...)
	writeFile(t, mine, string(edited))

	out = mustGsgen(t, "remove", "worker", "nightly-report", "--dir", dir)
	if !strings.Contains(out, "leave     internal/worker/nightly_report.go") || !strings.Contains(out, "delete    internal/worker/worker.go") {
		t.Errorf("remove worker output:\n%s", out)
	}
	if b, _ := os.ReadFile(mine); string(b) != string(edited) {
		t.Error("remove worker touched the user's file")
	}
	mustGsgen(t, "remove", "task", "report:build", "--dir", dir)
	if _, err := os.Stat(filepath.Join(dir, "internal/tasks/report_build.go")); err != nil {
		t.Errorf("remove task took the user's handler: %v", err)
	}
}

// One bad answer, one clear error, exit 2, nothing written.
func TestAddWorkerAndTaskRefuseBadInput(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop")
	before := treeHash(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"add", "worker", "nightly"}, "add worker needs --interval or --cron"},
		{[]string{"add", "worker", "nightly", "--interval", "1h", "--cron", "@daily"}, "add worker takes --interval or --cron, not both"},
		{[]string{"add", "worker", "nightly", "--interval", "1h", "--timezone", "UTC"}, "--timezone is the time zone of --cron"},
		{[]string{"add", "worker", "nightly", "--cron", "61 2 * * *"}, `workers[0].cron: "61 2 * * *": the minute field "61" is wrong`},
		{[]string{"add", "worker", "nightly", "--cron", "0 2 * * mon-fry"}, `the day of week field "mon-fry" is wrong`},
		{[]string{"add", "worker", "nightly", "--cron", "@fortnightly"}, `workers[0].cron: "@fortnightly" is not a cron schedule`},
		{[]string{"add", "worker", "nightly", "--cron", "@daily", "--timezone", "Mars/Olympus"}, `workers[0].timezone: "Mars/Olympus" is not a time zone`},
		{[]string{"add", "worker", "nightly", "--interval", "1h", "--scope", "cluster"}, `workers[0].scope: "cluster" is not a scope`},
		{[]string{"add", "worker", "nightly", "--interval", "1h", "--lease-ttl", "1s"}, `workers[0].lease_ttl: 1s is outside 2s..1h0m0s`},
		{[]string{"add", "worker", "nightly", "--interval", "1h", "--lease-ttl", "0s"}, "--lease-ttl"},
		{[]string{"add", "worker", "nightly", "--interval", "1h", "--scope", "replica", "--lease-ttl", "30s"}, "--scope replica takes none"},
		{[]string{"add", "worker", "--interval", "1h"}, "add worker needs a NAME"},
		{[]string{"add", "worker", "nightly", "--interval", "1h", "--timeout", "30s"}, "workers[0].timeout: worker nightly timeout 30s + lease release 1s = 31s is longer than worker drain 20s"},
		{[]string{"add", "worker", "nightly", "--interval", "0s"}, "--interval"},
		{[]string{"add", "worker", "Nightly", "--interval", "1h"}, `workers[0].name: "Nightly" is not a valid name`},
		{[]string{"add", "task", "report:build"}, "add task needs --timeout"},
		{[]string{"add", "task", "report:build", "--timeout", "30s"}, "tasks[0].timeout: task report:build timeout 30s is longer than asynq ShutdownTimeout 25s"},
		{[]string{"add", "task", "report build", "--timeout", "10s"}, "tasks[0].type"},
		{[]string{"add", "task", "report:build", "--timeout", "10s", "--max-retry", "-1"}, "--max-retry: -1 is negative; give 0 (never retried) or more"},
		{[]string{"add", "worker", "n", "--interval", "1m", "--max-retry", "3"}, "--max-retry is a flag of add task, not of add worker"},
		{[]string{"add", "worker", "n", "--interval", "1m", "--queue", "q"}, "--queue is a flag of add task, not of add worker"},
		{[]string{"add", "worker", "n", "--interval", "1m", "--topic", "t"}, "--topic is a flag of add kafka, not of add worker"},
		{[]string{"add", "worker", "n", "--interval", "1m", "--retention", "1h"}, "--retention is a flag of add cleaner, not of add worker"},
		{[]string{"add", "task", "a:b", "--timeout", "10s", "--interval", "1m"}, "--interval is a flag of add cleaner and add worker, not of add task"},
		{[]string{"add", "kafka", "k", "--interval", "1m"}, "--interval is a flag of add cleaner and add worker, not of add kafka"},
		{[]string{"add", "outbox", "--table", "t"}, "--table is a flag of add cleaner, not of add outbox"},
		{[]string{"add", "--interval", "1m"}, "--interval is a flag of add cleaner and add worker, and the questions would not use it"},
		{[]string{"remove", "worker", "nightly"}, `no worker named "nightly"`},
		{[]string{"remove", "worker"}, "remove worker needs the worker's name"},
		{[]string{"add", "http", "x"}, "has no named instances"},
	} {
		code, _, stderr := gsgen(t, append(c.args, "--dir", dir)...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("gsgen %s: exit %d, stderr %q, want 2 and one line with %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	if treeHash(t, dir) != before {
		t.Error("a refused add or remove changed the service")
	}
	// The task timeout may pass asynq's drain when the user says the handlers
	// are idempotent: a warning, not an error.
	code, _, stderr := gsgen(t, "add", "task", "report:build", "--timeout", "30s", "--asynq-allow-requeue", "--dir", dir)
	if code != exitOK || !strings.Contains(stderr, "warning: tasks[0].timeout") {
		t.Errorf("with --asynq-allow-requeue: exit %d, stderr %q", code, stderr)
	}
}

// gsgen add with nothing named asks, with the prompts of gsgen new; without
// a terminal and without --accessible it says what to give.
func TestAddAsks(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop")
	code, _, stderr := gsgen(t, "add", "--dir", dir)
	if code != exitBadInput || !strings.Contains(stderr, "no KIND given, and stdin is not a terminal") {
		t.Fatalf("without a terminal: exit %d, %q", code, stderr)
	}
	answers := []string{
		"5",       // What to add: worker (the service has http, so outbox is 1)
		"Nightly", // Worker name: refused, asked again
		"nightly", // Worker name
		"2h",      // Schedule [1m]: an interval, so no time zone is asked
		"30s",     // Timeout [10s]: past the worker drain, asked again
		"12s",     // Timeout
		"",        // Scope [fleet]
		"",        // Lease TTL [15s]
		"",        // Add worker nightly? [Y/n]
	}
	code, stdout, stderr := gsgenAnswering(t, answers, "add", "--accessible", "--dir", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{`"Nightly" is not a valid name`, "worker nightly timeout 30s + lease release 1s = 31s is longer than worker drain 20s", "create    internal/worker/nightly.go",
		"Add worker nightly to the service shop in " + dir + "? [Y/n]",
		"Next steps:\n  fill in internal/worker/nightly.go, internal/worker/nightly_test.go (yours: gsgen never overwrites them)\n  cd " + dir + "\n  make test\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	yaml, _ := os.ReadFile(filepath.Join(dir, "gsgen.yaml"))
	if !strings.Contains(string(yaml), "name: nightly\n    interval: 2h\n    timeout: 12s") {
		t.Errorf("gsgen.yaml:\n%s", yaml)
	}
	// Declined at the end: nothing written.
	before := treeHash(t, dir)
	code, _, _ = gsgenAnswering(t, []string{"6", "report:build", "", "", "", "n"}, "add", "--accessible", "--dir", dir)
	if code == exitOK || treeHash(t, dir) != before {
		t.Errorf("declined add: exit %d, service changed %v", code, treeHash(t, dir) != before)
	}
}

// One schedule question takes an interval or a cron schedule; the time
// zone is asked only for cron, the lease TTL only for fleet scope, and a
// bad cron schedule is asked again with the reason.
func TestAddAsksForACronWorker(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop", "--components", "http,kafka")
	answers := []string{
		"5",            // What to add: worker
		"nightly",      // Worker name
		"61 2 * * *",   // Schedule: refused, asked again
		"30 2 * * *",   // Schedule
		"Mars/Olympus", // Time zone [UTC]: refused, asked again
		"Europe/Paris", // Time zone
		"",             // Timeout
		"replica",      // Scope [fleet]: no lease, so no TTL is asked
		"",             // Add worker nightly? [Y/n]
	}
	code, stdout, stderr := gsgenAnswering(t, answers, "add", "--accessible", "--dir", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{`"61 2 * * *": the minute field "61" is wrong`, `"Mars/Olympus" is not a time zone`, "Time zone [UTC]:", "Scope [fleet]:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "Lease TTL") {
		t.Errorf("a replica-scope worker was asked for a lease TTL:\n%s", stdout)
	}
	yaml, _ := os.ReadFile(filepath.Join(dir, "gsgen.yaml"))
	if !strings.Contains(string(yaml), "name: nightly\n    cron: 30 2 * * *\n    timezone: Europe/Paris\n    timeout: 10s\n    scope: replica") {
		t.Errorf("gsgen.yaml:\n%s", yaml)
	}
}

// The prompts offer a new cleaner a table no cleaner cleans yet, with its
// timestamp column (one of the user's tables here: gsgen's processed_event
// has its cleaner); once every table has one, gsgen's table, and the column
// of whichever table is answered.
func TestAddAsksForACleaner(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop", "--components", "http,kafka")
	writeFile(t, filepath.Join(dir, "db", "migrations", "0100_sessions.sql"),
		"CREATE TABLE sessions (id uuid PRIMARY KEY, note text, created_on date, expires_at timestamptz NOT NULL);\n")
	answers := []string{
		"4",                // What to add: cleaner (http is there: outbox 1, asynq 2, kafka 3)
		"expired-sessions", // Cleaner name
		"",                 // Table [sessions]
		"",                 // Timestamp column [expires_at]
		"720h",             // Retention [168h]
		"",                 // Add cleaner expired-sessions to the service shop in DIR? [Y/n]
	}
	code, stdout, stderr := gsgenAnswering(t, answers, "add", "--accessible", "--dir", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"Table [sessions]:", "Timestamp column [expires_at]:", "Add cleaner expired-sessions to the service shop in " + dir + "? [Y/n]",
		"Next steps:\n  nothing to fill in: gsgen wrote all of it"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	yaml, _ := os.ReadFile(filepath.Join(dir, "gsgen.yaml"))
	if !strings.Contains(string(yaml), "name: expired-sessions\n    table: sessions\n    column: expires_at\n    retention: 720h") {
		t.Errorf("gsgen.yaml:\n%s", yaml)
	}

	answers = []string{
		"4",          // What to add: cleaner
		"old-events", // Cleaner name
		"",           // Table [processed_event]: every table has a cleaner
		"",           // Timestamp column [processed_at]
		"48h",        // Retention [168h]
		"",           // Add cleaner old-events? [Y/n]
	}
	code, stdout, stderr = gsgenAnswering(t, answers, "add", "--accessible", "--dir", dir)
	if code != exitOK || !strings.Contains(stdout, "Table [processed_event]:") || !strings.Contains(stdout, "Timestamp column [processed_at]:") {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	yaml, _ = os.ReadFile(filepath.Join(dir, "gsgen.yaml"))
	if !strings.Contains(string(yaml), "name: old-events\n    table: processed_event\n    column: processed_at\n    retention: 48h") {
		t.Errorf("gsgen.yaml:\n%s", yaml)
	}
}

// The prompt checks a name against the Go it renders, as add does: a name
// whose identifiers collide is asked again, with the reason.
func TestAddPromptRefusesACollidingName(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop")
	mustGsgen(t, "add", "worker", "x2", "--interval", "1m", "--dir", dir)
	before := treeHash(t, dir)
	code, stdout, stderr := gsgenReading(t, strings.NewReader("5\nx-2\n"), "add", "--accessible", "--dir", dir)
	if code != exitBadInput || !strings.Contains(stdout, `"x-2" gives the Go name NewX2, which workers[0].name "x2"`) {
		t.Errorf("exit %d; stdout lacks the collision:\n%s%s", code, stdout, stderr)
	}
	if treeHash(t, dir) != before {
		t.Error("the refused answer changed the service")
	}
}

// gsgen plan lists each periodic part: its schedule, its scope, its lease's
// TTL and its run's timeout.
func TestPlanShowsSchedulesAndScopes(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop")
	mustGsgen(t, "add", "worker", "nightly-report", "--interval", "24h", "--timeout", "15s", "--dir", dir)
	mustGsgen(t, "add", "worker", "weekly-digest", "--cron", "0 9 * * 1", "--timezone", "Europe/Paris", "--scope", "replica", "--dir", dir)
	out := mustGsgen(t, "plan", dir)
	for _, want := range []string{
		"PART                   SCHEDULE                       SCOPE    LEASE TTL  TIMEOUT",
		"worker nightly-report  every 24h                      fleet    15s        15s",
		"worker weekly-digest   cron 0 9 * * 1 (Europe/Paris)  replica  -          10s",
		"leases (1 fleet-scoped) 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
}

// The column offered follows the table answered: the first timestamp column
// of the user's table.
func TestAddCleanerColumnFollowsTheTable(t *testing.T) {
	dir := newService(t, t.TempDir(), "shop", "--components", "http,outbox")
	writeFile(t, filepath.Join(dir, "db", "migrations", "0100_orders.sql"),
		"CREATE TABLE orders (id bigint PRIMARY KEY, note text, placed_at timestamptz NOT NULL, shipped_at timestamptz);\n")
	answers := []string{
		"3",          // What to add: cleaner (http and outbox are there: asynq 1, kafka 2, cleaner 3)
		"old-orders", // Cleaner name
		"orders",     // Table [outbox_event]: gsgen's table has no cleaner yet, but the user's is wanted
		"",           // Timestamp column [placed_at]
		"",           // Retention
		"",           // confirm
	}
	code, stdout, stderr := gsgenAnswering(t, answers, "add", "--accessible", "--dir", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"Table [outbox_event]:", "Timestamp column [placed_at]:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}
