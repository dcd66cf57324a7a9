// Package reporttest checks gsgen vet's machine-readable output in tests:
// SARIF against the standard's JSON schema and what code scanning needs of
// it, so every test of a format checks the same things.
package reporttest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema is the SARIF 2.1.0 JSON schema, errata 01, as OASIS
// publishes it (copied from github.com/securego/gosec/v2 v2.29.0,
// report/sarif/testdata, where gosec's tests use it the same way).
//
//go:embed sarif-schema-2.1.0.json
var sarifSchema []byte

const schemaURL = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// Result is one result of a SARIF log, as the checks read it.
type Result struct {
	RuleID  string
	Message string
	URI     string
	Line    int
}

// SARIF fails t unless data is a SARIF 2.1.0 log valid against the schema
// with what gsgen vet promises on top of it: one run, a driver that
// describes every rule with a summary and help text, and results that each
// name a rule of the driver, carry a message and point at a file and a
// start line. It returns the results in order.
func SARIF(t testing.TB, data []byte) []Result {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sarifSchema))
	if err != nil {
		t.Fatalf("the SARIF schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(schemaURL)
	if err != nil {
		t.Fatalf("compiling the SARIF schema: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v", err)
	}

	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct{ Text string }
						Help             struct{ Text string }
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct {
							StartLine int `json:"startLine"`
						}
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q with %d runs, want 2.1.0 with one run", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name == "" || len(run.Tool.Driver.Rules) == 0 {
		t.Fatalf("the driver has no name or no rules: %+v", run.Tool.Driver)
	}
	for _, r := range run.Tool.Driver.Rules {
		if r.ShortDescription.Text == "" || !strings.Contains(r.Help.Text, "gsgen:ignore") {
			t.Errorf("rule %q: summary %q, help %q: want a summary, and help that says how to silence it", r.ID, r.ShortDescription.Text, r.Help.Text)
		}
	}
	var out []Result
	for i, r := range run.Results {
		if r.RuleIndex < 0 || r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %d: ruleId %q, ruleIndex %d: not a rule of the driver", i, r.RuleID, r.RuleIndex)
		}
		if len(r.Locations) != 1 {
			t.Fatalf("result %d has %d locations, want 1", i, len(r.Locations))
		}
		loc := r.Locations[0].PhysicalLocation
		if r.Message.Text == "" || loc.ArtifactLocation.URI == "" || loc.Region.StartLine < 1 {
			t.Errorf("result %d: message %q, uri %q, startLine %d: want all three", i, r.Message.Text, loc.ArtifactLocation.URI, loc.Region.StartLine)
		}
		out = append(out, Result{RuleID: r.RuleID, Message: r.Message.Text, URI: loc.ArtifactLocation.URI, Line: loc.Region.StartLine})
	}
	return out
}
