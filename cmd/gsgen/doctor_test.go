package main

import (
	"net"
	"os"
	"strings"
	"testing"
)

// freeAddr is a loopback port nothing listens on (given out and closed again).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestDoctorNamesWhatIsMissing: the service's servers at the addresses its
// variables give, one of them a closed port, its HTTP port taken: exit 1,
// naming each, with a fix under each; Kafka down is said, not counted.
func TestDoctorNamesWhatIsMissing(t *testing.T) {
	svc := service(t, t.TempDir(), "--components", "http,outbox,asynq")
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	redis := freeAddr(t)
	t.Setenv("REDIS_ADDR", redis)
	t.Setenv("KAFKA_BROKERS", freeAddr(t))
	t.Setenv("HTTP_ADDR", taken.Addr().String())
	t.Setenv("ADMIN_ADDR", freeAddr(t))
	t.Setenv("DATABASE_URL", "postgres://postgres@"+freeAddr(t)+"/test?sslmode=disable")
	code, out, stderr := gsgen(t, "doctor", svc)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1 (something missing)\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"MISSING  Redis at " + redis, "fix: start Redis", "MISSING  PostgreSQL at", "set DATABASE_URL",
		"MISSING  port " + taken.Addr().String(), "note     Kafka at", "only make run needs a Kafka",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "missing PostgreSQL at") || !strings.Contains(stderr, "Redis at "+redis) || strings.Contains(stderr, "Kafka") {
		t.Errorf("the error names %q; want PostgreSQL, Redis and the port, not Kafka", stderr)
	}
}

// TestDoctorFindsTheServers: the machine's own servers, as the service's
// defaults (or gsgen's test variables) give them, answer.
func TestDoctorFindsTheServers(t *testing.T) {
	svc := service(t, t.TempDir(), "--components", "http,outbox,asynq")
	if v := os.Getenv("GSGEN_TEST_POSTGRES_URL"); v != "" {
		t.Setenv("DATABASE_URL", v)
	}
	if v := os.Getenv("GSGEN_TEST_REDIS_ADDR"); v != "" {
		t.Setenv("REDIS_ADDR", v)
	}
	t.Setenv("HTTP_ADDR", freeAddr(t))
	t.Setenv("ADMIN_ADDR", freeAddr(t))
	_, out, _ := gsgen(t, "doctor", svc)
	if !strings.Contains(out, "ok       PostgreSQL at") || !strings.Contains(out, "ok       Redis at") {
		if os.Getenv("CI") != "" {
			t.Fatalf("the servers do not answer:\n%s", out)
		}
		t.Skipf("PostgreSQL or Redis does not answer here:\n%s", out)
	}
	for _, want := range []string{"ok       Go: go1.", "ok       port 127.0.0.1:", "module cache"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
}

// TestDoctorGsgenTests: outside a service, gsgen's own tests' variables.
func TestDoctorGsgenTests(t *testing.T) {
	t.Chdir(t.TempDir())
	pg := freeAddr(t)
	t.Setenv("GSGEN_TEST_POSTGRES_URL", "postgres://postgres@"+pg+"/test?sslmode=disable")
	t.Setenv("GSGEN_TEST_REDIS_ADDR", freeAddr(t))
	code, out, stderr := gsgen(t, "doctor")
	if code != exitFailure || !strings.Contains(out, "gsgen's own tests") || !strings.Contains(out, "set GSGEN_TEST_POSTGRES_URL") ||
		!strings.Contains(out, "MISSING  PostgreSQL at "+pg) || !strings.Contains(out, "set GSGEN_TEST_REDIS_ADDR") {
		t.Errorf("exit %d, want 1 naming gsgen's test variables:\n%s%s", code, out, stderr)
	}
}

func TestDoctorBadDir(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"doctor", dir}, {"doctor", dir + "/nothing"}, {"doctor", dir, dir}} {
		code, out, stderr := gsgen(t, args...)
		if code != exitBadInput || out != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("gsgen %v: exit %d, stdout %q, stderr %q; want 2, one line, nothing on stdout", args, code, out, stderr)
		}
	}
}
