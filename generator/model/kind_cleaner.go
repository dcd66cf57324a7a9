package model

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/sqlschema"
)

// The cleaner kind: named cleaners deleting expired rows in small
// batches, Run loops drained with the workers.

// CleanerJob is one named cleaner deleting expired rows in batches.
type CleanerJob struct {
	Name      string // "outbox-dispatched"
	GoName    string // "OutboxDispatched"
	FileName  string // "outbox_dispatched"
	EnvPrefix string // "CLEANER_OUTBOX_DISPATCHED_"
	Table     string
	Column    string // timestamp column compared with now() - Retention
	Key       string // key column of the keyed subquery
	Retention time.Duration
	Interval  time.Duration
	BatchSize int
	QueryName string // sqlc query: "DeleteExpiredOutboxDispatched"
	// TestInsert stores one row with Column set from $1, for the cleaner's
	// test; empty for a table of the user's.
	TestInsert string
	// RetentionNote says how long the table's rows must be kept, for a
	// comment beside the retention; empty when any retention will do.
	RetentionNote string
	Lease         *Lease // fleet scope: one replica deletes; nil for replica scope
}

var cleanerKind = &Kind{Name: Cleaner, Chosen: true, What: "cleaners deleting expired rows in small batches", Dirs: []string{"cleaner"},
	addFlags: cleanerFlags, fromFlags: cleanerFromFlags, AddExample: cleanerAddExample,
	ask: cleanersAsk, addQuestions: cleanerQuestions, newInstance: newCleaner,
	NameHelp:  "names its Run loop, query and env vars (CLEANER_<NAME>_...); lower case, digits and '-'",
	Menu:      "periodic delete of expired rows in small batches (needs outbox or kafka)",
	Needs:     []Need{NeedsPostgres},
	Instances: answers.InstancesOf("cleaner", "cleaners", func(a *answers.Answers) *[]answers.CleanerAnswers { return &a.Cleaners }),
	defaults:  cleanerDefaults,
	on:        func(m *Model) bool { return m.Cleaner },
	items:     func(m *Model) []Instance { return instances(m.Cleaners) },
	env:       cleanerEnv, settings: cleanerSettings, panels: cleanerPanels, alerts: cleanerAlerts,
	pool: cleanerPool, names: cleanerNames, periodic: cleanerPeriodic}

// defaultCleanInterval is the pause between a cleaner's runs.
var defaultCleanInterval = time.Minute

// cleanerDefaults fills the cleaners' answers not given, and gives the
// cleaner component with none listed a cleaner of each of gsgen's own
// tables the components bring (kafka's defaults, earlier in Kinds, list
// the component when kafka needs it). The cleaners listed without the
// component get theirs too, for the model to refuse.
func cleanerDefaults(a *answers.Answers) {
	if a.HasComponent(Cleaner) && len(a.Cleaners) == 0 {
		a.Cleaners = defaultCleaners(a)
	}
	for i := range a.Cleaners {
		c := &a.Cleaners[i]
		answers.SetDefault(&c.Retention, answers.Duration(defaultRetentionOf(c.Table)))
		answers.SetDefault(&c.Interval, answers.Duration(defaultCleanInterval))
		answers.SetDefault(&c.BatchSize, answers.DefaultCleanerBatch)
		setLeaseDefaults(&c.Scope, &c.LeaseTTL)
	}
}

// defaultCleaners is a cleaner for each of gsgen's own tables that the
// components bring: dispatched outbox rows, processed events.
func defaultCleaners(a *answers.Answers) []answers.CleanerAnswers {
	var out []answers.CleanerAnswers
	for _, t := range answers.OwnTables {
		if a.HasComponent(t.From) {
			out = append(out, t.DefaultCleaner())
		}
	}
	return out
}

// defaultRetentionOf is the retention a cleaner of table gets when the
// answers give none: the table's own if it is one of gsgen's with one.
func defaultRetentionOf(table string) time.Duration {
	if t, ok := answers.OwnTableNamed(table); ok && t.Retention != 0 {
		return t.Retention
	}
	return answers.DefaultRetention
}

func cleanerPeriodic(m *Model) []Periodic {
	var out []Periodic
	for _, c := range m.Cleaners {
		// No timeout of its own: a cleaner's delete is cut at shutdown.
		out = append(out, Periodic{Part: "cleaner " + c.Name, Schedule: "every " + problem.Seconds(c.Interval), Scope: ScopeOf(c.Lease), Lease: c.Lease})
	}
	return out
}

