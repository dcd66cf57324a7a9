package golangci

import (
	"slices"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/gsgen-dev/gsgen/vet"
)

func names(as []*analysis.Analyzer) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	return out
}

// The plugin golangci-lint finds by name runs exactly the analyzers gsgen
// vet runs: a rule added to vet.Analyzers and not here fails this test.
func TestPluginRegistersEveryAnalyzerOfGsgenVet(t *testing.T) {
	newPlugin, err := register.GetPlugin(Name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	if want := names(vet.Analyzers); !slices.Equal(names(got), want) {
		t.Errorf("the plugin registers %v, gsgen vet runs %v", names(got), want)
	}
	for i, a := range got {
		if a != vet.Analyzers[i] {
			t.Errorf("analyzer %s is not the one gsgen vet runs (an unwrapped copy would ignore //gsgen:ignore)", a.Name)
		}
	}
	if p.GetLoadMode() != register.LoadModeTypesInfo {
		t.Errorf("load mode %q: the rules read types, want %q", p.GetLoadMode(), register.LoadModeTypesInfo)
	}
}

// Settings the plugin does not have are a mistake in .golangci.yml, reported
// rather than ignored.
func TestPluginRefusesUnknownSettings(t *testing.T) {
	if _, err := New(map[string]any{"disable": []string{"runloop"}}); err == nil {
		t.Error("New accepted a setting the plugin does not have")
	}
	if _, err := New(map[string]any{}); err != nil {
		t.Errorf("New with no settings: %v", err)
	}
}
