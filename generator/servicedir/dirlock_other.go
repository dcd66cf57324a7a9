//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package servicedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// lockFileName is the lock where there is no flock: a file created with
// O_EXCL that names its holder. A run that dies leaves it behind, and the
// next run says so and stops until the user removes it.
const lockFileName = ".gsgen-run.lock"

func tryLock(dir string) (unlock func() error, err error) {
	p := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrExist) {
		holder, _ := os.ReadFile(p)
		return nil, fmt.Errorf("%w (%s holds it: %s; remove the file if no gsgen runs): %w", problem.ErrLocked, p, problem.Shorten(string(holder)), err)
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(f, "gsgen pid %d\n", os.Getpid())
	f.Close()
	return func() error { return os.Remove(p) }, nil
}
