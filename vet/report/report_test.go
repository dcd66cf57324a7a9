package report

import (
	"bytes"
	"encoding/json"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/vet"
	"github.com/gsgen-dev/gsgen/vet/report/reporttest"
)

var findings = []vet.Finding{
	{Pos: token.Position{Filename: "cmd/orders/main.go", Line: 315, Column: 29}, Rule: "shutdownctx", Message: "http.Server.Shutdown gets a context that is already done: give it context.WithTimeout(context.Background(), drain)"},
	{Pos: token.Position{Filename: "deploy/k8s/my deployment.yaml", Line: 39, Column: 38}, Rule: vet.LadderRule, Message: `Deployment orders: timeouts.grace: 30s is shorter than preStop 10s + HTTP drain 25s & "<-ctx.Done()"`},
	{Pos: token.Position{Filename: filepath.Join(string(filepath.Separator), "elsewhere", "relay.go"), Line: 3, Column: 1}, Rule: "txctx", Message: "transaction begun on the Run loop's ctx"},
}

func write(t *testing.T, f Format, fs []vet.Finding) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, f, fs, vet.Rules()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Text is go vet's shape, one line per finding.
func TestText(t *testing.T) {
	got := string(write(t, Text, findings))
	want := "cmd/orders/main.go:315:29: " + findings[0].Message + " [shutdownctx]\n"
	if !strings.HasPrefix(got, want) || strings.Count(got, "\n") != len(findings) {
		t.Errorf("text:\n%s\nwant %d lines starting\n%s", got, len(findings), want)
	}
	if out := write(t, Text, nil); len(out) != 0 {
		t.Errorf("text of no findings: %q, want nothing", out)
	}
}

// JSON carries every field of every finding, as text prints them.
func TestJSON(t *testing.T) {
	var got jsonReport
	if err := json.Unmarshal(write(t, JSON, findings), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Findings) != len(findings) {
		t.Fatalf("%d findings, want %d", len(got.Findings), len(findings))
	}
	for i, f := range findings {
		g := got.Findings[i]
		if g.File != f.Pos.Filename || g.Line != f.Pos.Line || g.Column != f.Pos.Column || g.Rule != f.Rule || g.Message != f.Message {
			t.Errorf("finding %d: %+v, want %v", i, g, f)
		}
	}
	// A script reads an empty list, not null, when the code is clean.
	if out := string(write(t, JSON, nil)); !strings.Contains(out, `"findings": []`) {
		t.Errorf("json of no findings: %s", out)
	}
}

// SARIF is valid against the 2.1.0 schema; each result names its rule,
// carries the finding's message and points at its file and line.
func TestSARIF(t *testing.T) {
	results := reporttest.SARIF(t, write(t, SARIF, findings))
	wantURIs := []string{"cmd/orders/main.go", "deploy/k8s/my%20deployment.yaml", "file:///elsewhere/relay.go"}
	if len(results) != len(findings) {
		t.Fatalf("%d results, want %d", len(results), len(findings))
	}
	for i, f := range findings {
		r := results[i]
		if r.RuleID != f.Rule || r.Message != f.Message || r.Line != f.Pos.Line || r.URI != wantURIs[i] {
			t.Errorf("result %d: %+v, want rule %s, message %q, %s line %d", i, r, f.Rule, f.Message, wantURIs[i], f.Pos.Line)
		}
	}
	if results := reporttest.SARIF(t, write(t, SARIF, nil)); len(results) != 0 {
		t.Errorf("SARIF of no findings has %d results", len(results))
	}
}

// The driver describes every rule gsgen vet has, with the help its Doc gives.
func TestSARIFDescribesEveryRule(t *testing.T) {
	log := sarifLog(nil, vet.Rules())
	rules := log.Runs[0].Tool.Driver.Rules
	if len(rules) != len(vet.Analyzers)+1 {
		t.Fatalf("%d rules, want the %d analyzers and ladder", len(rules), len(vet.Analyzers))
	}
	for _, r := range rules {
		if r.ShortDescription.Text == "" || len(r.Help.Text) < 80 {
			t.Errorf("rule %s: %+v", r.ID, r)
		}
	}
	// Paragraphs wrapped for a terminal are joined: a code-scanning page wraps them itself.
	if rules[0].ID != "runloop" || !strings.HasPrefix(rules[0].FullDescription.Text, "A background loop shaped Run(ctx context.Context, wg *sync.WaitGroup) is stopped") {
		t.Errorf("rule 0 is %s: %q", rules[0].ID, rules[0].FullDescription.Text)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats {
		if got, ok := ParseFormat(string(f)); !ok || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, ok)
		}
	}
	for _, bad := range []string{"", "SARIF", "xml", "text "} {
		if _, ok := ParseFormat(bad); ok {
			t.Errorf("ParseFormat(%q) accepted it", bad)
		}
	}
}
