package generator

// The asynq kind's dashboard panels and alerts.

func asynqPanels(m *Model) []panel {
	return []panel{
		// Read from Redis: every pod reports the same queues.
		{"asynq tasks, by queue and state", "short", [][2]string{
			{`max by (queue, state) (NS_asynq_tasks)`, "{{queue}} {{state}}"}}},
		{"asynq oldest pending task, by queue", "s", [][2]string{
			{`max by (queue) (NS_asynq_queue_latency_seconds)`, "{{queue}}"}}},
		{"asynq tasks processed and failed per second", "short", [][2]string{
			{`max by (queue) (rate(NS_asynq_tasks_processed_total[5m]))`, "{{queue}} processed"},
			{`max by (queue) (rate(NS_asynq_tasks_failed_total[5m]))`, "{{queue}} failed"}}},
	}
}

func asynqAlerts(m *Model) []alert {
	return []alert{{"AsynqQueueBacklog", `max by (queue) (NS_asynq_queue_latency_seconds) > 300`, "5m", "warning",
		"A task in an asynq queue of NAME has waited over 5 minutes: too few workers, or none."}}
}
