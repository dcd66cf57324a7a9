package generator

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
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

// lockOf records files. The answers file and go.mod/go.sum are left out:
// gsgen.yaml is the input a re-run reads, and go.mod/go.sum are merged with
// the user's own requirements rather than checked.
func lockOf(files Rendered) Lock {
	l := Lock{}
	for _, f := range files {
		if f.Path == "gsgen.yaml" || f.Merge != nil {
			continue
		}
		l[f.Path] = LockEntry{Owner: f.Owner, Hash: Hash(f.Content)}
	}
	return l
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

// ParseLock reads gsgen.lock.
func ParseLock(data []byte) (Lock, error) {
	l := Lock{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 || (f[0] != "gsgen" && f[0] != "user") || len(f[1]) != 64 {
			return nil, &InputError{Field: fmt.Sprintf("%s:%d", LockFile, n), Msg: "not a lock line (owner, sha256, path)",
				Fix: "restore it from version control, or delete it to re-run without hand-edit checks"}
		}
		owner := OwnedByGsgen
		if f[0] == "user" {
			owner = OwnedByUser
		}
		l[f[2]] = LockEntry{Owner: owner, Hash: f[1]}
	}
	return l, sc.Err()
}
