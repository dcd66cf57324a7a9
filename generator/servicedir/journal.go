package servicedir

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// A write into an existing directory goes through a journal, so that a run
// killed at any point leaves either the directory as it was, or a journal
// from which the next run completes the write:
//
//  1. prepare: every new file is written into .gsgen-journal.partial/new/,
//     with a plan listing each change and the hashes of what it replaces and
//     writes; renaming the folder to .gsgen-journal commits the write.
//  2. apply: each change moves the file it replaces into old/ and its new
//     file into place, one rename at a time; each step can be told done from
//     not done by what is on disk, so the next run redoes exactly the rest.
//  3. finish: the journal is renamed to .gsgen-journal.done and removed.
//
// A run that finds .gsgen-journal.partial removes it (nothing was applied
// yet); .gsgen-journal, it completes; .gsgen-journal.done, it removes.
const (
	journalDir     = ".gsgen-journal"
	journalPartial = ".gsgen-journal.partial"
	journalDone    = ".gsgen-journal.done"
	journalHeader  = "gsgen journal 1"
)

// journalOp is one change of a write.
type journalOp struct {
	Action   Action // Create, Overwrite or Delete
	Path     string
	Old, New string // hashes of what it replaces and of what it writes; "" for none
}

type journal struct {
	d       *ServiceDir
	ops     []journalOp
	created []string // directories this run created, for a rollback
}

func (j *journal) newFile(i int) string { return journalDir + "/new/" + strconv.Itoa(i) }
func (j *journal) oldFile(i int) string { return journalDir + "/old/" + strconv.Itoa(i) }

// writeJournaled applies cs (Create, Overwrite and Delete only) to the
// existing DIR through a journal. On an error it undoes what it did.
func (d *ServiceDir) writeJournaled(cs Changes) error {
	j := &journal{d: d}
	if err := j.prepare(cs); err != nil {
		d.root.RemoveAll(journalPartial)
		return err
	}
	for i := range j.ops {
		if err := j.forward(i); err != nil {
			if rerr := j.rollback(i); rerr != nil {
				return &problem.JournalError{Path: d.shown, Msg: fmt.Sprintf("%v; undoing it also failed (%v)", err, rerr),
					Fix: fmt.Sprintf("the next gsgen run in %s completes it from %s", d.shown, journalDir), Err: errors.Join(err, rerr)}
			}
			return fmt.Errorf("%w (nothing was changed)", err)
		}
	}
	return j.finish()
}

