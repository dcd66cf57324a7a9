//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package servicedir

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/gsgen-dev/gsgen/generator/problem"
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
			return nil, fmt.Errorf("%w: %w", problem.ErrLocked, err) // keep the syscall's answer for errors.Is
		}
		return nil, err
	}
	return f.Close, nil // closing the descriptor releases the lock
}
