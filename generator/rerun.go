package generator

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/generator/textdiff"
)

// HandEditError is a re-run that would overwrite files gsgen owns which
// were edited by hand since gsgen wrote them. Nothing is written.
type HandEditError struct {
	problem.InputError
	Paths []string
	Diffs string // a unified diff of each hand edit
}

func (e *HandEditError) Unwrap() error { return &e.InputError }

// Regenerate renders the service for the answers a (defaults applied) and
// compares it with the files on disk:
//   - files gsgen owns are rewritten, or deleted when no longer planned
//     (a removed component), unless the user edited them by hand since gsgen
//     wrote them (their bytes no longer match gsgen.lock): then it returns a
//     *HandEditError with the diff, unless force;
//   - files the user owns are created when new, never touched when present,
//     not brought back when the user deleted them, and left in place when
//     their component is removed;
//   - go.mod and go.sum are merged, keeping the user's own requirements;
//   - the CI workflow is left out when the user deleted it or has one of
//     their own (keepWorkflowChoice), and gsgen.yaml records ci: none.
func (s *Service) Regenerate(a answers.Answers, force bool) (*model.Model, servicedir.Changes, error) {
	a, ciNote, err := s.keepWorkflowChoice(a)
	if err != nil {
		return nil, nil, err
	}
	m, files, err := GenerateWith(a, s.UserSQL)
	if err != nil {
		return nil, nil, err
	}
	if ciNote != "" {
		m.Warn(ciNote)
	}
	// What gsgen wrote last time, if the current gsgen still renders it the
	// same: then the diff of a hand edit shows exactly the edit.
	var previous map[string][]byte
	if _, old, err := GenerateWith(s.Answers, s.UserSQL); err == nil {
		previous = map[string][]byte{}
		for _, f := range old {
			previous[f.Path] = f.Content
		}
	}

	var changes servicedir.Changes
	var edited []string
	var diffs strings.Builder
	planned := map[string]bool{}
	handEdit := func(path string, onDisk []byte, against []byte) {
		edited = append(edited, path)
		rendered := against
		if old, ok := s.Base.Of(s.Lock[path]); ok {
			against = old
		} else if old, ok := previous[path]; ok && servicedir.Hash(old) == s.Lock[path].Hash {
			against = old
		}
		diffs.WriteString(textdiff.Unified("a/"+path+" (as gsgen wrote it)", "b/"+path+" (on disk)", against, onDisk))
		if rendered != nil {
			diffs.WriteString(s.mergeOffer(path, onDisk, rendered))
		}
	}
	for _, f := range files {
		planned[f.Path] = true
		now, err := s.dir.Read(f.Path)
		if err != nil {
			return nil, nil, err
		}
		onDisk, missing := now.Content, !now.Exists
		entry, known := s.Lock[f.Path]
		c := servicedir.Change{File: f.File(), OnDisk: onDisk, Compared: true}
		switch {
		case missing && f.Owner == render.OwnedByUser && known:
			c.Action = servicedir.Skip // the user deleted a file of theirs: respect that
		case missing:
			c.Action = servicedir.Create
		case f.Owner == render.OwnedByUser:
			c.Action = servicedir.Keep
			if w := olderHandler(f, onDisk); w != "" {
				m.Warn(w)
			}
		case f.Merge != nil:
			if c.Content, err = f.Merge(onDisk, f.Content); err != nil {
				return nil, nil, err
			}
			c.Action = servicedir.SameOr(onDisk, c.Content, servicedir.Overwrite)
		case bytes.Equal(onDisk, f.Content):
			c.Action = servicedir.Identical
		default:
			c.Action = servicedir.Overwrite
			if known && entry.Owner == render.OwnedByGsgen && servicedir.Hash(onDisk) != entry.Hash && f.Path != servicedir.LockFile {
				handEdit(f.Path, onDisk, f.Content)
				c.HandEdited = true
			}
		}
		changes = append(changes, c)
	}
	// Files of the last run that this one no longer plans.
	for _, p := range slices.Sorted(maps.Keys(s.Lock)) {
		if planned[p] {
			continue
		}
		now, err := s.dir.Read(p)
		if err != nil {
			return nil, nil, err
		}
		if !now.Exists {
			continue
		}
		onDisk := now.Content
		c := servicedir.Change{File: servicedir.File{Path: p, Owner: s.Lock[p].Owner, Content: onDisk}, OnDisk: onDisk, Compared: true}
		switch {
		case s.Lock[p].Owner == render.OwnedByUser:
			c.Action = servicedir.Leave
		case p == model.CIWorkflowPath && servicedir.Hash(onDisk) != s.Lock[p].Hash:
			// ci: none with a workflow edited by hand: the edits make it the
			// user's CI, which ci: none leaves alone.
			c.Action = servicedir.Leave
		default:
			c.Action = servicedir.Delete
			if servicedir.Hash(onDisk) != s.Lock[p].Hash {
				handEdit(p, onDisk, nil)
				c.HandEdited = true
			}
		}
		changes = append(changes, c)
	}
	s.record(changes)
	if len(edited) > 0 && !force {
		fix := "run gsgen upgrade to merge your edits with gsgen's new version (the diff above says how each merges), move the change into a file you own (gsgen never overwrites those), or pass --force to overwrite it"
		if slices.Contains(edited, model.CIWorkflowPath) {
			fix += "; to keep your " + model.CIWorkflowPath + ", set ci: none in gsgen.yaml"
		}
		return nil, nil, &HandEditError{
			InputError: problem.InputError{Field: problem.ListShort(edited, 8),
				Msg: fmt.Sprintf("edited by hand since gsgen wrote %s", map[bool]string{true: "it", false: "them"}[len(edited) == 1]),
				Fix: fix},
			Paths: edited,
			Diffs: diffs.String(),
		}
	}
	return m, changes, nil
}

