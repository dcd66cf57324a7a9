package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// go vet -vettool runs the analyzers, honours //gsgen:ignore and fails on a finding.
func TestGoVetTool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gsgen-vet and runs go vet with it")
	}
	tool := filepath.Join(t.TempDir(), "gsgen-vet")
	if out, err := exec.Command("go", "build", "-o", tool, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command("go", "vet", "-vettool="+tool, "./...")
	cmd.Dir = filepath.Join("..", "gsgen", "testdata", "vet", "broken")
	out, err := cmd.CombinedOutput()
	if _, failed := err.(*exec.ExitError); !failed {
		t.Fatalf("go vet: %v, want a failure\n%s", err, out)
	}
	for _, want := range []string{
		"main.go:14:10: http.Server without ReadHeaderTimeout",
		"main.go:26:2: db.Close() runs before wg.Wait() (line 27)",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("go vet output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "main.go:15:") {
		t.Errorf("the finding silenced by //gsgen:ignore is reported:\n%s", out)
	}
}
