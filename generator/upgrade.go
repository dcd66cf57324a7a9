package generator

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/generator/textdiff"
)

// Upgrade is what gsgen upgrade does to a service: the changes, the
// conflicts among them, what migrating gsgen.yaml changed, and the gsgen
// version that wrote the service.
type Upgrade struct {
	Model     *model.Model
	Changes   servicedir.Changes
	From      string   // the gsgen version that wrote the service; "" when it recorded none
	Notes     []string // what migrating gsgen.yaml changed
	Conflicts []FileConflict
	labels    textdiff.Labels // of the conflict markers
}

// FileConflict is a file whose three-way merge conflicts, and where.
type FileConflict struct {
	Path  string
	Hunks []textdiff.Conflict
}

// ConflictError is an upgrade that conflicts, run without markers: nothing
// is written.
type ConflictError struct{ Files []FileConflict }

func (e *ConflictError) Error() string {
	hunks := 0
	for _, f := range e.Files {
		hunks += len(f.Hunks)
	}
	return fmt.Sprintf("%s in %s (listed above), where your edits and gsgen's changes meet, so nothing was written: run gsgen upgrade --conflicts=markers to write them into the files and resolve them there, or undo your edits of those lines and run gsgen upgrade again",
		plural(hunks, "conflict"), plural(len(e.Files), "file"))
}

// plural is "1 file", "2 files".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Upgrade renders the service for answers a (its gsgen.yaml, migrated, with
// defaults applied) with this gsgen and brings each file to it:
//   - a file the user did not edit since gsgen wrote it (its hash is the
//     lock's) gets gsgen's new version, whoever owns it;
//   - an edited file whose gsgen version did not change is kept as it is;
//   - any other edited file is merged three ways (Merge3): base what gsgen
//     wrote last (gsgen.base), ours the file on disk, theirs the new
//     version. Without a base (a service written before gsgen.base) every
//     difference is a conflict: never a silent overwrite;
//   - a conflict stops the upgrade with a *ConflictError and nothing
//     written, unless markers: then the file is written with diff3 markers;
//   - a file gsgen no longer writes is deleted if the user never edited it,
//     else kept and listed;
//   - go.mod and go.sum are merged as on every run, and a file of the
//     user's that gsgen did not write is never touched.
func (s *Service) Upgrade(a answers.Answers, notes []string, markers bool) (*Upgrade, error) {
	u := &Upgrade{Notes: notes}
	if s.Base != nil {
		u.From = s.Base.Version
	}
	if semver.Compare(u.From, Version) > 0 {
		return nil, &problem.InputError{Field: BaseFile, Msg: fmt.Sprintf("the service was written by gsgen %s, newer than this one (%s): upgrading would take back what the newer gsgen changed", u.From, Version),
			Fix: "use gsgen " + u.From + " or newer (go install github.com/gsgen-dev/gsgen/cmd/gsgen@latest)"}
	}
	// A CI workflow the user deleted or replaced stays so, as in regen.
	a, ciNote, err := s.keepWorkflowChoice(a)
	if err != nil {
		return nil, err
	}
	if ciNote != "" {
		u.Notes = append(u.Notes, ciNote)
	}
	m, files, err := GenerateWith(a, s.UserSQL)
	if err != nil {
		return nil, err
	}
	u.Model = m
	u.labels = textdiff.Labels{Ours: "yours", Base: "gsgen " + cmp.Or(u.From, "(older)") + ", as it wrote the file", Theirs: "gsgen " + Version}
	planned := map[string]bool{}
	for _, f := range files {
		planned[f.Path] = true
		c, err := s.upgradeFile(u, f, markers)
		if err != nil {
			return nil, err
		}
		u.Changes = append(u.Changes, c)
	}
	// Files of the last run that this gsgen no longer writes.
	for _, p := range slices.Sorted(maps.Keys(s.Lock)) {
		if planned[p] {
			continue
		}
		now, err := s.dir.Read(p)
		if err != nil {
			return nil, err
		}
		if !now.Exists {
			continue
		}
		c := servicedir.Change{File: servicedir.File{Path: p, Owner: s.Lock[p].Owner, Content: now.Content}, OnDisk: now.Content, Compared: true}
		if servicedir.Hash(now.Content) == s.Lock[p].Hash {
			c.Action = servicedir.Delete
		} else {
			c.Action, c.Note = servicedir.Leave, "edited, and gsgen no longer writes it: kept; adapt or delete it"
		}
		u.Changes = append(u.Changes, c)
	}
	s.record(u.Changes)
	if len(u.Conflicts) > 0 && !markers {
		return u, &ConflictError{Files: u.Conflicts}
	}
	return u, nil
}

