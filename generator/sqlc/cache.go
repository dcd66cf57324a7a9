package sqlc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
)

// sqlc's output depends only on its version and its inputs, so it is cached
// in the user's cache directory (os.UserCacheDir()/gsgen/sqlc), keyed by a
// hash of both: a rerun of add or regen on a service with SQL of the user's
// does not start sqlc again. The cache is only ever a shortcut: an entry
// that cannot be read, or a directory that cannot be written, means sqlc
// runs as if there were no cache.

// Version is the version of the sqlc linked into gsgen, the one its
// output's header names. TestSQLCVersionIsGoMods holds it to go.mod.
const Version = "v1.31.1"

// cacheEntry is one cached run: the key again (a file renamed or copied
// by hand is not taken for another) and sqlc's output files.
type cacheEntry struct {
	Key   string
	Files map[string][]byte
}

// cacheKey hashes sqlc's version and its inputs among files.
func cacheKey(files map[string][]byte) string {
	h := sha256.New()
	h.Write([]byte("sqlc " + Version + "\x00"))
	names := make([]string, 0, len(files))
	for name := range files {
		if IsInput(name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		// Lengths first, so no two different sets of files hash alike.
		b, _ := json.Marshal([]any{name, len(files[name])})
		h.Write(b)
		h.Write(files[name])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cachePath is where the entry for key lives; "" without a cache dir.
func cachePath(key string) string {
	dir, err := os.UserCacheDir()
	if err != nil || key == "" {
		return ""
	}
	return filepath.Join(dir, "gsgen", "sqlc", key+".json")
}

// readCache returns the cached output for key, or nil.
func readCache(key string) map[string][]byte {
	p := cachePath(key)
	if p == "" {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil || e.Key != key || len(e.Files) == 0 {
		return nil
	}
	return e.Files
}

// writeCache stores out under key, atomically: a concurrent reader sees
// the whole entry or none. Failing to is not an error of gsgen's.
func writeCache(key string, out map[string][]byte) {
	p := cachePath(key)
	if p == "" {
		return
	}
	b, err := json.Marshal(cacheEntry{Key: key, Files: out})
	if err != nil || os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".entry-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), p) != nil {
		os.Remove(tmp.Name())
	}
}
