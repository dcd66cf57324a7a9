// Package generator turns answers into a service: answers → validated Model →
// FilePlan (which template becomes which path, and who owns it) → Rendered
// files in memory → Changes written atomically. No step reaches back into an
// earlier one, and nothing touches the disk before every file has rendered.
//
// Each step is a package below this one, importing only packages of a
// lower layer (layers_test.go fails otherwise): answers (the spec a user
// gives, its defaults and edits, gsgen.yaml), model (what gsgen derives
// from the answers: the kinds, the ladder, the numbers), render (the plan,
// the templates, go.mod, sqlc's output and the check of the rendered Go) and
// servicedir (the bytes on disk: the directory, its lock and journal,
// gsgen.lock), with problem (the typed errors every step reports),
// textdiff, sqlc, sqlschema and textchart beneath them. This package
// orchestrates them: Generate, the service on disk (Service: regen, add,
// remove, upgrade) and what gsgen wrote (gsgen.base).
package generator

import (
	"slices"
	"strings"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/render"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// Generate runs the pipeline up to the bytes for a new service: it validates
// the answers (defaults already applied), plans the files and renders them in
// memory, with sqlc's output and the lock file.
func Generate(a answers.Answers) (*model.Model, render.Rendered, error) { return GenerateWith(a, nil) }

// GenerateWith is Generate for an existing service whose user added SQL of
// their own (db/migrations and db/queries files, by path): sqlc reads it with
// gsgen's, and cleaners may target the tables it creates.
func GenerateWith(a answers.Answers, userSQL map[string][]byte) (*model.Model, render.Rendered, error) {
	m, err := newModel(a, userSQL)
	if err != nil {
		return nil, nil, err
	}
	plan, err := render.Plan(m)
	if err != nil {
		return nil, nil, err
	}
	if err := render.CheckMigrationVersions(m, plan, userSQL); err != nil {
		return nil, nil, err
	}
	files, err := render.Service(m, plan, userSQL)
	if err != nil {
		return nil, nil, err
	}
	// The base, a gzip of every file gsgen owns, is the largest step left:
	// it is encoded beside the check of the rendered Go, a core each, and
	// dropped if a name is refused.
	lock := servicedir.LockOf(files.Files())
	encoded := make(chan []byte, 1)
	go func() { encoded <- EncodeBase(Version, lock, baseOf(files)) }()
	err = render.CheckGo(m, files)
	base := <-encoded
	if err != nil {
		return nil, nil, err
	}
	files = append(files,
		render.RenderedFile{PlannedFile: render.PlannedFile{Path: servicedir.LockFile, Owner: render.OwnedByGsgen, NoMarker: true}, Content: lock.Bytes()},
		render.RenderedFile{PlannedFile: render.PlannedFile{Path: BaseFile, Owner: render.OwnedByGsgen, NoMarker: true}, Content: base})
	slices.SortFunc(files, func(a, b render.RenderedFile) int { return strings.Compare(a.Path, b.Path) })
	return m, files, nil
}
