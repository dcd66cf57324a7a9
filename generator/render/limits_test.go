package render

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
)

// The limits gsgen checks are the ones the service's config.go enforces:
// one definition, written into the template.
func TestLimitsAreTheServicesOwn(t *testing.T) {
	a := answers.Answers{Name: "orders", Components: []string{"http", "outbox", "asynq", "cleaner"}}.WithDefaults()
	files, err := renderService(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	limits := defaultModel(t, a).Limits
	var config string
	for _, f := range files {
		if f.Path == "internal/config/config.go" {
			config = string(f.Content)
		}
	}
	for env, limit := range map[string]int{"OUTBOX_BATCH_SIZE": limits.OutboxBatchSize, "OUTBOX_RELAYS": limits.OutboxRelays, "CLEANER_OUTBOX_DISPATCHED_BATCH_SIZE": limits.CleanerBatchSize,
		"ASYNQ_CONCURRENCY": limits.AsynqConcurrency, "DATABASE_MAX_CONNS": limits.DatabaseMaxConns, "REDIS_DB": limits.RedisDB} {
		if !regexp.MustCompile(`"` + env + `", [a-zA-Z0-9]+, ` + strconv.Itoa(limit) + `\)`).MatchString(config) {
			t.Errorf("config.go does not bound %s by %d", env, limit)
		}
	}
	at := func(edit func(*answers.Answers)) error { b := a; edit(&b); _, err := NewModel(b, nil); return err }
	if err := at(func(b *answers.Answers) { b.Outbox.BatchSize = limits.OutboxBatchSize }); err != nil {
		t.Errorf("the limit itself is refused: %v", err)
	}
	if err := at(func(b *answers.Answers) { b.Outbox.BatchSize = limits.OutboxBatchSize + 1 }); err == nil {
		t.Error("one over the limit is accepted")
	}
}

// A processed_event cleaner deletes by the whole primary key: the same event
// id is recorded once per consumer, and may have expired for one only.
func TestProcessedEventCleanerUsesTheWholeKey(t *testing.T) {
	got := string(generatedFile(t, "db/queries/cleaners.sql", "kafka", "cleaner"))
	if !strings.Contains(got, "WHERE (consumer, event_id) IN (\n    SELECT consumer, event_id FROM processed_event") {
		t.Errorf("cleaners.sql:\n%s", got)
	}
}