func cleanerNames(m *Model) []derived {
	var names []derived
	for i, c := range m.Cleaners {
		from := fmt.Sprintf("cleaners[%d].name", i)
		names = append(names, derived{"Go name", c.GoName + "Cleaner", from, c.Name}, derived{"SQL query", c.QueryName, from, c.Name})
	}
	return names
}

// cleanerPool is a connection each: a cleaner's batch is one transaction.
func cleanerPool(m *Model) []poolShare { return connectionEach("cleaner", instances(m.Cleaners)) }

func init() {
	// Set here, not in cleanerKind's literal: cleanerDerive reads gsgen's
	// migrations of every component, which are listed off Kinds, and Go
	// refuses a variable whose value refers back to itself.
	cleanerKind.derive = cleanerDerive
}

func cleanerEnv(m *Model) []EnvVar {
	var env []EnvVar
	for i, c := range m.Cleaners {
		from := fmt.Sprintf("cleaners[%d].", i)
		env = append(env,
			durationVar(c.EnvPrefix+"RETENTION", c.Retention, from+"retention"),
			durationVar(c.EnvPrefix+"INTERVAL", c.Interval, from+"interval"),
			countVar(c.EnvPrefix+"BATCH_SIZE", c.BatchSize, from+"batch_size"),
		)
		env = append(env, leaseEnv(c.EnvPrefix, c.Lease, from)...)
	}
	return env
}

func cleanerSettings(a answers.Answers) []setting {
	var s []setting
	for i, c := range a.Cleaners {
		s = append(s,
			duration(fmt.Sprintf("cleaners[%d].retention", i), c.Retention, maxRetention),
			duration(fmt.Sprintf("cleaners[%d].interval", i), c.Interval, maxRetention),
			count(fmt.Sprintf("cleaners[%d].batch_size", i), c.BatchSize, limits.CleanerBatchSize))
		s = append(s, leaseSetting(fmt.Sprintf("cleaners[%d].lease_ttl", i), c.LeaseTTL)...)
	}
	return s
}

func cleanerPanels(m *Model) []Panel {
	return []Panel{
		{"Rows deleted per second, by cleaner", "short", [][2]string{
			{`sum by (cleaner) (rate(NS_cleaner_rows_deleted_total[5m]))`, "{{cleaner}}"}}},
		{"Cleaner runs failed, by cleaner", "short", [][2]string{
			{`sum by (cleaner) (increase(NS_cleaner_run_failures_total[1h]))`, "{{cleaner}}"}}},
	}
}

func cleanerAlerts(m *Model) []Alert {
	return []Alert{{"CleanerFailing", `sum by (cleaner) (increase(NS_cleaner_run_failures_total[1h])) > 3`, "0m", "warning",
		"A cleaner of NAME keeps failing: its table grows."}}
}

