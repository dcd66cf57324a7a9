package lab

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/textdiff"
)

// editedFiles names the files the lab's mistake is in, for its README.
func (l Lab) editedFiles() string {
	var files []string
	for _, e := range l.Edits {
		if f := "`" + e.File + "`"; !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	if len(files) == 1 {
		return files[0]
	}
	return strings.Join(files[:len(files)-1], ", ") + " and " + files[len(files)-1]
}

// Reset puts the lab in dir back to its planted state: every file the lab
// wrote gets the bytes it was written with, in one journaled write; files
// the participant added are left, and the marker keeps the hints shown.
// It returns the paths it restored.
func Reset(dir string) (Lab, []string, error) {
	d, err := openLab(dir, false)
	if err != nil {
		return Lab{}, nil, err
	}
	defer d.Close()
	l, _, _, err := openMarker(d, dir)
	if err != nil {
		return l, nil, err
	}
	files, err := l.planted()
	if err != nil {
		return l, nil, err
	}
	restored, err := d.Restore(files.Files())
	return l, restored, err
}

// Skip marks the lab in dir as given up on, so that its solution may be
// shown before all its hints were.
func Skip(dir string) (Lab, error) {
	d, err := openLab(dir, false)
	if err != nil {
		return Lab{}, err
	}
	defer d.Close()
	l, m, onDisk, err := openMarker(d, dir)
	if err != nil || m.Skipped {
		return l, err
	}
	m.Skipped = true
	data, err := markerBytes(m)
	if err != nil {
		return l, err
	}
	return l, d.ReplaceFile(MarkerFile, onDisk, data)
}

// Solution is the fix of the lab in dir, as a unified diff from the planted
// files to the fixed ones. It is refused until every hint was shown or the
// lab was skipped: a workshop's participants get there by the hints.
func Solution(dir string) (Lab, string, error) {
	d, err := openLab(dir, true)
	if err != nil {
		return Lab{}, "", err
	}
	defer d.Close()
	l, m, _, err := openMarker(d, dir)
	if err != nil {
		return l, "", err
	}
	if m.HintsShown < len(l.Hints) && !m.Skipped {
		return l, "", &problem.InputError{Field: "lab solution", Msg: fmt.Sprintf("lab %d's solution comes after its hints, and %d of %d were shown", l.Number, m.HintsShown, len(l.Hints)),
			Fix: "gsgen lab hint for the next one, or gsgen lab skip to give up on this lab"}
	}
	files, err := l.planted()
	if err != nil {
		return l, "", err
	}
	// The fix is the planted files with each edit undone, file by file.
	var b strings.Builder
	done := map[string]bool{}
	for _, e := range l.Edits {
		if done[e.File] {
			continue
		}
		done[e.File] = true
		planted := files[fileIndex(files, e.File)].Content
		fixed := planted
		for _, edit := range l.Edits {
			if edit.File == e.File {
				if fixed, err = edit.Reversed().ApplyTo(fixed); err != nil {
					return l, "", err
				}
			}
		}
		b.WriteString(textdiff.Unified("a/"+e.File, "b/"+e.File, planted, fixed))
	}
	return l, b.String(), nil
}
