//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package servicedir

import "syscall"

// noFollow opens a file without following a link put in its place after it
// was looked at, and without blocking on a FIFO put there: the Stat after
// the open then refuses either.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
