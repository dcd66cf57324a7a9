// Package servicedir is the bytes on disk: a service's directory opened for
// one run (resolved, locked, an interrupted write settled), the write plan
// and its journaled application, gsgen.lock, and the files a user names
// outside a service (answers files, --log). It knows which files gsgen keeps
// there, never what is in the service: it imports no step of generator, only
// the bottom packages problem and textdiff.
package servicedir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// ServiceDir is a service's directory opened for one run of gsgen: DIR
// resolved, the run's exclusive lock held until Close, and a write that an
// interrupted run left behind completed or undone. Every file gsgen reads or
// writes in it goes through it, so that every path stays inside DIR and no
// symbolic link is followed.
type ServiceDir struct {
	shown   string   // DIR as the user wrote it, for messages
	abs     string   // absolute, DIR's own symbolic links resolved
	anchor  string   // abs when it exists, else its nearest existing ancestor: the directory locked
	missing []string // the directories from anchor down to abs that do not exist yet
	root    *os.Root // on abs; nil while abs does not exist
	unlock  func() error
}

// maxDirPath is the longest DIR gsgen takes: Linux's PATH_MAX.
const maxDirPath = 4096

// LockWait is how long a run waits for another gsgen run on the same
// service to finish before it gives up.
var LockWait = 10 * time.Second

// OpenServiceDir opens dir for a run: it resolves dir (which may not exist
// yet), takes the lock on it (on its nearest existing ancestor when it does
// not exist), waiting up to LockWait for another run to finish, and then
// completes or undoes a write an interrupted run left. A dry run writes
// nothing, so for it such a write is a *JournalError instead. say, when not
// nil, is told about the wait and about what was recovered.
func OpenServiceDir(dir string, dryRun bool, say func(string)) (*ServiceDir, error) {
	if say == nil {
		say = func(string) {}
	}
	d := &ServiceDir{shown: dir}
	if err := d.lock(say); err != nil {
		return nil, err
	}
	pause("locked")
	if d.missing == nil {
		root, err := os.OpenRoot(d.abs)
		if err != nil {
			d.Close()
			return nil, &problem.IOError{Path: d.shown, Msg: fmt.Sprintf("cannot be opened: %v", unwrapPathErr(err)), Fix: "check its permissions", Err: err}
		}
		d.root = root
	}
	settle := d.recoverInterrupted
	if dryRun {
		settle = d.refuseInterrupted
	}
	if err := settle(say); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// lock resolves DIR and takes the lock on it, or on its nearest existing
// ancestor. A DIR another run created while this one waited is resolved
// again, and locked itself.
func (d *ServiceDir) lock(say func(string)) error {
	waiting := func() {
		say(fmt.Sprintf("%s: another gsgen run is changing it; waiting up to %s for it to finish", d.shown, problem.Seconds(LockWait)))
	}
	for {
		if err := d.resolve(); err != nil {
			return err
		}
		locked := d.anchor
		unlock, err := lockDir(locked, waiting)
		if err != nil {
			return d.lockError(err)
		}
		if err := d.resolve(); err != nil || d.anchor == locked {
			d.unlock = unlock
			return err
		}
		unlock()
	}
}

// Close releases the lock.
func (d *ServiceDir) Close() error {
	var errs []error
	if d.root != nil {
		errs = append(errs, d.root.Close())
	}
	if d.unlock != nil {
		errs = append(errs, d.unlock())
		d.unlock = nil
	}
	return errors.Join(errs...)
}

// Name is DIR as the user wrote it, as messages name it.
func (d *ServiceDir) Name() string { return d.shown }

// Exists reports whether DIR exists.
func (d *ServiceDir) Exists() bool { return d.root != nil }

// resolve finds what dir is: an existing directory (through symbolic links
// the user chose to name it by), or a path whose nearest existing ancestor
// is a directory. A dangling link or a file is an *InputError; a path that
// cannot be looked at, an *IOError.
func (d *ServiceDir) resolve() error {
	if len(d.shown) > maxDirPath {
		return &problem.InputError{Field: "DIR", Msg: fmt.Sprintf("the path %s is %d bytes long", problem.Quote(d.shown), len(d.shown)), Fix: fmt.Sprintf("give a path of at most %d bytes", maxDirPath)}
	}
	p, err := filepath.Abs(d.shown)
	if err != nil {
		return &problem.InputError{Field: d.shown, Msg: err.Error()}
	}
	d.missing = nil
	var missing []string
	for {
		_, err := os.Lstat(p)
		switch {
		case err == nil:
			return d.resolveExisting(p, missing)
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			parent := filepath.Dir(p)
			if parent == p {
				return &problem.InputError{Field: d.shown, Msg: "no part of the path exists", Fix: "give a path on a mounted file system"}
			}
			missing = append([]string{filepath.Base(p)}, missing...)
			p = parent
		default:
			return &problem.IOError{Path: p, Msg: fmt.Sprintf("cannot be looked at: %v", unwrapPathErr(err)), Fix: "check its permissions", Err: err}
		}
	}
}

func (d *ServiceDir) resolveExisting(p string, missing []string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if target, lerr := os.Readlink(p); lerr == nil {
			return &problem.InputError{Field: p, Msg: fmt.Sprintf("is a symbolic link to %s, which does not exist", problem.Quote(target)),
				Fix: "create the directory it points to, or remove the link", Err: err}
		}
		return &problem.IOError{Path: p, Msg: fmt.Sprintf("cannot be resolved: %v", unwrapPathErr(err)), Fix: "check the path", Err: err}
	}
	st, err := os.Stat(real)
	switch {
	case err != nil:
		return &problem.IOError{Path: p, Msg: fmt.Sprintf("cannot be looked at: %v", unwrapPathErr(err)), Fix: "check its permissions", Err: err}
	case !st.IsDir() && len(missing) == 0:
		return &problem.InputError{Field: d.shown, Msg: "exists and is not a directory", Fix: "choose another path"}
	case !st.IsDir():
		return &problem.InputError{Field: p, Msg: fmt.Sprintf("is a file, so %s cannot be created under it", d.shown), Fix: "choose another path"}
	}
	d.anchor = real
	d.abs = filepath.Join(append([]string{real}, missing...)...)
	if len(missing) > 0 {
		d.missing = missing
	}
	return nil
}

