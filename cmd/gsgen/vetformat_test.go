package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/vet/report/reporttest"
)

// --format json and --format sarif print the findings text prints, with the
// same exit code and count.
func TestVetFormats(t *testing.T) {
	code, text, _ := gsgen(t, "vet", "--dir", "testdata/vet/broken")
	if code != exitFindings {
		t.Fatalf("text: exit %d, want %d", code, exitFindings)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")

	code, out, stderr := gsgen(t, "vet", "--dir", "testdata/vet/broken", "--format", "json")
	if code != exitFindings || strings.TrimSpace(stderr) != "gsgen: vet: 2 findings" {
		t.Fatalf("json: exit %d, stderr %q", code, stderr)
	}
	var doc struct {
		Findings []struct {
			File          string
			Line, Column  int
			Rule, Message string
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if len(doc.Findings) != len(lines) {
		t.Fatalf("json has %d findings, text %d", len(doc.Findings), len(lines))
	}
	for i, f := range doc.Findings {
		if !strings.Contains(lines[i], ": "+f.Message+" ["+f.Rule+"]") || !strings.HasPrefix(lines[i], f.File+":") {
			t.Errorf("json finding %d %+v is not text's %s", i, f, lines[i])
		}
	}

	code, out, _ = gsgen(t, "vet", "--dir", "testdata/vet/broken", "--format", "sarif")
	if code != exitFindings {
		t.Fatalf("sarif: exit %d", code)
	}
	results := reporttest.SARIF(t, []byte(out))
	if len(results) != len(lines) {
		t.Fatalf("sarif has %d results, text %d findings", len(results), len(lines))
	}
	for i, r := range results {
		if !strings.Contains(lines[i], ": "+r.Message+" ["+r.RuleID+"]") || !strings.HasPrefix(lines[i], r.URI+":") {
			t.Errorf("sarif result %d %+v is not text's %s", i, r, lines[i])
		}
	}
}

// A clean module prints an empty list in json and a run without results in
// SARIF, and exits 0.
func TestVetFormatsClean(t *testing.T) {
	code, out, _ := gsgen(t, "vet", "--dir", "../../golden/http", "--format", "sarif")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	if results := reporttest.SARIF(t, []byte(out)); len(results) != 0 {
		t.Errorf("%d results on a clean service", len(results))
	}
	if code, out, _ := gsgen(t, "vet", "--dir", "../../golden/http", "--format", "json"); code != 0 || !strings.Contains(out, `"findings": []`) {
		t.Errorf("json: exit %d, %s", code, out)
	}
}

func TestVetFormatRefused(t *testing.T) {
	code, stdout, stderr := gsgen(t, "vet", "--dir", "testdata/vet/broken", "--format", "xml")
	if code != exitBadInput || stdout != "" || !strings.Contains(stderr, `--format: "xml" is not a format`) || !strings.Contains(stderr, "text, json or sarif") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d naming --format and the formats", code, stdout, stderr, exitBadInput)
	}
}

// In SARIF as in text, //gsgen:ignore with a reason silences its finding,
// and one without a reason silences nothing and is a result of its own.
func TestVetSARIFHonoursIgnore(t *testing.T) {
	results := func(dir string) []reporttest.Result {
		t.Helper()
		code, out, stderr := gsgen(t, "vet", "--dir", dir, "--format", "sarif")
		if code != exitFindings {
			t.Fatalf("exit %d, want %d:\n%s", code, exitFindings, stderr)
		}
		return reporttest.SARIF(t, []byte(out))
	}
	onLine15 := func(rs []reporttest.Result) []string {
		var out []string
		for _, r := range rs {
			if r.Line == 15 {
				out = append(out, r.RuleID)
			}
		}
		return out
	}
	if got := onLine15(results("testdata/vet/broken")); len(got) != 0 {
		t.Errorf("results on line 15, which //gsgen:ignore with a reason silences: %v", got)
	}

	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/vet/broken")); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	noReason := strings.Replace(string(src), "//gsgen:ignore httpserver local pprof listener, no client reaches it", "//gsgen:ignore httpserver", 1)
	if noReason == string(src) {
		t.Fatal("testdata/vet/broken/main.go no longer has the directive this test edits")
	}
	writeFile(t, filepath.Join(dir, "main.go"), noReason)
	if got := onLine15(results(dir)); strings.Join(got, " ") != "httpserver ignore" {
		t.Errorf("results on line 15 without the reason: %v, want the finding (httpserver) and the directive's (ignore)", got)
	}
}
