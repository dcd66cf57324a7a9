//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// holdRedisDB keeps database db of the Redis at addr to this test until it
// ends: each e2e test empties the database before and after it, so two runs
// of the suite on one machine (two checkouts, two engineers) would empty
// each other's queues mid-test. A second run waits here instead.
func holdRedisDB(t *testing.T, addr string, db int) {
	t.Helper()
	name := filepath.Join(os.TempDir(), fmt.Sprintf("gsgen-e2e-redis-%x-%d.lock", addr, db))
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatalf("locking Redis database %d for this test: %v", db, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("locking Redis database %d for this test: %v", db, err)
	}
	t.Cleanup(func() { f.Close() }) // closing the file releases the lock
}
