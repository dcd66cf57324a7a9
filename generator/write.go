package generator

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"syscall"

	"github.com/gsgen-dev/gsgen/generator/problem"
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
	HandEdited bool   // gsgen owns it and the user edited it; only with --force
	Note       string // what the action does not say (gsgen upgrade: merged, kept, a conflict)
	// The bytes on disk the change was decided against, when compared: a
	// file that no longer has them when the write begins is not touched.
	onDisk   []byte
	compared bool
	// gsgen's own version of the file, when Content is a merge of it with
	// the file on disk: what the base records.
	rendered []byte
}

// gsgens is gsgen's version of the file: what the lock and the base record.
func (c Change) gsgens() []byte {
	if c.rendered != nil {
		return c.rendered
	}
	return c.Content
}

// setContent makes the change write b instead.
func (c *Change) setContent(b []byte) {
	c.Content = b
	if c.Action != Create {
		c.Action = sameOr(c.onDisk, b, Overwrite)
	}
}

// Changes is the write plan for a directory.
type Changes []Change

// DiffTarget opens dir and compares a new service's files with what is in
// it (see ServiceDir.DiffNew). It reads, never writes.
func DiffTarget(dir string, files Rendered, force bool) (Changes, error) {
	d, err := OpenServiceDir(dir, true, nil)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.DiffNew(files, force)
}

// DiffNew compares a new service's files with what is in DIR. A DIR that
// exists and is not empty is refused unless force; with force, the files
// are written beside what is there, and never over it: go.mod and go.sum
// are merged, a file the user owns is kept, and any other file that exists
// with other bytes stops the run, listing them all.
func (d *ServiceDir) DiffNew(files Rendered, force bool) (Changes, error) {
	empty, err := d.isEmpty()
	if err != nil {
		return nil, err
	}
	isService := false
	if !empty {
		fi, err := d.lstat(AnswersFile)
		if err != nil {
			return nil, err
		}
		isService = fi != nil
	}
	regen := fmt.Sprintf("it is a service gsgen generated: change it with gsgen regen %s (or gsgen add, gsgen remove)", d.shown)
	if !empty && !force {
		fix := "choose a new directory, or pass --force to write the service beside the files there (gsgen new never overwrites a file)"
		if isService {
			fix = regen
		}
		return nil, &InputError{Field: "DIR", Msg: fmt.Sprintf("%s exists and is not empty", d.shown), Fix: fix}
	}
	out := make(Changes, 0, len(files))
	var conflicts []string
	var mergeErr error // reported after the conflicts, which say more
	for _, f := range files {
		now, err := d.read(f.Path)
		if err != nil {
			return nil, err
		}
		c := Change{RenderedFile: f, Action: Create}
		switch {
		case !now.exists:
		case f.Owner == OwnedByUser:
			c.Action = Keep
		case f.Merge != nil:
			if c.Content, err = f.Merge(now.content, f.Content); err != nil {
				mergeErr = cmp.Or(mergeErr, err)
			}
			c.Action = sameOr(now.content, c.Content, Overwrite)
			c.onDisk, c.compared = now.content, true
		case bytes.Equal(now.content, f.Content):
			c.Action = Identical
		default:
			conflicts = append(conflicts, f.Path)
		}
		out = append(out, c)
	}
	if len(conflicts) > 0 {
		fix := "move them away and run again (go.mod and go.sum are merged, never overwritten)"
		if isService {
			fix = regen
		}
		return nil, &InputError{Field: "DIR", Msg: fmt.Sprintf("gsgen new never overwrites a file, and %d that it would write exist in %s: %s", len(conflicts), d.shown, problem.ListShort(conflicts, 8)), Fix: fix}
	}
	if mergeErr != nil {
		return nil, mergeErr
	}
	return out, nil
}

// Apply opens dir and writes the changes into it (see ServiceDir.Apply).
func (cs Changes) Apply(dir string) error {
	d, err := OpenServiceDir(dir, false, nil)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Apply(cs)
}

// Apply writes the changes into DIR so that, whatever happens, DIR ends up
// as it was or with every change made. A new DIR is written into a staging
// folder beside it and appears in one rename. An existing DIR is changed
// through a journal (journal.go): a run killed half-way is completed by the
// next one, and on an error what was done is undone.
func (d *ServiceDir) Apply(cs Changes) error {
	todo := slices.DeleteFunc(slices.Clone(cs), func(c Change) bool {
		return c.Action != Create && c.Action != Overwrite && c.Action != Delete
	})
	switch {
	case d.root == nil:
		return d.create(todo)
	case len(todo) == 0:
		return nil
	}
	return d.writeJournaled(todo)
}

// create writes a new DIR: every file into a staging folder in the nearest
// existing ancestor, then one rename puts the whole tree in place.
func (d *ServiceDir) create(cs Changes) (err error) {
	anchor, err := os.OpenRoot(d.anchor)
	if err != nil {
		return d.cannotWrite(d.anchor, err)
	}
	defer anchor.Close()
	staging := stagingName(d.missing[0])
	if err := anchor.Mkdir(staging, 0o755); err != nil {
		return d.cannotWrite(d.anchor, err)
	}
	defer func() {
		if err != nil {
			anchor.RemoveAll(staging)
		}
	}()
	pause("new: staging")
	below := path.Join(append([]string{staging}, d.missing[1:]...)...)
	for _, c := range cs {
		p := path.Join(below, c.Path)
		if err := anchor.MkdirAll(path.Dir(p), 0o755); err != nil {
			return d.writeError(path.Dir(c.Path), err)
		}
		if err := anchor.WriteFile(p, c.Content, 0o644); err != nil {
			return d.writeError(c.Path, err)
		}
		pause("new: staged " + c.Path)
	}
	if err := anchor.Rename(staging, d.missing[0]); err != nil {
		return d.cannotWrite(d.anchor, err)
	}
	pause("new: renamed")
	return nil
}

// cannotWrite is an *IOError creating the first thing gsgen writes in dir:
// nothing is written yet.
func (d *ServiceDir) cannotWrite(dir string, err error) error {
	return &IOError{Path: "DIR", Msg: fmt.Sprintf("cannot write in %s: %v", dir, unwrapPathErr(err)),
		Fix: "choose a directory you can write to, or fix its permissions", Err: err}
}

// writeError is an *IOError writing rel during a write that is undone after it.
func (d *ServiceDir) writeError(rel string, err error) error {
	if rel == "." {
		return d.cannotWrite(d.shown, err)
	}
	fix := ""
	switch {
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		fix = "fix the permissions of it and of its directory"
	case errors.Is(err, syscall.ENOSPC):
		fix = "free space on its file system"
	}
	return &IOError{Path: d.show(rel), Msg: fmt.Sprintf("cannot be written: %v", unwrapPathErr(err)), Fix: fix, Err: err}
}
