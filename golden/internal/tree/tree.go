// Package tree reads a directory of files as the golden tests compare
// them: every file's bytes by its slash-separated path inside it.
package tree

import (
	"os"
	"path/filepath"
	"testing"
)

// Read returns the files under dir by their path relative to it; an error
// fails t.
func Read(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
