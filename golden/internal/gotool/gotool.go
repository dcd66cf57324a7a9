// Package gotool runs the go command in a generated service, as gsgen's
// tests of generated services do: outside any workspace, with the service's
// tests pointed at the servers gsgen's own tests use.
package gotool

import (
	"os"
	"os/exec"
	"strings"
	"testing"
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

// Run runs go args in dir and returns its output; a failure fails t.
// build, vet and test get -trimpath, so that outputs do not depend on
// where the copy of the service is.
func Run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if len(args) > 0 && (args[0] == "build" || args[0] == "vet" || args[0] == "test") {
		args = append([]string{args[0], "-trimpath"}, args[1:]...)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}
