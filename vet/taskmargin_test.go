package vet

import (
	"testing"

	"github.com/gsgen-dev/gsgen/generator/model"
)

// The rule holds hand-written services to the margin gsgen's own services
// keep; the two must not drift.
func TestTaskMarginIsGsgens(t *testing.T) {
	if taskMargin != model.TaskMargin {
		t.Fatalf("vet's task margin is %v, generator.TaskMargin %v: make them the same", taskMargin, model.TaskMargin)
	}
}
