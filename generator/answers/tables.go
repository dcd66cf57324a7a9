package answers

import (
	"slices"
	"time"
)

// OwnTable is a table gsgen's own migrations define: its default cleaner
// is part of the answers, the rest is what the model's cleaners of it use.
type OwnTable struct {
	Name    string
	From    Component // the component whose migration creates it
	Key     string    // the key column(s) a cleaner's keyed subquery uses
	Cleaner string    // the name of its default cleaner
	Expires string    // the timestamp column its default cleaner compares
	Note    string    // how long its rows must be kept, if that matters
	// Retention is the default of its cleaners; zero takes DefaultRetention.
	Retention time.Duration
	// TestColumns and TestValues fill the table's required columns in a
	// cleaner's test; gen_random_uuid keeps the rows' keys apart.
	TestColumns, TestValues string
}

// OwnTables lists gsgen's own tables in the order of their migrations.
var OwnTables = []OwnTable{
	{Name: "outbox_event", From: Outbox, Key: "id", Cleaner: "outbox-dispatched", Expires: "dispatched_at",
		TestColumns: "aggregate_id, topic, payload", TestValues: "'test', 'test', ''::bytea"},
	// Event ids repeat across consumers, so only the whole primary key picks one row.
	{Name: "processed_event", From: Kafka, Key: "consumer, event_id", Cleaner: "processed-events", Expires: "processed_at",
		Note:        "keep rows longer than Kafka keeps a topic's messages and a group's offsets (7 days each by default), or an event read again is handled again",
		Retention:   ProcessedEventRetention,
		TestColumns: "consumer, event_id", TestValues: "'test', gen_random_uuid()::text"},
}

// OwnTableNamed returns the one of OwnTables called table.
func OwnTableNamed(table string) (OwnTable, bool) {
	i := slices.IndexFunc(OwnTables, func(t OwnTable) bool { return t.Name == table })
	if i < 0 {
		return OwnTable{}, false
	}
	return OwnTables[i], true
}

// NewCleaner is a cleaner a service with answers a can start from, before
// its table is chosen: the last of gsgen's tables the service has
// (outbox_event when it has none), with the timestamp column gsgen's
// cleaner compares.
func NewCleaner(a Answers, name string) CleanerAnswers {
	t := OwnTables[0]
	for _, gt := range slices.Backward(OwnTables) {
		if slices.Contains(a.Components, string(gt.From)) {
			t = gt
			break
		}
	}
	return CleanerAnswers{Name: name, Table: t.Name, Column: t.Expires}
}

// TimestampColumn is the column gsgen's cleaner of table compares, or
// column for a table that is not gsgen's.
func TimestampColumn(table, column string) string {
	if t, ok := OwnTableNamed(table); ok {
		return t.Expires
	}
	return column
}

// DefaultCleaner is the cleaner gsgen adds for one of its tables.
func (t OwnTable) DefaultCleaner() CleanerAnswers {
	return CleanerAnswers{Name: t.Cleaner, Table: t.Name, Column: t.Expires}
}
