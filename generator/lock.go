package generator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// LockFile records what gsgen last wrote, next to gsgen.yaml: the hash of
// every file it owns, and the files it created for the user. A re-run tells
// a hand-edited owned file (its bytes no longer match) from one gsgen may
// rewrite, and a user file the user deleted from one never created.
const LockFile = "gsgen.lock"

// Lock is the content of gsgen.lock, by path.
type Lock map[string]LockEntry

// LockEntry is one file gsgen wrote.
type LockEntry struct {
	Owner Owner
	Hash  string // sha256 of the bytes gsgen wrote, hex
}

// Hash is the lock's fingerprint of content.
func Hash(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

const lockHeader = "# " + GeneratedMarker + "\n# What gsgen last wrote: owner, sha256, path. gsgen reads it to find hand edits.\n"

// lockOf records files.
func lockOf(files Rendered) Lock {
	l := Lock{}
	for _, f := range files {
		if inLock(f.PlannedFile) {
			l[f.Path] = LockEntry{Owner: f.Owner, Hash: Hash(f.Content)}
		}
	}
	return l
}

// inLock reports whether the lock records f. The answers file and
// go.mod/go.sum are left out: gsgen.yaml is the input a re-run reads, and
// go.mod/go.sum are merged with the user's own requirements rather than
// checked; so are the lock and the base themselves.
func inLock(f PlannedFile) bool {
	return f.Path != AnswersFile && f.Path != LockFile && f.Path != BaseFile && f.Merge == nil
}

// Bytes formats the lock: one line per file, sorted by path.
func (l Lock) Bytes() []byte {
	var b bytes.Buffer
	b.WriteString(lockHeader)
	for _, p := range sortedKeys(l) {
		fmt.Fprintf(&b, "%-5s %s  %s\n", l[p].Owner, l[p].Hash, p)
	}
	return b.Bytes()
}

// maxLockLine bounds a line of gsgen.lock: owner, hash and a path CheckPath accepts.
const maxLockLine = 2048

// ParseLock reads gsgen.lock. Anything but a list of files gsgen could have
// written is a corrupt lock, an *InputError: an empty lock would silently
// turn the hand-edit check off, and a path that leaves the service would let
// a re-run delete or show a file outside it.
func ParseLock(data []byte) (Lock, error) {
	corrupt := func(line int, msg string) error {
		field := LockFile
		if line > 0 {
			field = fmt.Sprintf("%s:%d", LockFile, line)
		}
		return &InputError{Field: field, Msg: msg + ": gsgen.lock is corrupt",
			Fix: "restore it from version control, or delete it and run gsgen regen --force, which rewrites every file gsgen owns without checking for hand edits"}
	}
	if !utf8.Valid(data) {
		return nil, corrupt(0, "not valid UTF-8")
	}
	l := Lock{}
	for n, line := range strings.Split(string(data), "\n") {
		n++
		if len(line) > maxLockLine {
			return nil, corrupt(n, fmt.Sprintf("the line is %d bytes long", len(line)))
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 || (f[0] != "gsgen" && f[0] != "user") || !isSHA256(f[1]) {
			return nil, corrupt(n, "not a lock line (owner, sha256, path)")
		}
		if err := CheckPath(f[2]); err != nil {
			return nil, corrupt(n, err.Error())
		}
		if _, dup := l[f[2]]; dup {
			return nil, corrupt(n, Quote(f[2])+" is listed twice")
		}
		owner := OwnedByGsgen
		if f[0] == "user" {
			owner = OwnedByUser
		}
		l[f[2]] = LockEntry{Owner: owner, Hash: f[1]}
	}
	if len(l) == 0 {
		return nil, corrupt(0, "it lists no file")
	}
	return l, nil
}

func isSHA256(s string) bool {
	_, err := hex.DecodeString(s)
	return len(s) == 64 && err == nil && strings.ToLower(s) == s
}
