package demo

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/gsgen-dev/gsgen/internal/gotool"
	"github.com/gsgen-dev/gsgen/lab"
)

// TestDemo runs make demo's program in a copy of golden/full, with gsgen on
// PATH for the timeline, against the local PostgreSQL and Redis: it must
// put work on every part, draw the shutdown and report none of it lost, also
// with a second demo running at the same time, which takes compose.yaml's
// servers. With the relay made to mark events dispatched without writing
// them, a run must report the loss and exit 1.
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

	// Two demos at once, as in a workshop's room on shared servers: each
	// must take a slot of its own. The second finds no DATABASE_URL nor
	// REDIS_ADDR and a docker that runs, so it takes compose.yaml's servers:
	// a stand-in for docker whose compose "runs" them on the test's own.
	t.Run("two at once, one on docker compose", func(t *testing.T) {
		local, localOut := demoCmd(t, bin, demoLocal)
		compose, composeOut := demoCmd(t, bin, demoCompose)
		if err := local.Start(); err != nil {
			t.Fatal(err)
		}
		localDone := make(chan struct{})
		go func() { local.Wait(); close(localDone) }()
		// The first runs in a few seconds once it holds its slot, sooner
		// than the second may take to build and ask for one: so it is
		// paused (SIGSTOP) once it says its schema, which it does after
		// taking its slot, until the second has said its own. A paused demo
		// keeps its slot: its connection stays open. Its own waits are
		// minutes long; the pause is seconds.
		select {
		case <-localOut.Saw(schemaRE):
		case <-localDone:
			t.Fatalf("the local demo exited %d before saying its schema:\n%s", local.ProcessState.ExitCode(), localOut)
		}
		if err := local.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		resume := sync.OnceFunc(func() {
			if err := local.Process.Signal(syscall.SIGCONT); err != nil {
				t.Error(err)
			}
		})
		defer resume()
		if err := compose.Start(); err != nil {
			t.Fatal(err)
		}
		composeDone := make(chan struct{})
		go func() { compose.Wait(); close(composeDone) }()
		select {
		case <-composeOut.Saw(schemaRE):
		case <-composeDone:
		}
		resume()
		<-localDone
		<-composeDone
		schemas := map[string]bool{}
		for _, run := range []struct {
			name string
			cmd  *exec.Cmd
			out  string
		}{{"local", local, localOut.String()}, {"compose", compose, composeOut.String()}} {
			out := run.out
			if code := run.cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("the %s demo exited %d, want 0:\n%s", run.name, code, out)
			}
			checkNothingLost(t, out)
			m := schemaRE.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("the %s demo does not say its schema:\n%s", run.name, out)
			}
			schemas[m[1]] = true
		}
		if len(schemas) != 2 {
			t.Errorf("both demos used schema %v: two demos at once must take a slot each", schemas)
		}
		if !strings.Contains(composeOut.String(), "starting postgres and redis with docker compose") {
			t.Errorf("the demo without DATABASE_URL and REDIS_ADDR did not start compose.yaml's servers:\n%s", composeOut)
		}
		calls, err := os.ReadFile(filepath.Join(filepath.Dir(compose.Path), "docker.log"))
		if err != nil {
			t.Fatal(err)
		}
		want := "info\ncompose up --detach --wait postgres redis\ncompose port postgres 5432\ncompose port redis 6379\n"
		if string(calls) != want {
			t.Errorf("docker was called as\n%s\nwant\n%s", calls, want)
		}
	})

	// Docker runs, but compose cannot start the servers: the demo stops
	// at once, saying why, before it starts the service.
	t.Run("docker compose fails", func(t *testing.T) {
		out, code := runDemo(t, bin, demoComposeFails)
		if code != 2 || !strings.Contains(out, "docker compose up: exit status 1") || !strings.Contains(out, "pull access denied") || strings.Contains(out, "started orders") {
			t.Fatalf("the demo exited %d, want 2 naming docker compose up's failure before starting anything:\n%s", code, out)
		}
	})

	// Ten demos hold the ten slots (here the test holds their locks): an
	// eleventh says so and starts nothing, rather than mix its work with
	// theirs.
	t.Run("every slot taken", func(t *testing.T) {
		pg, _ := testServers()
		conn, err := pgx.Connect(context.Background(), pg.String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "SELECT pg_advisory_lock(hashtext('gsgen demo orders'), n) FROM generate_series(1, 10) AS n"); err != nil {
			t.Fatal(err)
		}
		out, code := runDemo(t, bin, demoLocal)
		if code != 2 || !strings.Contains(out, "10 demos of orders are running against this PostgreSQL already") || strings.Contains(out, "started orders") {
			t.Fatalf("the demo exited %d, want 2 saying every slot is taken, before starting anything:\n%s", code, out)
		}
	})

	t.Run("the relay marks events it did not write", func(t *testing.T) {
		out, code := runDemo(t, bin, demoLocal, lab.Edit{File: "internal/outbox/relay.go",
			From: `err := w.WriteMessages(ctx, msgs...)`,
			To:   `err := error(nil) // the events are never written`})
		if code != 1 {
			t.Fatalf("the demo exited %d, want 1 (loss):\n%s", code, out)
		}
		if r := demoTable(t, out)["outbox events"]; r.lost == 0 || !strings.Contains(out, "is marked dispatched but is not in Kafka") {
			t.Fatalf("the demo does not report the lost outbox events (%+v):\n%s", r, out)
		}
	})

	t.Run("a cleaner deletes rows within their retention", func(t *testing.T) {
		out, code := runDemo(t, bin, demoLocal, lab.Edit{File: "cmd/orders-demo/cleaners.go",
			From: `"CLEANER_OUTBOX_DISPATCHED_RETENTION=24h"`,
			To:   `"CLEANER_OUTBOX_DISPATCHED_RETENTION=1s"`})
		if code != 1 {
			t.Fatalf("the demo exited %d, want 1 (loss):\n%s", code, out)
		}
		if r := demoTable(t, out)["expired rows (outbox-dispatched)"]; r.lost == 0 || !strings.Contains(out, "rows of outbox_event within the retention were deleted") {
			t.Fatalf("the demo does not report the recent rows the cleaner deleted (%+v):\n%s", r, out)
		}
	})
}

