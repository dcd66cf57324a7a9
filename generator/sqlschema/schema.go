// Package sqlschema reads the tables a service's migrations create, with
// PostgreSQL's own parser (the one sqlc uses): enough to check a cleaner's
// table, column and key. It knows nothing of components or answers.
package sqlschema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Schema is the tables a service's migrations create, as PostgreSQL's own
// parser reads them (the one sqlc uses): enough to check a cleaner's table,
// Column and key, and whether an index helps it.
type Schema map[string]*Table

// Table is one table: its columns in order, its primary key and the
// columns of each index on it (unique constraints included).
type Table struct {
	Name       string
	From       string // the migration that creates it
	Columns    []Column
	PrimaryKey []string
	Indexes    [][]string
	Unique     [][]string // the columns of each unique constraint and unique index
}

// Column is a column and the last part of its type's name: "timestamptz"
// for timestamp with time zone, "int8" for bigint.
type Column struct {
	Name, Type string
	Array      bool
}

// Column is the column of t named name, if t has one.
func (t *Table) Column(name string) (Column, bool) {
	i := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == name })
	if i < 0 {
		return Column{}, false
	}
	return t.Columns[i], true
}

// Covers reports whether an index (or the primary key) begins with col:
// without one, every run of a cleaner on col reads the whole table.
func (t *Table) Covers(col string) bool {
	if len(t.PrimaryKey) > 0 && t.PrimaryKey[0] == col {
		return true
	}
	return slices.ContainsFunc(t.Indexes, func(cols []string) bool { return len(cols) > 0 && cols[0] == col })
}

// sqlSyntaxError is an error of PostgreSQL's parser: its message and the
// 1-based position in the text where it stopped.
type sqlSyntaxError struct {
	msg string
	pos int
}

func (e *sqlSyntaxError) Error() string { return e.msg }

// ReadSchema reads the migrations among files (path → SQL; others are
// ignored) in path order, applying what each statement does to the tables:
// CREATE TABLE, ALTER TABLE ADD/DROP COLUMN and ADD PRIMARY KEY/UNIQUE,
// CREATE INDEX, DROP TABLE and the renames. Like sqlc, it reads only the up
// part of a migration and skips golang-migrate's .down.sql files. SQL the
// parser refuses is an *problem.InputError naming the file and line.
func ReadSchema(files map[string][]byte) (Schema, error) {
	s := Schema{}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if !IsMigration(p) {
			continue
		}
		sql := upMigration(string(files[p]))
		tree, err := parseSQL(sql)
		if err != nil {
			field := p
			if se, ok := err.(*sqlSyntaxError); ok && se.pos > 0 {
				field = fmt.Sprintf("%s:%d", p, 1+strings.Count(sql[:min(se.pos-1, len(sql))], "\n"))
			}
			return nil, &problem.InputError{Field: field, Msg: "PostgreSQL cannot parse it: " + problem.Shorten(err.Error()), Fix: "fix the migration (sqlc and the database would refuse it too)"}
		}
		for _, st := range tree.GetStmts() {
			s.apply(p, st.GetStmt())
		}
	}
	return s, nil
}

// IsMigration reports whether the service file p is an up migration.
func IsMigration(p string) bool {
	return strings.HasPrefix(p, "db/migrations/") && strings.HasSuffix(p, ".sql") && !strings.HasSuffix(p, ".down.sql")
}

