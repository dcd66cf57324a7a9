package generator

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Action is what writing does to one file.
type Action string

const (
	Create    Action = "create"    // the file does not exist
	Overwrite Action = "overwrite" // gsgen owns it and its bytes change
	Identical Action = "identical" // gsgen owns it and it already has these bytes
	Keep      Action = "keep"      // the user owns it and it exists: never touched
	Delete    Action = "delete"    // gsgen owns it and no longer plans it (a removed component)
	Skip      Action = "skip"      // the user owns it and deleted it: not brought back
	Leave     Action = "leave"     // the user owns it and its component was removed: left in place
)

// Change is one file and what writing does to it.
type Change struct {
	RenderedFile
	Action     Action
	HandEdited bool // gsgen owns it and the user edited it; only with --force
}

// Changes is the write plan for a directory.
type Changes []Change

// DiffTarget compares the rendered service with what is in dir. It reads,
// never writes. A dir that exists and is not empty is refused unless force.
func DiffTarget(dir string, files Rendered, force bool) (Changes, error) {
	empty, err := isEmptyDir(dir)
	if err != nil {
		return nil, err
	}
	if !empty && !force {
		return nil, &InputError{Field: "DIR", Msg: fmt.Sprintf("%s exists and is not empty", dir),
			Fix: "choose a new directory, or pass --force to write into it (files you own are never overwritten)"}
	}
	if err := checkWritable(dir); err != nil {
		return nil, err
	}
	out := make(Changes, 0, len(files))
	for _, f := range files {
		target := filepath.Join(dir, filepath.FromSlash(f.Path))
		old, err := os.ReadFile(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			out = append(out, Change{RenderedFile: f, Action: Create})
		case err != nil:
			return nil, &InputError{Field: "DIR", Msg: fmt.Sprintf("cannot read %s: %v", target, err), Fix: "make it a readable file or move it away"}
		case f.Owner == OwnedByUser:
			out = append(out, Change{RenderedFile: f, Action: Keep})
		case bytes.Equal(old, f.Content):
			out = append(out, Change{RenderedFile: f, Action: Identical})
		default:
			out = append(out, Change{RenderedFile: f, Action: Overwrite})
		}
	}
	return out, nil
}

// isEmptyDir reports whether dir is missing or an empty directory.
func isEmptyDir(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return false, &InputError{Field: "DIR", Msg: fmt.Sprintf("%s exists and is not a directory", dir), Fix: "choose another path"}
		}
		return false, &InputError{Field: "DIR", Msg: fmt.Sprintf("cannot read %s: %v", dir, err), Fix: "check its permissions"}
	}
	return len(entries) == 0, nil
}

// Apply writes the changes into dir atomically: every file is first written
// to a staging directory next to its destination, then moved into place.
// A new dir appears in one rename. In an existing dir the files are renamed
// one by one and, if any step fails, the ones already moved are put back, so
// on error dir is as it was.
func (cs Changes) Apply(dir string) error {
	todo := slices.DeleteFunc(slices.Clone(cs), func(c Change) bool {
		return c.Action != Create && c.Action != Overwrite && c.Action != Delete
	})
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return createDir(dir, todo)
	}
	return updateDir(dir, todo)
}

// createDir stages every file in a temporary sibling of dir and renames it
// into place.
func createDir(dir string, cs Changes) (err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	undo, err := mkdirAllTracked(filepath.Dir(abs))
	if err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(abs), err)
	}
	defer func() {
		if err != nil {
			undo()
		}
	}()
	staging, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".gsgen-*")
	if err != nil {
		return fmt.Errorf("staging: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(staging)
		}
	}()
	if err := os.Chmod(staging, 0o755); err != nil {
		return err
	}
	for _, c := range cs {
		if err := writeFile(filepath.Join(staging, filepath.FromSlash(c.Path)), c.Content); err != nil {
			return err
		}
	}
	return os.Rename(staging, abs)
}

// updateDir stages the files inside dir, then moves them over their
// destinations, keeping what it replaces until every move has succeeded.
func updateDir(dir string, cs Changes) (err error) {
	staging, err := os.MkdirTemp(dir, ".gsgen-staging-*")
	if err != nil {
		return fmt.Errorf("staging: %w", err)
	}
	defer os.RemoveAll(staging)
	for i, c := range cs {
		if c.Action == Delete {
			continue
		}
		if err := writeFile(filepath.Join(staging, "new", fmt.Sprint(i)), c.Content); err != nil {
			return err
		}
	}
	var rollback []func()
	defer func() {
		if err != nil {
			for _, r := range slices.Backward(rollback) {
				r()
			}
		}
	}()
	for i, c := range cs {
		target := filepath.Join(dir, filepath.FromSlash(c.Path))
		undoDirs, err := mkdirAllTracked(filepath.Dir(target))
		if err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(target), err)
		}
		rollback = append(rollback, undoDirs)
		if c.Action == Overwrite || c.Action == Delete {
			backup := filepath.Join(staging, "old", fmt.Sprint(i))
			if err := os.MkdirAll(filepath.Dir(backup), 0o755); err != nil {
				return err
			}
			if err := os.Rename(target, backup); err != nil {
				return fmt.Errorf("replacing %s: %w", c.Path, err)
			}
			rollback = append(rollback, func() { os.Rename(backup, target) })
		}
		if c.Action == Delete {
			continue
		}
		if err := os.Rename(filepath.Join(staging, "new", fmt.Sprint(i)), target); err != nil {
			return fmt.Errorf("writing %s: %w", c.Path, err)
		}
		rollback = append(rollback, func() { os.Remove(target) })
	}
	// A removed component can leave its folders empty: remove those.
	for _, c := range cs {
		if c.Action != Delete {
			continue
		}
		for d := filepath.Dir(filepath.Join(dir, filepath.FromSlash(c.Path))); d != filepath.Clean(dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil { // not empty
				break
			}
		}
	}
	return nil
}

func writeFile(p string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, content, 0o644)
}

// mkdirAllTracked creates dir and its missing parents and returns a function
// that removes exactly the directories it created.
func mkdirAllTracked(dir string) (undo func(), err error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	undo = func() {
		for _, d := range missing { // deepest first
			os.Remove(d)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		undo()
		return func() {}, err
	}
	return undo, nil
}

// checkWritable finds out before anything is written whether gsgen can
// create files where dir is (or will be): in the directory itself, or in
// the nearest parent that exists.
func checkWritable(dir string) error {
	existing := dir
	for {
		if _, err := os.Stat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	probe, err := os.MkdirTemp(existing, ".gsgen-probe-*")
	if err != nil {
		return &InputError{Field: "DIR", Msg: fmt.Sprintf("cannot write in %s: %v", existing, errors.Unwrap(err)),
			Fix: "choose a directory you can write to, or fix its permissions"}
	}
	return os.Remove(probe)
}