// prepare stages every new file and the plan, and commits the journal.
func (j *journal) prepare(cs Changes) error {
	r := j.d.root
	if err := r.Mkdir(journalPartial, 0o755); err != nil {
		return j.d.writeError(".", err)
	}
	pause("journal: started")
	if err := r.MkdirAll(journalPartial+"/new", 0o755); err != nil {
		return j.d.writeError(journalPartial+"/new", err)
	}
	if err := r.MkdirAll(journalPartial+"/old", 0o755); err != nil {
		return j.d.writeError(journalPartial+"/old", err)
	}
	var plan bytes.Buffer
	plan.WriteString(journalHeader + "\n")
	for i, c := range cs {
		op := journalOp{Action: c.Action, Path: c.Path}
		mode := fs.FileMode(0o644)
		if c.Action != Create {
			now, err := j.d.Read(c.Path)
			if err != nil {
				return err
			}
			if c.Compared && (!now.Exists || !bytes.Equal(now.Content, c.OnDisk)) {
				return &problem.InputError{Field: j.d.Show(c.Path), Msg: "changed while gsgen was running", Fix: "run gsgen again"}
			}
			if now.Exists {
				op.Old = Hash(now.Content)
			}
			if now.Exists {
				mode = now.Mode // an overwritten file keeps its permissions
			}
		}
		if c.Action != Delete {
			op.New = Hash(c.Content)
			if err := r.WriteFile(journalPartial+"/new/"+strconv.Itoa(i), c.Content, mode); err != nil {
				return j.d.writeError(c.Path, err)
			}
			pause("journal: staged " + c.Path)
		}
		j.ops = append(j.ops, op)
		fmt.Fprintf(&plan, "%s %s %s %s\n", op.Action, orDash(op.New), orDash(op.Old), op.Path)
	}
	if err := r.WriteFile(journalPartial+"/plan", plan.Bytes(), 0o644); err != nil {
		return j.d.writeError(journalPartial+"/plan", err)
	}
	pause("journal: planned")
	if err := r.Rename(journalPartial, journalDir); err != nil {
		return j.d.writeError(journalDir, err)
	}
	pause("journal: committed")
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// forward does change i, or the part of it a killed run left undone.
func (j *journal) forward(i int) error {
	op, r := j.ops[i], j.d.root
	staged, err := exists(r, j.newFile(i))
	if err != nil {
		return j.d.lookError(j.newFile(i), err)
	}
	backedUp, err := exists(r, j.oldFile(i))
	if err != nil {
		return j.d.lookError(j.oldFile(i), err)
	}
	now, err := j.d.Read(op.Path)
	if err != nil {
		return err
	}
	nowHash := ""
	if now.Exists {
		nowHash = Hash(now.Content)
	}
	if !staged && op.Action != Delete || op.Action == Delete && backedUp {
		if nowHash != op.New {
			return j.changedSince(op.Path)
		}
		return nil // done already
	}
	// What is there must be what the plan replaces: the file it was written
	// against, or nothing once it has been moved aside.
	switch {
	case op.Action == Delete && !now.Exists:
		return nil // gone already: the user removed it
	case backedUp && now.Exists, !backedUp && nowHash != op.Old:
		return j.changedSince(op.Path)
	}
	if now.Exists {
		if err := r.Rename(op.Path, j.oldFile(i)); err != nil {
			return j.d.writeError(op.Path, err)
		}
		pause("journal: moved aside " + op.Path)
	}
	if op.Action == Delete {
		return nil
	}
	if err := j.mkdirs(path.Dir(op.Path)); err != nil {
		return err
	}
	if err := r.Rename(j.newFile(i), op.Path); err != nil {
		return j.d.writeError(op.Path, err)
	}
	pause("journal: wrote " + op.Path)
	return nil
}

func (j *journal) changedSince(p string) error {
	return &problem.JournalError{Path: j.d.Show(p), Msg: fmt.Sprintf("changed after an interrupted gsgen run planned to write it, so gsgen cannot complete that write (%s/plan lists it)", journalDir),
		Fix: fmt.Sprintf("compare it with %s/new and %s/old, keep what you want, then remove %s and run gsgen again", journalDir, journalDir, journalDir)}
}

// mkdirs creates dir and its missing parents, remembering them for a rollback.
func (j *journal) mkdirs(dir string) error {
	if dir == "." {
		return nil
	}
	elems := strings.Split(dir, "/")
	for k := range elems {
		p := strings.Join(elems[:k+1], "/")
		err := j.d.root.Mkdir(p, 0o755)
		switch {
		case err == nil:
			j.created = append(j.created, p)
		case !errors.Is(err, fs.ErrExist):
			return j.d.writeError(p, err)
		}
	}
	return nil
}

// rollback undoes changes [0, failed] of a run that hit an error, so DIR is
// as it was, and removes the journal.
func (j *journal) rollback(failed int) error {
	r := j.d.root
	for i := failed; i >= 0; i-- {
		op := j.ops[i]
		if staged, err := exists(r, j.newFile(i)); err != nil {
			return err
		} else if !staged && op.Action != Delete {
			if err := r.Rename(op.Path, j.newFile(i)); err != nil {
				return err
			}
		}
		if backedUp, err := exists(r, j.oldFile(i)); err != nil {
			return err
		} else if backedUp {
			if err := r.Rename(j.oldFile(i), op.Path); err != nil {
				return err
			}
		}
	}
	for _, dir := range slices.Backward(j.created) {
		r.Remove(dir)
	}
	return r.RemoveAll(journalDir)
}

// finish removes the folders a removed component left empty and the journal.
func (j *journal) finish() error {
	r := j.d.root
	for _, op := range j.ops {
		if op.Action != Delete {
			continue
		}
		for dir := path.Dir(op.Path); dir != "."; dir = path.Dir(dir) {
			if fi, err := r.Lstat(dir); err != nil || !fi.IsDir() || r.Remove(dir) != nil {
				break // not empty, or not ours to remove
			}
		}
	}
	if err := r.Rename(journalDir, journalDone); err != nil {
		return j.leftBehind(journalDir, err)
	}
	pause("journal: done")
	if err := r.RemoveAll(journalDone); err != nil {
		return j.leftBehind(journalDone, err)
	}
	pause("journal: removed")
	return nil
}

// leftBehind is a journal that outlives a complete write: a *JournalError,
// since the write is done and only the next run can tidy it away.
func (j *journal) leftBehind(rel string, err error) error {
	return &problem.JournalError{Path: j.d.Show(rel), Msg: fmt.Sprintf("every file is written, but the journal cannot be removed: %v", unwrapPathErr(err)),
		Fix: "the next gsgen run in " + j.d.shown + " removes it", Err: err}
}

// lookError is an *IOError looking at rel inside DIR.
func (d *ServiceDir) lookError(rel string, err error) error {
	return &problem.IOError{Path: d.Show(rel), Msg: fmt.Sprintf("cannot be looked at: %v", unwrapPathErr(err)), Fix: "check its permissions", Err: err}
}

func exists(r *os.Root, name string) (bool, error) {
	_, err := r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// recoverInterrupted finishes what an interrupted run left: it removes a
// journal still being prepared or already done, completes a committed one,
// and removes the staging folder of an interrupted gsgen new.
func (d *ServiceDir) recoverInterrupted(say func(string)) error {
	if d.root == nil {
		staging := stagingName(d.missing[0])
		anchor, err := os.OpenRoot(d.anchor)
		if err != nil {
			return nil // nothing gsgen could have staged there
		}
		defer anchor.Close()
		if ok, _ := exists(anchor, staging); !ok {
			return nil
		}
		if err := anchor.RemoveAll(staging); err != nil {
			return &problem.JournalError{Path: d.anchor, Msg: fmt.Sprintf("cannot remove %s, left by an interrupted gsgen new: %v", staging, unwrapPathErr(err)), Fix: "remove it by hand", Err: err}
		}
		say(fmt.Sprintf("%s: removed %s, left in %s by an interrupted gsgen new; nothing of it had been written", d.shown, staging, d.anchor))
		return nil
	}
	for _, leftover := range []string{journalPartial, journalDone} {
		ok, err := exists(d.root, leftover)
		if err != nil || !ok {
			continue
		}
		if err := d.root.RemoveAll(leftover); err != nil {
			return &problem.JournalError{Path: d.Show(leftover), Msg: fmt.Sprintf("left by an interrupted gsgen run, cannot be removed: %v", unwrapPathErr(err)), Fix: "remove it by hand", Err: err}
		}
		if leftover == journalPartial {
			say(fmt.Sprintf("%s: undid a write an interrupted gsgen run had begun; none of it had been applied", d.shown))
		} else {
			say(fmt.Sprintf("%s: removed %s, left by an interrupted gsgen run after it had written everything", d.shown, journalDone))
		}
	}
	if ok, err := exists(d.root, journalDir); err != nil {
		return d.lookError(journalDir, err)
	} else if !ok {
		return nil
	}
	j, err := d.readJournal()
	if err != nil {
		return err
	}
	for i := range j.ops {
		if err := j.forward(i); err != nil {
			return err
		}
	}
	if err := j.finish(); err != nil {
		return err
	}
	say(fmt.Sprintf("%s: completed a write an interrupted gsgen run had begun (%d files)", d.shown, len(j.ops)))
	return nil
}

// refuseInterrupted is a *JournalError when an interrupted run left a write
// in DIR: a dry run would compare against a half-written service.
func (d *ServiceDir) refuseInterrupted(func(string)) error {
	if d.root == nil {
		return nil
	}
	for _, leftover := range []string{journalDir, journalPartial, journalDone} {
		if ok, _ := exists(d.root, leftover); ok {
			return &problem.JournalError{Path: d.Show(leftover), Msg: "an interrupted gsgen run left a write unfinished, and a dry run writes nothing",
				Fix: fmt.Sprintf("run gsgen regen %s (without --dry-run) to finish it first", d.shown)}
		}
	}
	return nil
}

// readJournal reads the plan of a committed journal.
func (d *ServiceDir) readJournal() (*journal, error) {
	corrupt := func(why string, cause error) error {
		return &problem.JournalError{Path: d.Show(journalDir), Msg: "is not a journal gsgen can complete: " + why,
			Fix: fmt.Sprintf("restore the service from version control, or look at %s/new and %s/old, then remove %s", journalDir, journalDir, journalDir), Err: cause}
	}
	b, err := d.root.ReadFile(journalDir + "/plan")
	if err != nil {
		return nil, corrupt(unwrapPathErr(err).Error(), err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() || sc.Text() != journalHeader {
		return nil, corrupt("its plan has no header", nil)
	}
	j := &journal{d: d}
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 4)
		if len(f) != 4 {
			return nil, corrupt("a line of its plan is not action, hashes and path", nil)
		}
		op := journalOp{Action: Action(f[0]), New: strings.TrimPrefix(f[1], "-"), Old: strings.TrimPrefix(f[2], "-"), Path: f[3]}
		if err := CheckPath(op.Path); err != nil {
			return nil, corrupt(err.Error(), err)
		}
		if op.Action != Create && op.Action != Overwrite && op.Action != Delete {
			return nil, corrupt("unknown action "+problem.Quote(f[0]), nil)
		}
		j.ops = append(j.ops, op)
	}
	if err := sc.Err(); err != nil {
		return nil, corrupt(err.Error(), err)
	}
	return j, nil
}

// stagingName is where a new service is written before it is renamed into
// place: beside the top directory that does not exist yet.
func stagingName(top string) string { return "." + top + ".gsgen-new" }
