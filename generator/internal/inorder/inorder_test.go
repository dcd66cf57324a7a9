package inorder

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// Every step runs, on more workers than steps too, and the error is the
// lowest failing step's whichever worker met it first.
func TestEachTriesEveryStepAndReportsTheFirstFailure(t *testing.T) {
	for _, workers := range []int{1, 3, 100} {
		var ran atomic.Int32
		err := Each(50, workers, func(i int) error {
			ran.Add(1)
			if i == 7 || i == 30 {
				return fmt.Errorf("step %d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "step 7" || ran.Load() != 50 {
			t.Errorf("%d workers: ran %d steps, error %v; want 50 and step 7", workers, ran.Load(), err)
		}
	}
	if err := Each(0, 2, func(int) error { return errors.New("ran") }); err != nil {
		t.Errorf("no steps: %v", err)
	}
}
