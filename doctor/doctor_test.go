package doctor

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// closedPort is a loopback address nothing listens on: a port the kernel
// gave out and that was closed again, so a connection is refused at once.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// listening is a loopback address something listens on, until the test ends.
func listening(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().String()
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// reachable skips the test when the server c checked does not answer
// (gsgen's test servers are not running), and fails it under CI.
func reachable(t *testing.T, c Check) {
	t.Helper()
	if c.Status != OK {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s: %s", c.Name, c.Detail)
		}
		t.Skipf("%s does not answer (%s): start it to run this test", c.Name, c.Detail)
	}
}

func wantStatus(t *testing.T, c Check, want Status, detail ...string) {
	t.Helper()
	if c.Status != want {
		t.Errorf("%s: status %s, want %s (%s)", c.Name, c.Status, want, c.Detail)
	}
	for _, d := range detail {
		if !strings.Contains(c.Detail+" fix: "+c.Fix, d) {
			t.Errorf("%s: %q (fix %q) does not say %q", c.Name, c.Detail, c.Fix, d)
		}
	}
	if want == Missing && c.Fix == "" {
		t.Errorf("%s is missing, but no fix is given", c.Name)
	}
}

func TestPostgres(t *testing.T) {
	ctx := context.Background()
	url := envOr("GSGEN_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	t.Run("answers", func(t *testing.T) {
		c := Postgres(ctx, Server{Addr: url, Var: "DATABASE_URL", Set: true}, "start it")
		reachable(t, c)
		wantStatus(t, c, OK, "answers", "DATABASE_URL")
	})
	t.Run("closed port", func(t *testing.T) {
		addr := closedPort(t)
		c := Postgres(ctx, Server{Addr: "postgres://postgres@" + addr + "/test?sslmode=disable", Var: "DATABASE_URL"}, "start PostgreSQL")
		wantStatus(t, c, Missing, "refused", "DATABASE_URL unset", "start PostgreSQL")
		if !strings.Contains(c.Name, addr) {
			t.Errorf("the check %q does not name %s", c.Name, addr)
		}
	})
	t.Run("not a URL", func(t *testing.T) {
		c := Postgres(ctx, Server{Addr: "postgres://%zz", Var: "DATABASE_URL", Set: true}, "start it")
		wantStatus(t, c, Missing, "DATABASE_URL is not a PostgreSQL URL", "set DATABASE_URL")
	})
}

func TestRedis(t *testing.T) {
	ctx := context.Background()
	t.Run("answers", func(t *testing.T) {
		c := Redis(ctx, Server{Addr: envOr("GSGEN_TEST_REDIS_ADDR", "127.0.0.1:6379"), Var: "REDIS_ADDR"}, "", "start it")
		reachable(t, c)
		wantStatus(t, c, OK, "PING")
	})
	t.Run("closed port", func(t *testing.T) {
		c := Redis(ctx, Server{Addr: closedPort(t), Var: "REDIS_ADDR", Set: true}, "", "start Redis")
		wantStatus(t, c, Missing, "refused", "(REDIS_ADDR)", "start Redis")
	})
	t.Run("not Redis", func(t *testing.T) {
		// Something listens, but closes without answering PING.
		c := Redis(ctx, Server{Addr: listening(t), Var: "REDIS_ADDR", Set: true}, "", "start Redis")
		wantStatus(t, c, Missing, "start Redis")
	})
}

func TestKafkaIsOnlyForMakeRun(t *testing.T) {
	ctx := context.Background()
	c := Kafka(ctx, Server{Addr: listening(t) + "," + listening(t), Var: "KAFKA_BROKERS"})
	wantStatus(t, c, OK, "every broker", "in-process")
	// One broker of two down: not missing, but said, with what needs it.
	c = Kafka(ctx, Server{Addr: listening(t) + "," + closedPort(t), Var: "KAFKA_BROKERS", Set: true})
	wantStatus(t, c, Note, "refused", "only make run", "in-process (kfake)", "set KAFKA_BROKERS")
}

