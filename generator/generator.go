// Package generator turns answers into a service: answers → validated Model →
// FilePlan (which template becomes which path, and who owns it) → Rendered
// files in memory → Changes written atomically. No step reaches back into an
// earlier one, and nothing touches the disk before every file has rendered.
package generator

import (
	"slices"
	"strings"
)

// Generate runs the pipeline up to the bytes: it validates the answers
// (defaults already applied), plans the files and renders them in memory.
func Generate(a Answers) (*Model, Rendered, error) {
	m, err := NewModel(a)
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
		if files, err = withSQLCOutput(files); err != nil {
			return nil, nil, err
		}
	}
	return m, files, nil
}

// withSQLCOutput adds what sqlc generates from the rendered sqlc.yaml,
// migrations and queries: the internal/db package, owned by gsgen. sqlc marks
// its files itself.
func withSQLCOutput(files Rendered) (Rendered, error) {
	in := map[string][]byte{}
	for _, f := range files {
		in[f.Path] = f.Content
	}
	out, err := GenerateSQLC(in)
	if err != nil {
		return nil, err
	}
	for _, p := range sortedKeys(out) {
		files = append(files, RenderedFile{PlannedFile: PlannedFile{Path: p, Owner: OwnedByGsgen, NoMarker: true}, Content: out[p]})
	}
	slices.SortFunc(files, func(a, b RenderedFile) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}
