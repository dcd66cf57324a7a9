//go:build !windows && cgo

package sqlschema

import (
	"errors"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
)

// parseSQL parses with PostgreSQL's own parser, linked through cgo as sqlc
// links it. Without cgo, sqlparse_nocgo.go gives the same trees.
func parseSQL(sql string) (*pg_query.ParseResult, error) {
	tree, err := pg_query.Parse(sql)
	var pe *parser.Error
	if errors.As(err, &pe) {
		return nil, &sqlSyntaxError{msg: pe.Message, pos: pe.Cursorpos}
	}
	return tree, err
}