// upMigration is the part of a migration sqlc reads: up to the first
// rollback marker (goose, sql-migrate, tern, dbmate), with psql
// meta-commands (\restrict and the like) blanked. Lines keep their numbers.
func upMigration(sql string) string {
	var b strings.Builder
	for line := range strings.Lines(sql) {
		lower := strings.ToLower(line)
		if strings.HasPrefix(lower, "-- +goose down") || strings.HasPrefix(lower, "-- +migrate down") ||
			strings.HasPrefix(lower, "---- create above / drop below ----") || strings.HasPrefix(lower, "-- migrate:down") {
			break
		}
		if strings.HasPrefix(line, `\`) {
			line = "\n"
		}
		b.WriteString(line)
	}
	return b.String()
}

// apply changes s by one statement of the migration in file.
func (s Schema) apply(file string, n *pg_query.Node) {
	switch {
	case n.GetCreateStmt() != nil:
		c := n.GetCreateStmt()
		name := tableName(c.GetRelation())
		if name == "" || c.GetIfNotExists() && s[name] != nil {
			return
		}
		t := &Table{Name: name, From: file}
		for _, e := range c.GetTableElts() {
			t.addElement(e)
		}
		for _, con := range c.GetConstraints() {
			t.addConstraint(con.GetConstraint(), "")
		}
		s[name] = t
	case n.GetAlterTableStmt() != nil:
		a := n.GetAlterTableStmt()
		t := s[tableName(a.GetRelation())]
		if t == nil {
			return
		}
		for _, cmd := range a.GetCmds() {
			c := cmd.GetAlterTableCmd()
			switch c.GetSubtype() {
			case pg_query.AlterTableType_AT_AddColumn:
				t.addElement(c.GetDef())
			case pg_query.AlterTableType_AT_DropColumn:
				t.Columns = slices.DeleteFunc(t.Columns, func(col Column) bool { return col.Name == c.GetName() })
			case pg_query.AlterTableType_AT_AddConstraint:
				t.addConstraint(c.GetDef().GetConstraint(), "")
			}
		}
	case n.GetIndexStmt() != nil:
		ix := n.GetIndexStmt()
		if t := s[tableName(ix.GetRelation())]; t != nil {
			var cols []string
			for _, p := range ix.GetIndexParams() {
				cols = append(cols, p.GetIndexElem().GetName()) // "" for an expression
			}
			t.Indexes = append(t.Indexes, cols)
			if ix.GetUnique() && ix.GetWhereClause() == nil { // a partial index is unique only where it applies
				t.Unique = append(t.Unique, cols)
			}
		}
	case n.GetDropStmt() != nil:
		d := n.GetDropStmt()
		if d.GetRemoveType() == pg_query.ObjectType_OBJECT_TABLE {
			for _, o := range d.GetObjects() {
				if names := stringsOf(o.GetList().GetItems()); len(names) > 0 && (len(names) == 1 || names[0] == "public") {
					delete(s, names[len(names)-1])
				}
			}
		}
	case n.GetRenameStmt() != nil:
		r := n.GetRenameStmt()
		t := s[tableName(r.GetRelation())]
		switch {
		case t == nil:
		case r.GetRenameType() == pg_query.ObjectType_OBJECT_TABLE:
			delete(s, t.Name)
			t.Name = r.GetNewname()
			s[t.Name] = t
		case r.GetRenameType() == pg_query.ObjectType_OBJECT_COLUMN:
			t.renameColumn(r.GetSubname(), r.GetNewname())
		}
	}
}

// tableName is the name of a table in the default schema, "" for another
// schema: a cleaner's table is a plain name.
func tableName(r *pg_query.RangeVar) string {
	if r == nil || r.GetSchemaname() != "" && r.GetSchemaname() != "public" {
		return ""
	}
	return r.GetRelname()
}

func (t *Table) addElement(e *pg_query.Node) {
	switch {
	case e.GetColumnDef() != nil:
		c := e.GetColumnDef()
		names := stringsOf(c.GetTypeName().GetNames())
		col := Column{Name: c.GetColname(), Array: len(c.GetTypeName().GetArrayBounds()) > 0}
		if len(names) > 0 {
			col.Type = names[len(names)-1]
		}
		t.Columns = append(t.Columns, col)
		for _, con := range c.GetConstraints() {
			t.addConstraint(con.GetConstraint(), col.Name)
		}
	case e.GetConstraint() != nil:
		t.addConstraint(e.GetConstraint(), "")
	}
}

// addConstraint records a primary key or a unique constraint (which has an
// index); column is the column a column constraint is declared on.
func (t *Table) addConstraint(c *pg_query.Constraint, column string) {
	if c == nil {
		return
	}
	keys := stringsOf(c.GetKeys())
	if len(keys) == 0 && column != "" {
		keys = []string{column}
	}
	switch c.GetContype() {
	case pg_query.ConstrType_CONSTR_PRIMARY:
		t.PrimaryKey = keys
	case pg_query.ConstrType_CONSTR_UNIQUE:
		t.Indexes = append(t.Indexes, keys)
		t.Unique = append(t.Unique, keys)
	}
}

func (t *Table) renameColumn(from, to string) {
	for i := range t.Columns {
		if t.Columns[i].Name == from {
			t.Columns[i].Name = to
		}
	}
	for _, cols := range slices.Concat([][]string{t.PrimaryKey}, t.Indexes, t.Unique) {
		for i := range cols {
			if cols[i] == from {
				cols[i] = to
			}
		}
	}
}

func stringsOf(nodes []*pg_query.Node) []string {
	var out []string
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.GetSval())
		}
	}
	return out
}

// IsTimestamp reports whether a column's type is one a cleaner can compare
// with now() minus its retention.
func (c Column) IsTimestamp() bool {
	return !c.Array && (c.Type == "timestamptz" || c.Type == "timestamp")
}

// TypeName is the column's type as a message names it.
func (c Column) TypeName() string {
	if c.Array {
		return c.Type + "[]"
	}
	return c.Type
}

// TimestampColumns lists the columns a cleaner could use.
func (t *Table) TimestampColumns() []string {
	var out []string
	for _, c := range t.Columns {
		if c.IsTimestamp() {
			out = append(out, c.Name)
		}
	}
	if out == nil {
		return []string{"(none)"}
	}
	return out
}