func (d *ServiceDir) lockError(err error) error {
	if errors.Is(err, problem.ErrLocked) {
		return &problem.LockError{Dir: d.shown, Msg: fmt.Sprintf("another gsgen run is still changing it after %s", problem.Seconds(LockWait)),
			Fix: "wait for that run to finish, then run this again", Err: err}
	}
	return &problem.IOError{Path: d.anchor, Msg: fmt.Sprintf("cannot be locked for this run: %v", unwrapPathErr(err)), Fix: "check its permissions", Err: err}
}

// lockDir takes the lock on dir, waiting up to LockWait. waiting is called
// once, when the lock is taken by another run.
func lockDir(dir string, waiting func()) (unlock func() error, err error) {
	deadline := time.Now().Add(LockWait)
	for first := true; ; first = false {
		unlock, err := tryLock(dir)
		if !errors.Is(err, problem.ErrLocked) || !time.Now().Before(deadline) {
			return unlock, err
		}
		if first {
			waiting()
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Show is a path inside DIR as messages name it.
func (d *ServiceDir) Show(rel string) string {
	return filepath.ToSlash(filepath.Join(d.shown, filepath.FromSlash(rel)))
}

// CheckPath refuses a path inside a service that is not one gsgen could
// write: it must be relative, slash-separated and clean, with no "..", no
// control character or backslash, and not inside .git. Paths from gsgen.lock,
// gsgen.yaml and names all pass through it.
func CheckPath(p string) error {
	switch {
	case p == "":
		return errors.New("the path is empty")
	case len(p) > 1024:
		return fmt.Errorf("the path is %d bytes long", len(p))
	case !utf8.ValidString(p):
		return errors.New("the path is not valid UTF-8")
	case strings.ContainsFunc(p, func(r rune) bool { return r == '\\' || unicode.IsControl(r) }):
		return fmt.Errorf("%s holds a backslash or a control character", problem.Quote(p))
	case path.IsAbs(p) || filepath.IsAbs(p):
		return fmt.Errorf("%s is an absolute path", problem.Quote(p))
	case !filepath.IsLocal(p) || path.Clean(p) != p || p == ".":
		return fmt.Errorf("%s leaves the service's directory or is not a clean path", problem.Quote(p))
	case slices.Contains(strings.Split(p, "/"), ".git"):
		return fmt.Errorf("%s is inside .git", problem.Quote(p))
	}
	return nil
}

// lstat looks at rel inside DIR without following any link: it returns nil
// when rel does not exist, an *InputError naming the path when rel or a
// directory on the way to it is a symbolic link, and an *IOError when a
// directory on the way is a file or when it cannot be looked at.
func (d *ServiceDir) lstat(rel string) (fs.FileInfo, error) {
	if err := CheckPath(rel); err != nil {
		return nil, &problem.InputError{Field: d.shown, Msg: err.Error(), Fix: "gsgen reads and writes only inside the service's directory"}
	}
	if d.root == nil {
		return nil, nil
	}
	elems := strings.Split(rel, "/")
	for i := range elems {
		p := strings.Join(elems[:i+1], "/")
		fi, err := d.root.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil
		case err != nil:
			return nil, &problem.IOError{Path: d.Show(p), Msg: fmt.Sprintf("cannot be looked at: %v", unwrapPathErr(err)), Fix: "check its permissions", Err: err}
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := d.root.Readlink(p)
			return nil, &problem.InputError{Field: d.Show(p), Msg: fmt.Sprintf("is a symbolic link (to %s); gsgen never reads or writes through a link", problem.Quote(target)),
				Fix: "replace the link with the real file or directory, or move it away"}
		case i < len(elems)-1 && !fi.IsDir():
			return nil, &problem.IOError{Path: d.Show(p), Msg: fmt.Sprintf("is a file where gsgen needs a directory (for %s)", rel), Fix: "move it away", Err: syscall.ENOTDIR}
		case i == len(elems)-1:
			return fi, nil
		}
	}
	return nil, nil
}

// FileAt is what is at a path gsgen may write: nothing, or a regular file.
type FileAt struct {
	Exists  bool
	Content []byte
	Mode    fs.FileMode
}

// Read returns what is at rel: nothing, or a regular file of at most
// maxServiceFile bytes. Anything else is refused naming the path: see lstat;
// a special file or one too large is an *InputError, a directory or a file
// that cannot be read an *IOError.
func (d *ServiceDir) Read(rel string) (FileAt, error) {
	return d.ReadAtMost(rel, maxServiceFile)
}

// ReadAtMost is Read with a cap of max bytes instead of the one for a
// service's files.
func (d *ServiceDir) ReadAtMost(rel string, max int64) (FileAt, error) {
	fi, err := d.lstat(rel)
	if err != nil || fi == nil {
		return FileAt{}, err
	}
	bad := func(msg, fix string) (FileAt, error) {
		return FileAt{}, &problem.InputError{Field: d.Show(rel), Msg: msg, Fix: fix}
	}
	unreadable := func(err error) (FileAt, error) {
		return FileAt{}, &problem.IOError{Path: d.Show(rel), Msg: fmt.Sprintf("cannot be read: %v", unwrapPathErr(err)), Fix: "make it readable (chmod u+r), or move it away", Err: err}
	}
	switch {
	case fi.IsDir():
		return FileAt{}, &problem.IOError{Path: d.Show(rel), Msg: "is a directory where gsgen has a file", Fix: "move the directory away", Err: syscall.EISDIR}
	case !fi.Mode().IsRegular():
		return bad("is not a regular file", "move it away")
	case fi.Size() > max:
		return bad(fmt.Sprintf("is %d bytes; gsgen reads at most %d MiB here", fi.Size(), max>>20), "move it away")
	}
	f, err := d.root.Open(rel)
	if err != nil {
		return unreadable(err)
	}
	defer f.Close()
	b, err := readAtMost(f, max)
	if err != nil {
		return unreadable(err)
	}
	return FileAt{Exists: true, Content: b, Mode: fi.Mode().Perm()}, nil
}

// ListSQL lists the .sql files of the directory rel, sorted, as paths
// relative to DIR; nothing when rel does not exist.
func (d *ServiceDir) ListSQL(rel string) ([]string, error) {
	fi, err := d.lstat(rel)
	if err != nil || fi == nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &problem.IOError{Path: d.Show(rel), Msg: "is a file where gsgen needs a directory", Fix: "move it away", Err: syscall.ENOTDIR}
	}
	f, err := d.root.Open(rel)
	if err != nil {
		return nil, &problem.IOError{Path: d.Show(rel), Msg: fmt.Sprintf("cannot be read: %v", unwrapPathErr(err)), Fix: "check its permissions", Err: err}
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, &problem.IOError{Path: d.Show(rel), Msg: fmt.Sprintf("cannot be read: %v", unwrapPathErr(err)), Fix: "check its permissions", Err: err}
	}
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, ".sql") {
			out = append(out, rel+"/"+n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// isEmpty reports whether DIR is missing or an empty directory.
func (d *ServiceDir) isEmpty() (bool, error) {
	if d.root == nil {
		return true, nil
	}
	f, err := d.root.Open(".")
	if err != nil {
		return false, &problem.IOError{Path: d.shown, Msg: fmt.Sprintf("cannot be read: %v", unwrapPathErr(err)), Fix: "check its permissions", Err: err}
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if err != nil && len(names) == 0 && !errors.Is(err, io.EOF) {
		return false, &problem.IOError{Path: d.shown, Msg: fmt.Sprintf("cannot be read: %v", unwrapPathErr(err)), Fix: "check its permissions", Err: err}
	}
	return len(names) == 0, nil
}
