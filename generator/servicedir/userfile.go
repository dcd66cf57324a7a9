package servicedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Files the user names on the command line, outside any service: what
// gsgen writes there never replaces a file unasked, never goes through a
// symbolic link and never leaves half a file; what it reads there is a
// regular file under a size cap, looked at before it is opened.

// WriteNamedFile writes data to name, a file the user named with flag
// (timeline --svg). An existing file is refused unless force; a symbolic
// link or anything but a regular file is refused always. The bytes go to a
// temporary file beside name first, which then takes name in one step: a
// hard link when name must not exist (so a file that appears meanwhile is
// not replaced either), a rename over it with force (which replaces a link
// put there meanwhile, never what it points to).
func WriteNamedFile(flag, name string, data []byte, force bool) error {
	bad := func(msg, fix string) error { return &problem.InputError{Field: flag, Msg: msg, Fix: fix} }
	if name == "" {
		return bad("is empty", "name the file to write, or leave the flag out")
	}
	if err := checkWritable(flag, name, force); err != nil {
		return err
	}
	dir, base := filepath.Split(name)
	tmp, err := os.CreateTemp(filepath.Clean(dir+"."), "."+base+".gsgen-*")
	if err != nil {
		return problem.PathError(flag, fmt.Sprintf("cannot write beside %s: %v", problem.Quote(name), unwrapPathErr(err)), "name a file in a directory you can write to", err)
	}
	defer os.Remove(tmp.Name()) // gone once it took name, or on any error
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return problem.PathError(flag, fmt.Sprintf("cannot write %s: %v", problem.Quote(name), unwrapPathErr(err)), "check the space and permissions of its directory", err)
	}
	if force {
		err = os.Rename(tmp.Name(), name)
	} else {
		err = os.Link(tmp.Name(), name)
	}
	switch {
	case errors.Is(err, fs.ErrExist):
		return existsError(flag, name)
	case err != nil:
		return problem.PathError(flag, fmt.Sprintf("cannot write %s: %v", problem.Quote(name), unwrapPathErr(err)), "name a file in a directory you can write to", err)
	}
	return nil
}

// CheckWritable refuses, before any work is done, a name WriteNamedFile
// would refuse: empty, a link, not a regular file, or existing without force.
func CheckWritable(flag, name string, force bool) error {
	if name == "" {
		return &problem.InputError{Field: flag, Msg: "is empty", Fix: "name the file to write, or leave the flag out"}
	}
	return checkWritable(flag, name, force)
}

func checkWritable(flag, name string, force bool) error {
	st, err := os.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return problem.PathError(flag, fmt.Sprintf("cannot look at %s: %v", problem.Quote(name), unwrapPathErr(err)), "name a file in a directory you can write to", err)
	case st.Mode()&fs.ModeSymlink != 0:
		return &problem.InputError{Field: flag, Msg: fmt.Sprintf("%s is a symbolic link; gsgen never writes through a link", problem.Quote(name)), Fix: "name the file itself, or a new one"}
	case !st.Mode().IsRegular():
		return &problem.InputError{Field: flag, Msg: fmt.Sprintf("%s %v", problem.Quote(name), kindOf(st)), Fix: "name a new file"}
	case !force:
		return existsError(flag, name)
	}
	return nil
}

func existsError(flag, name string) error {
	return &problem.InputError{Field: flag, Msg: fmt.Sprintf("%s exists, and gsgen never overwrites a file it did not write", problem.Quote(name)),
		Fix: "name a new file, or pass --force to replace it"}
}

// kindOf says what a file that is not a regular one is.
func kindOf(st fs.FileInfo) error {
	switch m := st.Mode(); {
	case m.IsDir():
		return errors.New("is a directory")
	case m&fs.ModeSymlink != 0:
		return errors.New("is a symbolic link")
	case m&fs.ModeNamedPipe != 0:
		return errors.New("is a FIFO, not a regular file")
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return errors.New("is a device, not a regular file")
	}
	return errors.New("is not a regular file")
}

// ReadRegularFile reads name, which must be a regular file (not a link:
// Lstat looks at it) of at most max bytes. It is looked at before it is
// opened, so a FIFO never blocks and a device is never read, and again once
// open, so a file swapped meanwhile is not read either. Every refusal names
// the file, an *InputError (or an *IOError when the OS refused the read); fix
// says how to mend it.
func ReadRegularFile(name string, max int64, fix string) ([]byte, error) {
	bad := func(msg string) error { return &problem.InputError{Field: name, Msg: msg, Fix: fix} }
	unreadable := func(err error) error {
		return problem.PathError(name, fmt.Sprintf("cannot be read: %v", unwrapPathErr(err)), fix, err)
	}
	check := func(st fs.FileInfo) error {
		switch {
		case !st.Mode().IsRegular():
			return bad(kindOf(st).Error())
		case st.Size() > max:
			return bad(fmt.Sprintf("is %d bytes; gsgen reads at most %d KiB here", st.Size(), max>>10))
		}
		return nil
	}
	st, err := os.Lstat(name)
	if err != nil {
		return nil, unreadable(err)
	}
	if err := check(st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, unreadable(err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, unreadable(err)
	}
	if err := check(st); err != nil {
		return nil, err
	}
	b, err := readAtMost(f, max)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, bad(fmt.Sprintf("grew past %d KiB while it was read", max>>10))
	case err != nil:
		return nil, unreadable(err)
	}
	return b, nil
}
