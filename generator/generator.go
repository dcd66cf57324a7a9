// Package generator turns answers into a service: answers → validated Model →
// FilePlan (which template becomes which path, and who owns it) → Rendered
// files in memory → Changes written atomically. No step reaches back into an
// earlier one, and nothing touches the disk before every file has rendered.
//
// The pieces that know nothing of the answers are packages below this one,
// each importing only packages of a lower layer (layers_test.go fails
// otherwise): problem (the typed errors every step reports), textdiff (the
// line diff and the three-way merge), sqlc (sqlc over a service's SQL),
// sqlschema (the tables a service's migrations create), textchart (terminal
// charts and tables) and servicedir (the bytes on disk: the directory, its
// lock and journal, gsgen.lock). The answers, model and
// render steps are still files of this package, which orchestrates them all.
package generator

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	gmodel "github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/generator/sqlc"
	"github.com/gsgen-dev/gsgen/generator/sqlschema"
)

// Generate runs the pipeline up to the bytes for a new service: it validates
// the answers (defaults already applied), plans the files and renders them in
// memory, with sqlc's output and the lock file.
func Generate(a Answers) (*gmodel.Model, Rendered, error) { return GenerateWith(a, nil) }

// GenerateWith is Generate for an existing service whose user added SQL of
// their own (db/migrations and db/queries files, by path): sqlc reads it with
// gsgen's, and cleaners may target the tables it creates.
func GenerateWith(a Answers, userSQL map[string][]byte) (*gmodel.Model, Rendered, error) {
	m, err := newModel(a, userSQL)
	if err != nil {
		return nil, nil, err
	}
	plan, err := Plan(m)
	if err != nil {
		return nil, nil, err
	}
	if err := migrationVersionsClash(m, plan, userSQL); err != nil {
		return nil, nil, err
	}
	var files Rendered
	if !m.UsesPostgres {
		if files, err = Render(m, plan); err != nil {
			return nil, nil, err
		}
	} else if files, err = renderBesideSQLC(m, plan, userSQL); err != nil {
		return nil, nil, err
	}
	// The base, a gzip of every file gsgen owns, is the largest step left:
	// it is encoded beside the check of the rendered Go, a core each, and
	// dropped if a name is refused.
	lock := servicedir.LockOf(files.Files())
	encoded := make(chan []byte, 1)
	go func() { encoded <- EncodeBase(Version, lock, baseOf(files)) }()
	err = checkRenderedGo(m, files)
	base := <-encoded
	if err != nil {
		return nil, nil, err
	}
	files = append(files,
		RenderedFile{PlannedFile: PlannedFile{Path: servicedir.LockFile, Owner: OwnedByGsgen, NoMarker: true}, Content: lock.Bytes()},
		RenderedFile{PlannedFile: PlannedFile{Path: BaseFile, Owner: OwnedByGsgen, NoMarker: true}, Content: base})
	slices.SortFunc(files, func(a, b RenderedFile) int { return strings.Compare(a.Path, b.Path) })
	return m, files, nil
}

// renderBesideSQLC renders sqlc's inputs first, then the other files while
// what sqlc makes of the inputs is produced beside them: for gsgen's own SQL
// from templates/sqlc (proven byte-identical to sqlc's by
// TestOwnSQLCOutputIsSQLCs; no child process, no WebAssembly parser without
// cgo), with SQL of the user's by the sqlc child, which takes about as long
// as the rendering.
func renderBesideSQLC(m *gmodel.Model, plan FilePlan, userSQL map[string][]byte) (Rendered, error) {
	inputs, err := render(m, plan, func(f PlannedFile) bool { return sqlc.IsInput(f.Path) })
	if err != nil {
		return nil, err
	}
	db := func() (Rendered, error) { return ownSQLCOutput(m, inputs) }
	if len(userSQL) > 0 {
		db = func() (Rendered, error) { return sqlcOutput(inputs, userSQL) }
	}
	type result struct {
		files Rendered
		err   error
	}
	done := make(chan result, 1)
	go func() {
		files, err := db()
		done <- result{files, err}
	}()
	rest, err := render(m, plan, func(f PlannedFile) bool { return !sqlc.IsInput(f.Path) })
	out := <-done // always waited for: a sqlc child never outlives the call
	if err != nil {
		return nil, err // a template bug, reported before what sqlc made of its inputs
	}
	if out.err != nil {
		return nil, out.err
	}
	return slices.Concat(inputs, rest, out.files), nil
}

