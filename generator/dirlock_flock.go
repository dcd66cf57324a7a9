//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package generator

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on the directory itself: nothing is
// written for it, and the kernel releases it when the process ends, however
// it ends, so a killed run never leaves a stale lock.
func tryLock(dir string) (unlock func() error, err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return f.Close, nil // closing the descriptor releases the lock
}
