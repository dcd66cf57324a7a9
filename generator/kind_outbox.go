package generator

// The outbox kind's dashboard panels and alerts.

func outboxPanels(m *Model) []panel {
	return []panel{
		{"Outbox events published per second", "short", [][2]string{
			{`sum(rate(NS_outbox_events_published_total[5m]))`, "published"},
			{`sum(rate(NS_outbox_events_refused_total[5m]))`, "refused by Kafka"}}},
		// The backlog is the table's, the same in every pod: max, not sum.
		{"Outbox backlog", "short", [][2]string{
			{`max(NS_outbox_pending_events)`, "pending"},
			{`max(NS_outbox_parked_events)`, "parked"}}},
		{"Oldest pending outbox event", "s", [][2]string{
			{`max(NS_outbox_oldest_pending_age_seconds)`, "age"}}},
		{"Outbox looks failed as a whole (Kafka or PostgreSQL down)", "short", [][2]string{
			{`sum(increase(NS_outbox_batch_failures_total[5m]))`, "failed looks"}}},
		{"Outbox batch time, 99th percentile", "s", [][2]string{
			{`histogram_quantile(0.99, sum by (le) (rate(NS_outbox_batch_duration_seconds_bucket[5m])))`, "p99"}}},
	}
}

func outboxAlerts(m *Model) []alert {
	return []alert{
		{"OutboxStalled", `max(NS_outbox_oldest_pending_age_seconds) > 300`, "5m", "critical",
			"An outbox event of NAME has waited over 5 minutes: the relay is not publishing (Kafka down, a relay stuck, events held behind a parked one)."},
		{"OutboxParkedEvents", `max(NS_outbox_parked_events) > 0`, "1m", "warning",
			"NAME has parked outbox events: Kafka refused them for good. Their aggregates wait until they are released (README.md, When Kafka refuses an event)."},
	}
}
