package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/vet"
	"github.com/gsgen-dev/gsgen/vet/check"
	"github.com/gsgen-dev/gsgen/vet/report"
	"github.com/gsgen-dev/gsgen/vet/report/reporttest"
)

// Every lab gsgen vet sees gives a valid SARIF log whose results are the
// text format's findings, message for message, and the same in json: what a
// code-scanning alert says is what gsgen vet prints in a terminal.
func TestVetFormatsOnPlantedLabs(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a generated service's packages per lab; skipped with -short")
	}
	for _, l := range Labs {
		if !l.Vet {
			continue
		}
		t.Run(fmt.Sprint(l.Number), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "orders")
			if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "golden", "full"))); err != nil {
				t.Fatal(err)
			}
			if err := Apply(dir, l.Edits...); err != nil {
				t.Fatal(err)
			}
			findings, err := check.Run(check.Options{Dir: dir, Manifests: filepath.Join(dir, "deploy", "k8s")})
			if err != nil {
				t.Fatal(err)
			}
			if len(findings) == 0 {
				t.Fatalf("lab %d: gsgen vet finds nothing", l.Number)
			}
			for i := range findings {
				findings[i].Pos.Filename, _ = filepath.Rel(dir, findings[i].Pos.Filename)
			}
			out := func(f report.Format) []byte {
				var b bytes.Buffer
				if err := report.Write(&b, f, findings, vet.Rules()); err != nil {
					t.Fatal(err)
				}
				return b.Bytes()
			}
			text := strings.Split(strings.TrimSuffix(string(out(report.Text)), "\n"), "\n")
			results := reporttest.SARIF(t, out(report.SARIF))
			var js struct {
				Findings []struct {
					File, Rule, Message string
					Line, Column        int
				}
			}
			if err := json.Unmarshal(out(report.JSON), &js); err != nil {
				t.Fatal(err)
			}
			if len(results) != len(text) || len(js.Findings) != len(text) {
				t.Fatalf("text %d findings, SARIF %d results, json %d", len(text), len(results), len(js.Findings))
			}
			for i, line := range text {
				r, j := results[i], js.Findings[i]
				fromSARIF := fmt.Sprintf("%s:%d:", r.URI, r.Line)
				fromJSON := fmt.Sprintf("%s:%d:%d: %s [%s]", j.File, j.Line, j.Column, j.Message, j.Rule)
				if !strings.HasPrefix(line, fromSARIF) || !strings.HasSuffix(line, ": "+r.Message+" ["+r.RuleID+"]") {
					t.Errorf("SARIF result %d (%s %s %q) is not text's\n%s", i, fromSARIF, r.RuleID, r.Message, line)
				}
				if line != fromJSON {
					t.Errorf("json finding %d is not text's:\n%s\n%s", i, fromJSON, line)
				}
			}
		})
	}
}