// cleanerDerive checks each cleaner against the service's schema (gsgen's
// migrations and the user's, read by PostgreSQL's parser): its table must
// exist, its column be a timestamp, its key be columns of the table. A
// column no index begins with is allowed, with a warning.
func cleanerDerive(m *Model, a answers.Answers) error {
	cleaners := a.Cleaners
	if len(cleaners) == 0 {
		return nil
	}
	schema, err := m.schema()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, c := range cleaners {
		field := fmt.Sprintf("cleaners[%d]", i)
		bad := func(key, msg, fix string) error {
			return &problem.InputError{Field: field + "." + key, Msg: msg, Fix: fix}
		}
		if err := validateInstanceName(field+".name", c.Name, seen); err != nil {
			return err
		}
		for _, id := range []struct{ key, v string }{{"table", c.Table}, {"column", c.Column}} {
			if !identRE.MatchString(id.v) {
				return bad(id.key, problem.Quote(id.v)+" is not a plain SQL identifier", "use lower-case letters, digits and '_', starting with a letter")
			}
		}
		t := schema[c.Table]
		if t == nil {
			return m.missingTable(field, c.Table)
		}
		col, ok := t.Column(c.Column)
		switch {
		case !ok:
			return bad("column", fmt.Sprintf("table %s (%s) has no column %s", c.Table, t.From, problem.Quote(c.Column)), "name one of its timestamp columns: "+problem.ListShort(t.TimestampColumns(), 8))
		case !col.IsTimestamp():
			return bad("column", fmt.Sprintf("%s.%s is %s, not a timestamp: the cleaner deletes rows whose %s is older than the retention", c.Table, c.Column, col.TypeName(), c.Column),
				"name a timestamp or timestamptz column: "+problem.ListShort(t.TimestampColumns(), 8))
		}
		keys := t.PrimaryKey
		switch {
		case c.Key != "":
			if !keyRE.MatchString(c.Key) {
				return bad("key", problem.Quote(c.Key)+" is not a column name or a comma-separated list of them", "e.g. id, or consumer, event_id")
			}
			keys = strings.Split(strings.ReplaceAll(c.Key, " ", ""), ",")
		case len(keys) == 0:
			if _, hasID := t.Column("id"); !hasID {
				return bad("key", fmt.Sprintf("table %s has no primary key, and no id column", c.Table), "give the column(s) that pick one row: --key, or key: in gsgen.yaml")
			}
			keys = []string{"id"}
		}
		for _, k := range keys {
			if _, ok := t.Column(k); !ok {
				return bad("key", fmt.Sprintf("table %s has no column %s", c.Table, problem.Quote(k)), "give the column(s) of its primary key or of a unique index")
			}
		}
		if c.Key != "" && !picksOneRow(t, keys) {
			whole := t.PrimaryKey
			if len(whole) == 0 {
				whole = t.Unique[0]
			}
			return bad("key", fmt.Sprintf("%s does not pick one row of %s, whose key is (%s): the keyed DELETE would also remove the rows that share it, still inside their retention",
				problem.Quote(c.Key), c.Table, strings.Join(whole, ", ")),
				fmt.Sprintf("give every column of its primary key or of a unique index (--key %s), or leave the key out: the primary key is the default", strings.Join(whole, ",")))
		}
		if !t.Covers(c.Column) {
			m.warnings = append(m.warnings, fmt.Sprintf("%s.column: no index of %s begins with %s, so each run of cleaner %s reads the whole table; add one in a migration: CREATE INDEX ON %s (%s);",
				field, c.Table, c.Column, c.Name, c.Table, c.Column))
		}
		lease, err := scopeOf(field, c.Scope, c.LeaseTTL, "cleaner:"+c.Name)
		if err != nil {
			return err
		}
		m.Cleaners = append(m.Cleaners, CleanerJob{Name: c.Name, GoName: goName(c.Name), FileName: snake(c.Name),
			EnvPrefix: envPrefix("CLEANER", c.Name), Table: c.Table, Column: c.Column, Key: strings.Join(keys, ", "), RetentionNote: retentionNote(c.Table),
			Retention: time.Duration(c.Retention), Interval: time.Duration(c.Interval), BatchSize: c.BatchSize,
			QueryName: "DeleteExpired" + goName(c.Name), TestInsert: testInsert(c.Table, c.Column), Lease: lease})
	}
	return nil
}

// picksOneRow reports whether keys hold every column of the table's primary
// key or of one of its unique constraints, so that a keyed DELETE of one key
// removes one row. A table with neither cannot be told: its key is taken.
func picksOneRow(t *sqlschema.Table, keys []string) bool {
	sets := append([][]string{t.PrimaryKey}, t.Unique...)
	if len(t.PrimaryKey) == 0 {
		sets = t.Unique
	}
	if len(sets) == 0 {
		return true
	}
	return slices.ContainsFunc(sets, func(set []string) bool {
		return len(set) > 0 && !slices.Contains(set, "") && !slices.ContainsFunc(set, func(col string) bool { return !slices.Contains(keys, col) })
	})
}

// missingTable explains a cleaner's table the schema does not have: one of
// gsgen's that comes with a component the service lacks, or none at all.
func (m *Model) missingTable(field, table string) error {
	for _, c := range AllComponents {
		if s, err := m.ownSQL.Schema([]Component{c}); err == nil && s[table] != nil {
			return &problem.InputError{Field: field + ".table", Msg: fmt.Sprintf("table %s comes with the %s component, which the service does not have", table, c),
				Fix: fmt.Sprintf("add %s, or clean a table of the service's own migrations", c)}
		}
	}
	return &problem.InputError{Field: field + ".table", Msg: "table " + problem.Quote(table) + " is not defined by this service's migrations",
		Fix: fmt.Sprintf("add a migration that creates it, e.g. db/migrations/0100_%s.sql, then re-run; gsgen's own tables are outbox_event (with outbox) and processed_event (with kafka)", table)}
}

// retentionNote is what a cleaner of table must respect, if anything.
func retentionNote(table string) string {
	t, _ := answers.OwnTableNamed(table)
	return t.Note
}

