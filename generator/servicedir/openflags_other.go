//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package servicedir

// noFollow is 0 where the system has no such flags: the Lstat before the
// open and the Stat after it still refuse a link or a special file.
const noFollow = 0
