// Package report prints gsgen vet's findings in the three formats it
// offers: text (one go vet-style line per finding, for people), json (for
// scripts) and SARIF 2.1.0 (for code scanning, e.g. GitHub's). Every format
// carries the same finding text: the message and the rule are the ones
// text prints, so what a reviewer reads in a code-scanning alert is what
// gsgen vet says in a terminal.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gsgen-dev/gsgen/vet"
	"github.com/gsgen-dev/gsgen/vet/internal/ignore"
)

// Format is an output format of gsgen vet.
type Format string

// The formats.
const (
	Text  Format = "text"
	JSON  Format = "json"
	SARIF Format = "sarif"
)

// Formats lists the formats, for help and messages.
var Formats = []Format{Text, JSON, SARIF}

// ParseFormat reads a format's name; ok is false for any other word.
func ParseFormat(s string) (f Format, ok bool) {
	for _, f := range Formats {
		if string(f) == s {
			return f, true
		}
	}
	return "", false
}

// Write prints findings in format f. A finding's file name is printed as it
// is: make it relative to the module root first, as code scanning reads
// relative paths from the root of the repository. rules are the rules the
// SARIF driver describes (vet.Rules()).
func Write(w io.Writer, f Format, findings []vet.Finding, rules []vet.Rule) error {
	switch f {
	case Text:
		for _, x := range findings {
			if _, err := fmt.Fprintln(w, x); err != nil {
				return err
			}
		}
		return nil
	case JSON:
		return writeJSON(w, jsonReport{Findings: jsonFindings(findings)})
	case SARIF:
		return writeJSON(w, sarifLog(findings, rules))
	}
	return fmt.Errorf("report: unknown format %q", f)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // messages quote code: "<-ctx.Done()" reads better than "\u003c-ctx.Done()"
	return enc.Encode(v)
}

// jsonReport is the json format: {"findings": [...]}, an empty list when
// the code is clean.
type jsonReport struct {
	Findings []jsonFinding `json:"findings"`
}

type jsonFinding struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"` // 1-based, in bytes, as go vet counts
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

func jsonFindings(findings []vet.Finding) []jsonFinding {
	out := make([]jsonFinding, 0, len(findings))
	for _, f := range findings {
		out = append(out, jsonFinding{File: f.Pos.Filename, Line: f.Pos.Line, Column: f.Pos.Column, Rule: f.Rule, Message: f.Message})
	}
	return out
}

// The parts of SARIF 2.1.0 gsgen vet writes. Field names are the
// standard's; the schema is in testdata, and the tests validate against it.
type (
	sarifReport struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string             `json:"id"`
		ShortDescription     sarifText          `json:"shortDescription"`
		FullDescription      sarifText          `json:"fullDescription"`
		Help                 sarifText          `json:"help"`
		HelpURI              string             `json:"helpUri"`
		DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
	}
	sarifConfiguration struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           sarifRegion           `json:"region"`
	}
	sarifArtifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	// sarifRegion has the start line only: SARIF counts columns in UTF-16
	// code units, go/token in bytes, and a line is what an alert points at.
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
)

const (
	sarifSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// gsgenURI is where gsgen and its README's table of rules live.
	gsgenURI = "https://github.com/gsgen-dev/gsgen"
	rulesURI = gsgenURI + "#gsgen-vet-packages"
)

// ignoreHelp ends every rule's help: how to silence one finding.
const ignoreHelp = "\n\nWhere the rule does not apply, silence the finding with a comment that says why, on the line before it or at its end: //gsgen:ignore %s REASON (# gsgen:ignore %[1]s REASON in YAML). A directive without a reason is reported itself."

func sarifLog(findings []vet.Finding, rules []vet.Rule) sarifReport {
	driver := sarifDriver{Name: "gsgen vet", InformationURI: gsgenURI, Rules: make([]sarifRule, 0, len(rules))}
	index := map[string]int{}
	for i, r := range rules {
		summary, detail, _ := strings.Cut(r.Doc, "\n\n")
		detail = strings.TrimSpace(detail)
		if detail == "" {
			detail = summary
		}
		index[r.Name] = i
		help := unwrap(detail)
		if slices.Contains(ignore.Rules, r.Name) { // not the ignore rule: its findings are about directives
			help += fmt.Sprintf(ignoreHelp, r.Name)
		}
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   r.Name,
			ShortDescription:     sarifText{summary},
			FullDescription:      sarifText{unwrap(detail)},
			Help:                 sarifText{help},
			HelpURI:              rulesURI,
			DefaultConfiguration: sarifConfiguration{Level: "error"},
		})
	}
	results := make([]sarifResult, 0, len(findings))
	for _, f := range findings {
		i, ok := index[f.Rule]
		if !ok {
			i = -1 // SARIF's "no rule object": a rule missing from rules is still reported
		}
		results = append(results, sarifResult{
			RuleID: f.Rule, RuleIndex: i, Level: "error", Message: sarifText{f.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{
				ArtifactLocation: artifact(f.Pos.Filename),
				Region:           sarifRegion{StartLine: max(f.Pos.Line, 1)},
			}}},
		})
	}
	return sarifReport{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{{Tool: sarifTool{driver}, Results: results}}}
}

// artifact is a finding's file as a SARIF artifact location: a relative
// path is a URI reference from the source root (%SRCROOT%, which code
// scanning takes as the repository's root), an absolute one a file: URI.
func artifact(name string) sarifArtifactLocation {
	slashed := filepath.ToSlash(name)
	if filepath.IsAbs(name) {
		if !strings.HasPrefix(slashed, "/") {
			slashed = "/" + slashed // C:/x on Windows
		}
		return sarifArtifactLocation{URI: (&url.URL{Scheme: "file", Path: slashed}).String()}
	}
	return sarifArtifactLocation{URI: (&url.URL{Path: slashed}).String(), URIBaseID: "%SRCROOT%"}
}

// unwrap joins the lines of each paragraph of an analyzer's Doc, which is
// wrapped for a terminal: a code-scanning page wraps text itself. Indented
// lines (examples) keep their line breaks.
func unwrap(doc string) string {
	var b strings.Builder
	for i, para := range strings.Split(doc, "\n\n") {
		if i > 0 {
			b.WriteString("\n\n")
		}
		lines := strings.Split(para, "\n")
		for j, l := range lines {
			if j > 0 {
				if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, " ") || strings.HasPrefix(lines[j-1], "\t") {
					b.WriteString("\n")
				} else {
					b.WriteString(" ")
				}
			}
			b.WriteString(l)
		}
	}
	return b.String()
}
