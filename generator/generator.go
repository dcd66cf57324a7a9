// Package generator turns answers into a service: answers → validated Model →
// FilePlan (which template becomes which path, and who owns it) → Rendered
// files in memory → Changes written atomically. No step reaches back into an
// earlier one, and nothing touches the disk before every file has rendered.
package generator

import (
	"maps"
	"slices"
	"strings"
)

// Generate runs the pipeline up to the bytes for a new service: it validates
// the answers (defaults already applied), plans the files and renders them in
// memory, with sqlc's output and the lock file.
func Generate(a Answers) (*Model, Rendered, error) { return GenerateWith(a, nil) }

// GenerateWith is Generate for an existing service whose user added SQL of
// their own (db/migrations and db/queries files, by path): sqlc reads it with
// gsgen's, and cleaners may target the tables it creates.
func GenerateWith(a Answers, userSQL map[string][]byte) (*Model, Rendered, error) {
	m, err := newModel(a, userSQL)
	if err != nil {
		return nil, nil, err
	}
	plan, err := Plan(m)
	if err != nil {
		return nil, nil, err
	}
	files, err := Render(m, plan)
	if err != nil {
		return nil, nil, err
	}
	if m.UsesPostgres {
		if files, err = withSQLCOutput(files, userSQL); err != nil {
			return nil, nil, err
		}
	}
	lock := lockOf(files)
	files = append(files, RenderedFile{PlannedFile: PlannedFile{Path: LockFile, Owner: OwnedByGsgen, NoMarker: true}, Content: lock.Bytes()})
	slices.SortFunc(files, func(a, b RenderedFile) int { return strings.Compare(a.Path, b.Path) })
	return m, files, nil
}

// withSQLCOutput adds what sqlc generates from the rendered sqlc.yaml,
// migrations and queries, and the user's own: the internal/db package, owned
// by gsgen. sqlc marks its files itself.
func withSQLCOutput(files Rendered, userSQL map[string][]byte) (Rendered, error) {
	in := maps.Clone(userSQL)
	if in == nil {
		in = map[string][]byte{}
	}
	for _, f := range files {
		in[f.Path] = f.Content
	}
	out, err := GenerateSQLC(in)
	if err != nil {
		if len(userSQL) > 0 {
			// gsgen's own queries are checked by its tests: with the user's SQL
			// beside them, an error is most likely in theirs.
			return nil, &InputError{Field: "sqlc", Msg: err.Error(), Fix: "fix the SQL it names in db/migrations or db/queries, then re-run"}
		}
		return nil, err
	}
	for _, p := range sortedKeys(out) {
		files = append(files, RenderedFile{PlannedFile: PlannedFile{Path: p, Owner: OwnedByGsgen, NoMarker: true}, Content: out[p]})
	}
	return files, nil
}
