package vet

import (
	"testing"

	"github.com/gsgen-dev/gsgen/generator"
)

// The rule holds hand-written services to the margin gsgen's own services
// keep; the two must not drift.
func TestTaskMarginIsGsgens(t *testing.T) {
	if taskMargin != generator.TaskMargin {
		t.Fatalf("vet's task margin is %v, generator.TaskMargin %v: make them the same", taskMargin, generator.TaskMargin)
	}
}
