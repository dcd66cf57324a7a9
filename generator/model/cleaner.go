package model

import "time"

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
