//go:build gsgen_killtest

package servicedir

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"sync"
)

// The kill tests (cmd/gsgen/kill_test.go) build gsgen with -tags
// gsgen_killtest to stop it at an exact point of a write instead of at a
// random moment that would mostly land before or after it.
//
// With GSGEN_TEST_PAUSE_AT=N set, every point is reported on stderr as
// "gsgen-test: step K NAME"; at the Nth the process reports
// "gsgen-test: paused at K" and waits for a line on stdin, so the test can
// kill it there (or let it go on). N=0 only reports.
var pauseAt, pauseCount = func() int {
	n, err := strconv.Atoi(os.Getenv("GSGEN_TEST_PAUSE_AT"))
	if err != nil {
		return -1
	}
	return n
}(), 0

var pauseMu sync.Mutex

func pause(name string) {
	if pauseAt < 0 {
		return
	}
	pauseMu.Lock()
	defer pauseMu.Unlock()
	pauseCount++
	fmt.Fprintf(os.Stderr, "gsgen-test: step %d %s\n", pauseCount, name)
	if pauseCount == pauseAt {
		fmt.Fprintf(os.Stderr, "gsgen-test: paused at %d\n", pauseCount)
		bufio.NewReader(os.Stdin).ReadString('\n')
	}
}
