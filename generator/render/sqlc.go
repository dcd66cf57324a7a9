package render

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/sqlc"
	"github.com/gsgen-dev/gsgen/generator/sqlschema"
)

// Service renders every file of plan: with sqlc's output for a service
// that uses PostgreSQL (userSQL is the SQL of the user's own, by path).
func Service(m *model.Model, plan FilePlan, userSQL map[string][]byte) (Rendered, error) {
	if !m.UsesPostgres {
		return Render(m, plan)
	}
	return renderBesideSQLC(m, plan, userSQL)
}

// renderBesideSQLC renders sqlc's inputs first, then the other files while
// what sqlc makes of the inputs is produced beside them: for gsgen's own SQL
// from templates/sqlc (proven byte-identical to sqlc's by
// TestOwnSQLCOutputIsSQLCs; no child process, no WebAssembly parser without
// cgo), with SQL of the user's by the sqlc child, which takes about as long
// as the rendering.
func renderBesideSQLC(m *model.Model, plan FilePlan, userSQL map[string][]byte) (Rendered, error) {
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
			return nil, &problem.InputError{Field: "sqlc", Msg: err.Error(), Fix: "fix the SQL it names in db/migrations or db/queries, then re-run"}
		}
		return nil, err
	}
	for _, p := range slices.Sorted(maps.Keys(out)) {
		files = append(files, RenderedFile{PlannedFile: PlannedFile{Path: p, Owner: OwnedByGsgen, NoMarker: true}, Content: out[p]})
	}
	return files, nil
}

// ownSQLCOutput renders what sqlc writes for gsgen's own SQL: db.go and
// models.go, and one <name>.sql.go for each db/queries/<name>.sql among
// inputs, from templates/sqlc.
func ownSQLCOutput(m *model.Model, inputs Rendered) (Rendered, error) {
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

// CheckMigrationVersions refuses a migration of the user's that has the
// version (the number its name starts with) of one of gsgen's for this
// service: goose applies one migration per version and stops at two, so
// every `migrate up`, and with it every new pod, would fail. A newer gsgen
// adds migrations of its own, so a clash can appear at regen of a service
// that had none.
func CheckMigrationVersions(m *model.Model, plan FilePlan, userSQL map[string][]byte) error {
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
		return &problem.InputError{Field: p,
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
