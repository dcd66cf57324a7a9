package model

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/internal/golit"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/sqlschema"
)

// taskCheckInterval is how often an idle asynq processor looks for work.
// asynq's default (1 s) makes an idle Stop()+Shutdown() cost up to ~1.3 s
// on every deploy; 100 ms brings it to ~60 ms (measured, facts.md).
var taskCheckInterval = 100 * time.Millisecond

var (
	identRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	keyRE   = regexp.MustCompile(`^[a-z][a-z0-9_]*(, ?[a-z][a-z0-9_]*)*$`)
)

// goName turns "order-events" into "OrderEvents".
func goName(name string) string { return golit.Name(name) }

func snake(name string) string { return strings.ReplaceAll(name, "-", "_") }

func envPrefix(kind, name string) string {
	return kind + "_" + strings.ToUpper(snake(name)) + "_"
}

// testInsert is the INSERT a cleaner's test stores a row with, its
// timestamp column set from $1: empty for a table of the user's, whose
// required columns gsgen does not know.
func testInsert(table, column string) string {
	t, ok := answers.OwnTableNamed(table)
	if !ok {
		return ""
	}
	return fmt.Sprintf("INSERT INTO %s (%s, %s) VALUES (%s, $1)", table, t.TestColumns, column, t.TestValues)
}

// schema reads the tables of the service: gsgen's own migrations, for the
// components it has, then the user's, through the SQL of gsgen's the model
// was given (OwnSQL.ServiceSchema).
func (m *Model) schema() (sqlschema.Schema, error) {
	return m.ownSQL.ServiceSchema(m.Components, m.userSQL)
}

// topicRE is Kafka's topic alphabet. The length (at most 249) is checked
// apart: a {1,249} repeat compiles to thousands of states on every start.
var topicRE = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

func validateTopic(field, topic string) error {
	if !topicRE.MatchString(topic) || len(topic) > 249 || topic == "." || topic == ".." {
		return &problem.InputError{Field: field, Msg: problem.Quote(topic) + " is not a valid Kafka topic name", Fix: "use letters, digits, '.', '_' and '-' (at most 249)"}
	}
	return nil
}

// maxInstanceName is the longest name of a consumer, cleaner or worker.
const maxInstanceName = 40

func validateInstanceName(field, name string, seen map[string]bool) error {
	switch {
	case len(name) > maxInstanceName:
		return &problem.InputError{Field: field, Msg: fmt.Sprintf("%s is %d characters long", problem.Quote(name), len(name)),
			Fix: fmt.Sprintf("use a name of at most %d characters (it names files, Go identifiers and environment variables)", maxInstanceName)}
	case !nameRE.MatchString(name):
		return &problem.InputError{Field: field, Msg: problem.Quote(name) + " is not a valid name", Fix: fmt.Sprintf("use lower-case letters, digits and '-', starting with a letter, at most %d characters, e.g. order-events", maxInstanceName)}
	}
	if seen[name] {
		return &problem.InputError{Field: field, Msg: problem.Quote(name) + " is used twice", Fix: "give each instance its own name"}
	}
	seen[name] = true
	return nil
}

// CleanerTarget is what a new cleaner of the service m is offered: the first
// table of its schema (gsgen's, then the user's in migration order) that has
// a timestamp column and that none of m's cleaners cleans yet, with the
// column a cleaner of it compares (TimestampColumnOf). ok is false when
// every such table has a cleaner.
func (m *Model) CleanerTarget() (table, column string, ok bool) {
	schema, err := m.schema()
	if err != nil {
		return "", "", false
	}
	var order []*sqlschema.Table
	for _, gt := range answers.OwnTables {
		if t := schema[gt.Name]; t != nil {
			order = append(order, t)
		}
	}
	var users []*sqlschema.Table
	for name, t := range schema {
		if _, own := answers.OwnTableNamed(name); !own {
			users = append(users, t)
		}
	}
	slices.SortFunc(users, func(a, b *sqlschema.Table) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.Name, b.Name))
	})
	for _, t := range append(order, users...) {
		cleaned := slices.ContainsFunc(m.Cleaners, func(c CleanerJob) bool { return c.Table == t.Name })
		if col := m.TimestampColumnOf(t.Name); col != "" && !cleaned {
			return t.Name, col, true
		}
	}
	return "", "", false
}

// TimestampColumnOf is the column a cleaner of table compares: the one
// gsgen's own cleaner of it uses, else the table's first timestamp column;
// "" when the service has no such table, or it has no timestamp column.
func (m *Model) TimestampColumnOf(table string) string {
	if t, ok := answers.OwnTableNamed(table); ok {
		return t.Expires
	}
	schema, err := m.schema()
	if err != nil || schema[table] == nil {
		return ""
	}
	for _, c := range schema[table].Columns {
		if c.IsTimestamp() {
			return c.Name
		}
	}
	return ""
}
