// Package gotool runs the go command in a generated service, as gsgen's
// tests of generated services do: outside any workspace, with the service's
// tests pointed at the servers gsgen's own tests use.
package gotool

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/internal/testpg"
)

// Env is the environment a generated service's go commands run in: outside
// any workspace, with its tests pointed at the servers gsgen's own tests
// use (GSGEN_TEST_POSTGRES_URL, GSGEN_TEST_REDIS_ADDR), when those are set,
// through the variables the service reads.
func Env() []string {
	env := append(os.Environ(), "GOWORK=off")
	for gsgenVar, serviceVar := range map[string]string{
		"GSGEN_TEST_POSTGRES_URL": "DATABASE_URL",
		"GSGEN_TEST_REDIS_ADDR":   "REDIS_ADDR",
	} {
		if v := os.Getenv(gsgenVar); v != "" {
			env = append(env, serviceVar+"="+v)
		}
	}
	return env
}

// TestEnv is Env with DATABASE_URL naming a database of t's own (see
// testpg), for a service's go test: its migrations then wait for no one
// else's transactions. When the server cannot be reached it is Env, and the
// service's tests say so as they would.
func TestEnv(t *testing.T) []string {
	t.Helper()
	db, err := testpg.Database(t, testpg.AdminURL(), "gsgen_test")
	if err != nil {
		t.Logf("no database of the test's own (%v): the service's tests use DATABASE_URL's", err)
		return Env()
	}
	return append(Env(), "DATABASE_URL="+db)
}

// Run runs go args in dir and returns its output; a failure fails t.
// build, vet and test get -trimpath, so that outputs do not depend on
// where the copy of the service is; test runs in a database of its own
// (TestEnv).
func Run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	env := Env()
	if len(args) > 0 && args[0] == "test" {
		env = TestEnv(t)
	}
	if len(args) > 0 && (args[0] == "build" || args[0] == "vet" || args[0] == "test") {
		args = append([]string{args[0], "-trimpath"}, args[1:]...)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}