// olderHandler warns about a consumer handler of the user's written by a
// gsgen before batched consumers: its Handle takes no transaction, so the
// service no longer builds until the user moves its body into the new
// signature. The file is the user's, so gsgen only says so.
func olderHandler(f render.RenderedFile, onDisk []byte) string {
	c, ok := f.Item.(model.Consumer)
	if !ok || !strings.HasSuffix(f.Template, "_handler.go.user.tmpl") || bytes.Contains(onDisk, []byte("pgx.Tx")) {
		return ""
	}
	return fmt.Sprintf("%s: its Handle takes no pgx.Tx: consumer %s now handles messages in batches and calls Handle(ctx, tx pgx.Tx, msg) inside the batch's transaction, so the service does not build until you move the handler's body into that signature (gsgen's README: A service made by an older gsgen)", f.Path, c.Name)
}

// mergeOffer says what gsgen upgrade's three-way merge would make of a hand
// edit regen refuses to overwrite: regen and upgrade share the merge, and
// regen shows its result instead of only refusing.
func (s *Service) mergeOffer(path string, onDisk, rendered []byte) string {
	base, ok := s.Base.Of(s.Lock[path])
	if !ok {
		return fmt.Sprintf("# %s: gsgen has no record of what it wrote (a service from before gsgen.base), so gsgen upgrade lists every difference as a conflict\n", path)
	}
	r := textdiff.Merge3(base, onDisk, rendered, textdiff.Labels{Ours: "yours", Base: "gsgen, as it wrote the file", Theirs: "gsgen " + Version})
	switch {
	case len(r.Conflicts) > 0:
		var where []string
		for _, h := range r.Conflicts {
			where = append(where, h.Where())
		}
		return fmt.Sprintf("# %s: your edit and gsgen's change conflict at %s: gsgen upgrade lists them (--conflicts=markers writes them to resolve)\n", path, strings.Join(where, ", "))
	case bytes.Equal(r.Merged, onDisk):
		return fmt.Sprintf("# %s: gsgen's version did not change: gsgen upgrade keeps your edit as it is\n", path)
	}
	return fmt.Sprintf("# %s: gsgen upgrade merges your edit with gsgen's new version cleanly, changing the file so:\n%s", path,
		textdiff.Unified("a/"+path+" (on disk)", "b/"+path+" (merged)", onDisk, r.Merged))
}
