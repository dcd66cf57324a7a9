package vet

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

func TestRunLoop(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), RunLoop, "runloop")
}
