package golden

import (
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/lab"
)

// TestDemo runs make demo's program in a copy of golden/full, with gsgen on
// PATH for the timeline, against the local PostgreSQL and Redis: it must
// put work on every part, draw the shutdown and report none of it lost.
// With the relay made to mark events dispatched without writing them, the
// same run must report the loss and exit 1.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a golden service's demo; skipped with -short")
	}
	needServers(t)
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin, "github.com/gsgen-dev/gsgen/cmd/gsgen")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building gsgen: %v\n%s", err, out)
	}

	t.Run("nothing lost", func(t *testing.T) {
		out, code := runDemo(t, bin)
		if code != 0 {
			t.Fatalf("the demo exited %d, want 0:\n%s", code, out)
		}
		for _, want := range []string{"shutdown complete", "every step and part within its budget", "nothing lost"} {
			if !strings.Contains(out, want) {
				t.Errorf("the demo's output lacks %q:\n%s", want, out)
			}
		}
		rows := demoTable(t, out)
		inFlight := 0
		for _, what := range []string{"HTTP requests", "outbox events", "tasks", "messages (order-events)"} {
			r, ok := rows[what]
			if !ok {
				t.Fatalf("no row for %s in the demo's table:\n%s", what, out)
			}
			if r.sent == 0 || r.done == 0 {
				t.Errorf("%s: sent %d, done %d: the demo put no work on it, or the service did none", what, r.sent, r.done)
			}
			if r.lost != 0 || r.done+r.waiting+r.failed != r.sent {
				t.Errorf("%s: %+v: every piece sent must be done, waiting or failed", what, r)
			}
			inFlight += r.inFlight
		}
		if inFlight == 0 {
			t.Errorf("nothing was in flight at SIGTERM: the demo shows no shutdown with work in hand:\n%s", out)
		}
	})

	t.Run("the relay marks events it did not write", func(t *testing.T) {
		out, code := runDemo(t, bin, lab.Edit{File: "internal/outbox/relay.go",
			From: `err := r.writer.WriteMessages(ctx, msgs...)`,
			To:   `err := error(nil) // the events are never written`})
		if code != 1 {
			t.Fatalf("the demo exited %d, want 1 (loss):\n%s", code, out)
		}
		if r := demoTable(t, out)["outbox events"]; r.lost == 0 || !strings.Contains(out, "is marked dispatched but is not in Kafka") {
			t.Fatalf("the demo does not report the lost outbox events (%+v):\n%s", r, out)
		}
	})
}

// runDemo runs the demo in a copy of golden/full with edits made, and
// returns its output and exit code.
func runDemo(t *testing.T, gsgenDir string, edits ...lab.Edit) (string, int) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "full")
	if err := os.CopyFS(dir, os.DirFS("full")); err != nil {
		t.Fatal(err)
	}
	if err := lab.Apply(dir, edits...); err != nil {
		t.Fatal(err)
	}
	goCmd(t, dir, "build", "-o", "demo", "./cmd/orders-demo")
	cmd := exec.Command(filepath.Join(dir, "demo"))
	cmd.Dir = dir
	cmd.Env = append(serviceTestEnv(), "PATH="+gsgenDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

type demoRow struct{ sent, inFlight, done, waiting, failed, lost int }

var demoRowRE = regexp.MustCompile(`(?m)^\s*(\S.*?)\s+(\d+)\s+(-?\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s*$`)

// demoTable reads the demo's summary table, by row name.
func demoTable(t *testing.T, out string) map[string]demoRow {
	t.Helper()
	rows := make(map[string]demoRow)
	for _, m := range demoRowRE.FindAllStringSubmatch(out, -1) {
		n := make([]int, 6)
		for i := range n {
			n[i], _ = strconv.Atoi(m[i+2])
		}
		rows[m[1]] = demoRow{n[0], n[1], n[2], n[3], n[4], n[5]}
	}
	return rows
}

// needServers skips t when the local PostgreSQL or Redis does not answer,
// or fails it in CI, as the services' own tests do.
func needServers(t *testing.T) {
	t.Helper()
	pg := "127.0.0.1:5432"
	if v := os.Getenv("GSGEN_TEST_POSTGRES_URL"); v != "" {
		if u, err := url.Parse(v); err == nil {
			pg = u.Host
		}
	}
	redis := "127.0.0.1:6379"
	if v := os.Getenv("GSGEN_TEST_REDIS_ADDR"); v != "" {
		redis = v
	}
	for _, addr := range []string{pg, redis} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			msg := "the demo needs PostgreSQL and Redis: " + err.Error() + "; start them, or set GSGEN_TEST_POSTGRES_URL and GSGEN_TEST_REDIS_ADDR"
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
		c.Close()
	}
}
