//go:build windows || !cgo

package sqlschema

import (
	"errors"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	pgquery "github.com/wasilibs/go-pgquery"
	"github.com/wasilibs/go-pgquery/parser"
)

// parseSQL parses with PostgreSQL's own parser compiled to WebAssembly, as
// sqlc does without cgo: the same trees as sqlparse_cgo.go.
func parseSQL(sql string) (*pg_query.ParseResult, error) {
	tree, err := pgquery.Parse(sql)
	var pe *parser.Error
	if errors.As(err, &pe) {
		return nil, &sqlSyntaxError{msg: pe.Message, pos: pe.Cursorpos}
	}
	return tree, err
}
