package main

import (
	"encoding/json"
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