func TestFreePort(t *testing.T) {
	wantStatus(t, FreePort("HTTP", closedPort(t), "HTTP_ADDR"), OK, "free")
	taken := listening(t)
	_, port, _ := net.SplitHostPort(taken)
	wantStatus(t, FreePort("HTTP", taken, "HTTP_ADDR"), Missing, "address already in use", ":"+port, "set HTTP_ADDR")
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGoVersion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/orders\n\ngo 1.21.0\n")
	wantStatus(t, GoVersion(ctx, dir), OK, "go.mod asks for go1.21.0")

	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/orders\n\ngo 1.99.0\n")
	wantStatus(t, GoVersion(ctx, dir), Missing, "go.mod asks for go1.99.0", "install Go 1.99.0 or newer")

	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/orders\n\ngo 1.21.0\n\ntoolchain go1.99.1\n")
	wantStatus(t, GoVersion(ctx, dir), Missing, "go.mod asks for go1.99.1")

	t.Run("no go", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/orders\n\ngo 1.21.0\n")
		wantStatus(t, GoVersion(ctx, dir), Missing, "no go command", "install Go 1.21.0")
	})
	wantStatus(t, GoVersion(ctx, t.TempDir()), Missing, "cannot read")
}

func TestModuleCache(t *testing.T) {
	ctx := context.Background()
	// gsgen's own modules, once downloaded as make deps does for a service:
	// building this test fetched only those its platform's packages import,
	// and the check asks for every module of the graph (a Windows-only
	// dependency of the terminal libraries among them).
	download := exec.CommandContext(ctx, "go", "mod", "download")
	download.Dir = ".."
	if out, err := download.CombinedOutput(); err != nil {
		t.Fatalf("go mod download (the module proxy is needed once): %v\n%s", err, out)
	}
	wantStatus(t, ModuleCache(ctx, ".."), OK, "modules are there")

	t.Run("cold cache", func(t *testing.T) {
		t.Setenv("GOMODCACHE", t.TempDir())
		wantStatus(t, ModuleCache(ctx, ".."), Missing, "not warm", "make deps", "GOPROXY=file://")
	})
	t.Run("vendored", func(t *testing.T) {
		t.Setenv("GOMODCACHE", t.TempDir())
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "vendor", "modules.txt"), "")
		wantStatus(t, ModuleCache(ctx, dir), OK, "vendor/")
	})
}

// fakeDocker puts a docker on PATH that runs script.
func fakeDocker(t *testing.T, script string) {
	t.Helper()
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "docker"), "#!/bin/sh\n"+script+"\n")
	if err := os.Chmod(filepath.Join(bin, "docker"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestDocker(t *testing.T) {
	ctx := context.Background()
	fakeDocker(t, `[ "$1" = info ] && echo 27.3.1`)
	wantStatus(t, Docker(ctx, true, "make up"), OK, "daemon 27.3.1 answers")

	fakeDocker(t, `echo "Cannot connect to the Docker daemon" >&2; exit 1`)
	wantStatus(t, Docker(ctx, true, "make up"), Missing, "Cannot connect to the Docker daemon", "start docker")
	// The servers answer here: compose is not the only way.
	wantStatus(t, Docker(ctx, false, "make up"), Note, "Cannot connect")
}

func TestRunNeedsDockerOnlyWithoutServers(t *testing.T) {
	ctx := context.Background()
	fakeDocker(t, "exit 1")
	down := Run(ctx, Target{Redis: &Server{Addr: closedPort(t), Var: "REDIS_ADDR"}, RedisFix: "start Redis", Compose: true,
		Ports: []Port{{"HTTP", listening(t), "HTTP_ADDR"}}})
	if got, want := strings.Join(down.Missing(), "; "), "Redis at"; !strings.HasPrefix(got, want) ||
		!strings.Contains(got, "docker") || !strings.Contains(got, "port") {
		t.Errorf("missing %q, want Redis, docker (compose is the only way left) and the port", got)
	}
	var out strings.Builder
	down.Write(&out)
	for _, s := range []string{"MISSING  Redis at", "fix: start Redis", "MISSING  docker"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the report does not say %q:\n%s", s, out.String())
		}
	}
}

func TestOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	wantStatus(t, OnPath(), Note, "no timeline", "go install ./cmd/gsgen")
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "gsgen"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(bin, "gsgen"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	wantStatus(t, OnPath(), OK, filepath.Join(bin, "gsgen"))
}