// cleanersAsk asks gsgen new for the name and retention of each cleaner the
// components bring (one per gsgen table).
func cleanersAsk(iv Interview, adding bool) error {
	a := iv.Answers()
	if adding || a.Cleaners != nil {
		return nil
	}
	a.Cleaners = iv.Defaults().Cleaners
	for i, c := range a.Cleaners {
		what := fmt.Sprintf("Cleaner of %s rows", c.Table)
		qs := []Question{
			{Field: fmt.Sprintf("cleaners[%d].name", i), Title: what + ": name", Def: c.Name,
				Help: fmt.Sprintf("deletes %s rows whose %s is older than the retention", c.Table, c.Column),
				Set:  func(a *answers.Answers, s string) error { a.Cleaners[i].Name = s; return nil }},
			{Field: fmt.Sprintf("cleaners[%d].retention", i), Title: what + ": retention", Def: c.Retention.String(),
				Help: "how long rows are kept, e.g. 168h for a week",
				Set:  func(a *answers.Answers, s string) error { return answers.ParseDuration(s, &a.Cleaners[i].Retention) }},
		}
		for _, q := range qs {
			if err := iv.Text(q); err != nil {
				return err
			}
		}
	}
	return nil
}

// cleanerQuestions are gsgen add's questions of the new cleaner i. The
// cleaner is first given the table of the service (as it was before the
// addition) that no cleaner cleans yet, which the table question offers;
// the column question offers that table's timestamp column.
func cleanerQuestions(iv Interview, i int, service *Model) []Question {
	if table, column, ok := service.CleanerTarget(); ok {
		iv.Answers().Cleaners[i].Table, iv.Answers().Cleaners[i].Column = table, column
	}
	c := iv.Defaults().Cleaners[i]
	return []Question{
		{Field: fmt.Sprintf("cleaners[%d].table", i), Title: "Table", Def: c.Table, Help: "the table to clean: gsgen's or one your migrations create",
			Set: func(a *answers.Answers, s string) error { a.Cleaners[i].Table = s; return nil }},
		{Field: fmt.Sprintf("cleaners[%d].column", i), Title: "Timestamp column", Help: "rows whose column is older than the retention are deleted",
			Offer: func() string {
				table := iv.Answers().Cleaners[i].Table
				return cmp.Or(service.TimestampColumnOf(table), answers.TimestampColumn(table, c.Column))
			},
			Set: func(a *answers.Answers, s string) error { a.Cleaners[i].Column = s; return nil }},
		{Field: fmt.Sprintf("cleaners[%d].retention", i), Title: "Retention", Def: c.Retention.String(), Help: "how long rows are kept, e.g. 168h for a week",
			Set: func(a *answers.Answers, s string) error { return answers.ParseDuration(s, &a.Cleaners[i].Retention) }},
	}
}

// newCleaner adds a cleaner with a table (the name is checked against one),
// which its questions then ask.
func newCleaner(a answers.Answers, name string) (answers.Answers, error) {
	return a.AddCleaner(answers.NewCleaner(a, name))
}

// cleanerAddExample is a whole gsgen add command of a cleaner.
const cleanerAddExample = "gsgen add cleaner expired-sessions --table sessions --retention 720h"

// cleanerFlags are gsgen add cleaner NAME's flags.
var cleanerFlags = []AddFlag{
	{Name: "table", Type: "string", Usage: "the table to clean; a migration in db/migrations must create it"},
	{Name: "column", Type: "string", Default: "created_at", Usage: "the timestamp column compared with now() - retention"},
	{Name: "key", Type: "string", Usage: "the key column(s) of the keyed delete (default: the table's primary key)"},
	{Name: "retention", Type: "duration", Positive: true, Usage: "delete rows older than this (default 168h; 336h on processed_event)"},
	intervalFlag, scopeFlag, leaseTTLFlag,
	{Name: "batch", Type: "int", Positive: true, Usage: "rows per DELETE (default 500)"},
}

func cleanerFromFlags(a answers.Answers, name string, f AddFlagValues) (answers.Answers, error) {
	if err := checkLeaseFlags(f); err != nil {
		return a, err
	}
	if f.String("table") == "" {
		return a, &AddUsageError{"add cleaner needs --table, e.g. " + cleanerAddExample}
	}
	return a.AddCleaner(answers.CleanerAnswers{Name: name, Table: f.String("table"), Column: f.String("column"), Key: f.String("key"),
		Retention: answers.Duration(f.Duration("retention")), Interval: answers.Duration(f.Duration("interval")), BatchSize: f.Int("batch"),
		Scope: f.String("scope"), LeaseTTL: answers.Duration(f.Duration("lease-ttl"))})
}