// checkNothingLost checks a demo's output: a clean shutdown, work on every
// part, some of it in flight at SIGTERM, and every piece accounted for.
func checkNothingLost(t *testing.T, out string) {
	t.Helper()
	for _, want := range []string{"shutdown complete", "every step and part within its budget", "nothing lost"} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo's output lacks %q:\n%s", want, out)
		}
	}
	rows := demoTable(t, out)
	inFlight := 0
	for _, what := range []string{"HTTP requests", "outbox events", "tasks", "messages (order-events)", "expired rows (outbox-dispatched)", "expired rows (processed-events)"} {
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
}

// demoServers says how a demo finds PostgreSQL and Redis.
type demoServers int

const (
	demoLocal        demoServers = iota // DATABASE_URL and REDIS_ADDR name the test's servers
	demoCompose                         // both unset, and docker "runs": compose.yaml's servers are the test's
	demoComposeFails                    // both unset, docker runs, and compose cannot start the servers
)

// runDemo runs the demo in a copy of golden/full with edits made, and
// returns its output and exit code.
func runDemo(t *testing.T, gsgenDir string, servers demoServers, edits ...lab.Edit) (string, int) {
	t.Helper()
	cmd, out := demoCmd(t, gsgenDir, servers, edits...)
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// demoCmd builds the demo in a copy of golden/full with edits made, and
// returns the command that runs it and the buffer its output goes to. The
// demo runs with gsgen on PATH for the timeline, and with a stand-in for
// docker first on PATH: with demoLocal it says docker is not running (so a
// docker on this machine is never used); with demoCompose it answers
// compose's questions with the test's servers and logs its calls in
// docker.log beside the demo; with demoComposeFails its compose fails.
func demoCmd(t *testing.T, gsgenDir string, servers demoServers, edits ...lab.Edit) (*exec.Cmd, *demoOutput) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "full")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "full"))); err != nil {
		t.Fatal(err)
	}
	if err := lab.Apply(dir, edits...); err != nil {
		t.Fatal(err)
	}
	gotool.Run(t, dir, "build", "-o", "demo", "./cmd/orders-demo")
	pg, redis := testServers()
	fake := "#!/bin/sh\nexit 1 # docker is not running\n"
	env := gotool.Env()
	if servers == demoCompose {
		fake = fmt.Sprintf(`#!/bin/sh
# A stand-in for docker whose compose "runs" the test's servers.
echo "$*" >>%q
case "$*" in
info | "compose up --detach --wait postgres redis") ;;
"compose port postgres 5432") echo %s ;;
"compose port redis 6379") echo %s ;;
*) echo "unexpected: docker $*" >&2; exit 1 ;;
esac
`, filepath.Join(dir, "docker.log"), pg.Host, redis)
		env = append(env, "DATABASE_URL=", "REDIS_ADDR=")
	} else if servers == demoComposeFails {
		fake = "#!/bin/sh\ncase \"$1\" in info) exit 0 ;; esac\necho 'pull access denied for postgres' >&2\nexit 1\n"
		env = append(env, "DATABASE_URL=", "REDIS_ADDR=")
	} else {
		env = append(env, "DATABASE_URL="+pg.String(), "REDIS_ADDR="+redis)
	}
	fakeDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(fakeDir, "docker"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(dir, "demo"))
	cmd.Dir = dir
	cmd.Env = append(env, "PATH="+fakeDir+string(os.PathListSeparator)+gsgenDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := &demoOutput{}
	cmd.Stdout, cmd.Stderr = out, out
	return cmd, out
}

// schemaRE finds the schema a demo says it took, with its slot.
var schemaRE = regexp.MustCompile(`schema (orders_demo\S*)`)

// demoOutput is a running demo's output, which a test can read while the
// demo writes it and wait on for a line.
type demoOutput struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	waits []demoWait
}

type demoWait struct {
	re   *regexp.Regexp
	seen chan struct{}
}

func (o *demoOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.buf.Write(p)
	o.waits = slices.DeleteFunc(o.waits, func(w demoWait) bool {
		if w.re.Match(o.buf.Bytes()) {
			close(w.seen)
			return true
		}
		return false
	})
	return n, err
}

func (o *demoOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// Saw returns a channel closed once the output matches re.
func (o *demoOutput) Saw(re *regexp.Regexp) <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	seen := make(chan struct{})
	if re.Match(o.buf.Bytes()) {
		close(seen)
	} else {
		o.waits = append(o.waits, demoWait{re, seen})
	}
	return seen
}

// testServers are the PostgreSQL and Redis the tests use.
func testServers() (*url.URL, string) {
	pg, _ := url.Parse("postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	if v := os.Getenv("GSGEN_TEST_POSTGRES_URL"); v != "" {
		if u, err := url.Parse(v); err == nil {
			pg = u
		}
	}
	redis := "127.0.0.1:6379"
	if v := os.Getenv("GSGEN_TEST_REDIS_ADDR"); v != "" {
		redis = v
	}
	return pg, redis
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
	pg, redis := testServers()
	for _, addr := range []string{pg.Host, redis} {
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