// upgradeFile decides what upgrade does to one file gsgen writes (see
// Upgrade), merging it when the user and gsgen both changed it.
func (s *Service) upgradeFile(u *Upgrade, f render.RenderedFile, markers bool) (servicedir.Change, error) {
	now, err := s.dir.Read(f.Path)
	if err != nil {
		return servicedir.Change{}, err
	}
	disk := now.Content
	entry, known := s.Lock[f.Path]
	c := servicedir.Change{File: f.File(), OnDisk: disk, Compared: true}
	switch {
	case !now.Exists && f.Owner == render.OwnedByUser && known:
		c.Action = servicedir.Skip // the user deleted a file of theirs: respect that
	case !now.Exists:
		c.Action = servicedir.Create
	case f.Merge != nil:
		if c.Content, err = f.Merge(disk, f.Content); err != nil {
			return servicedir.Change{}, err
		}
		c.Action = servicedir.SameOr(disk, c.Content, servicedir.Overwrite)
	case bytes.Equal(disk, f.Content):
		c.Action = servicedir.Identical
	case !servicedir.InLock(f.File()):
		c.Action = servicedir.Overwrite // gsgen.yaml, the lock and the base: gsgen's records
	case !known && f.Owner == render.OwnedByUser:
		c.Action, c.Note = servicedir.Keep, "yours, and gsgen did not write it: not touched"
	case known && servicedir.Hash(disk) == entry.Hash:
		c.Action = servicedir.Overwrite // not edited since gsgen wrote it
		if f.Owner == render.OwnedByUser {
			c.Note = "yours, unedited: gsgen's new version"
		}
	case known && servicedir.Hash(f.Content) == entry.Hash:
		c.Action, c.Note = servicedir.Keep, "your edit kept: gsgen's version of the file did not change"
	default:
		var base []byte
		if known {
			base, _ = s.Base.Of(entry)
		}
		r := textdiff.Merge3(base, disk, f.Content, u.labels)
		c.Unmerged = f.Content
		if n := len(r.Conflicts); n > 0 {
			u.Conflicts = append(u.Conflicts, FileConflict{Path: f.Path, Hunks: r.Conflicts})
			c.Note = fmt.Sprintf("CONFLICT: %s, listed below", plural(n, "hunk"))
			if markers {
				c.Note = fmt.Sprintf("CONFLICT: %s marked; the service does not build until you resolve them", plural(n, "hunk"))
			}
		} else {
			c.Note = "merged: your edits and gsgen's changes"
		}
		c.Content = r.Merged
		c.Action = servicedir.SameOr(disk, r.Merged, servicedir.Overwrite)
	}
	return c, nil
}

// ConflictList lists each conflicting file and hunk with its markers, as
// --conflicts=markers would write them, for the user to read.
func (u *Upgrade) ConflictList() string {
	var b strings.Builder
	for _, f := range u.Conflicts {
		for _, h := range f.Hunks {
			fmt.Fprintf(&b, "conflict  %s %s\n%s", f.Path, h.Where(), h.Markers(u.labels))
		}
	}
	return b.String()
}
