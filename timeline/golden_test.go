package timeline

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.txt and *.svg from the recorded logs")

// The logs in testdata were recorded from generated services (see
// testdata/README.md); each is drawn against the gsgen.yaml of
// testdata/<service>, the worker's against its service's.
func TestGolden(t *testing.T) {
	logs, err := filepath.Glob("testdata/*.log")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no recorded logs: %v", err)
	}
	for _, log := range logs {
		name := strings.TrimSuffix(filepath.Base(log), ".log")
		t.Run(name, func(t *testing.T) {
			tl := draw(t, log)
			golden(t, "testdata/"+name+".txt", []byte(tl.Text(0)))
			golden(t, "testdata/"+name+".svg", []byte(tl.SVG()))
		})
	}
}

// draw reads a recorded log and lays it out against its service's budget.
func draw(t *testing.T, log string) *Timeline {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Read(f, log)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("testdata", strings.TrimSuffix(s.Service, "-worker"))
	p, err := PlanFor(serviceModel(t, dir), s.Service, dir)
	if err != nil {
		t.Fatal(err)
	}
	return New(s, p)
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./timeline -update to write it, then read it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs; run go test ./timeline -update and read the diff\ngot:\n%s", path, got)
	}
}

// The README shows http-over.txt as gsgen timeline's example: it must be
// what gsgen timeline prints today.
func TestREADMEExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("testdata/http-over.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, append([]byte("$ gsgen timeline http-over.log\n"), example...)) {
		t.Error("README.md's gsgen timeline example is not testdata/http-over.txt: copy it in")
	}
}