// sqlcOutput is what sqlc generates from the rendered sqlc.yaml, migrations
// and queries, and the user's own: the internal/db package, owned by gsgen.
// sqlc marks its files itself.
func sqlcOutput(inputs Rendered, userSQL map[string][]byte) (Rendered, error) {
	in := maps.Clone(userSQL)
	if in == nil {
		in = map[string][]byte{}
	}
	for _, f := range inputs {
		in[f.Path] = f.Content
	}
	var files Rendered
	out, err := sqlc.Generate(in)
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

// ownSQLCOutput renders what sqlc writes for gsgen's own SQL: db.go and
// models.go, and one <name>.sql.go for each db/queries/<name>.sql among
// inputs, from templates/sqlc.
func ownSQLCOutput(m *gmodel.Model, inputs Rendered) (Rendered, error) {
	root, err := parsed()
	if err != nil {
		return nil, err
	}
	outputs := []string{"db.go", "models.go"}
	for _, f := range inputs {
		if name, ok := strings.CutPrefix(f.Path, "db/queries/"); ok {
			outputs = append(outputs, strings.TrimSuffix(name, ".sql")+".sql.go")
		}
	}
	var out Rendered
	for _, name := range outputs {
		f := PlannedFile{Path: "internal/db/" + name, Template: "sqlc/internal/db/" + name + ".tmpl", Owner: OwnedByGsgen, NoMarker: true}
		if root.Lookup(f.Template) == nil {
			return nil, fmt.Errorf("no template renders sqlc's %s (for %s)", f.Path, name)
		}
		r, err := renderFile(root, m, f, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// migrationVersionsClash refuses a migration of the user's that has the
// version (the number its name starts with) of one of gsgen's for this
// service: goose applies one migration per version and stops at two, so
// every `migrate up`, and with it every new pod, would fail. A newer gsgen
// adds migrations of its own, so a clash can appear at regen of a service
// that had none.
func migrationVersionsClash(m *gmodel.Model, plan FilePlan, userSQL map[string][]byte) error {
	gsgens := map[int64]string{}
	for _, f := range plan {
		if v, ok := migrationVersion(f.Path); ok && f.Owner == OwnedByGsgen {
			gsgens[v] = f.Path
		}
	}
	for _, p := range slices.Sorted(maps.Keys(userSQL)) {
		v, ok := migrationVersion(p)
		if !ok || gsgens[v] == "" || gsgens[v] == p {
			continue
		}
		return &InputError{Field: p,
			Msg: fmt.Sprintf("has version %d, as gsgen's %s: goose applies one migration per version, so `%s migrate up` would fail", v, gsgens[v], m.Name),
			Fix: fmt.Sprintf("renumber yours from 0100 up (gsgen numbers its own below 0100), e.g. db/migrations/0100_%s, then re-run; where yours ran already as version %d, also move its record there: UPDATE goose_db_version SET version_id = 100 WHERE version_id = %d (gsgen's %d is then applied by the next migrate up)",
				strings.TrimLeft(strings.TrimLeft(path.Base(p), "0123456789"), "_"), v, v, v)}
	}
	return nil
}

// migrationVersion is the version goose reads from a migration's name: the
// number before its first underscore.
func migrationVersion(p string) (int64, bool) {
	if !sqlschema.IsMigration(p) {
		return 0, false
	}
	num, _, ok := strings.Cut(path.Base(p), "_")
	v, err := strconv.ParseInt(num, 10, 64)
	return v, ok && err == nil
}
