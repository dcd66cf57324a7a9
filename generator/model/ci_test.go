package model

import (
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
)

// The workflow pins the gsgen release that wrote it (generator's
// TestWorkflowRunsThePinnedVet: in both of its gsgen vet steps).
func TestWorkflowPinsTheRelease(t *testing.T) {
	defer func(v string) { gsgenVersion = v }(gsgenVersion)
	gsgenVersion = "v1.4.2"
	m, err := newModel(answers.Answers{Name: "shop"}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if want := "github.com/gsgen-dev/gsgen/cmd/gsgen@v1.4.2"; m.CI == nil || m.CI.GsgenVet != want {
		t.Errorf("the workflow pins %+v, want %s", m.CI, want)
	}
}
