package generator

// The kafka kind's dashboard panels and alerts.

func consumerPanels(m *Model) []panel {
	return []panel{
		{"Messages handled per second, by consumer", "short", [][2]string{
			{`sum by (consumer) (rate(NS_consumer_messages_handled_total[5m]))`, "{{consumer}}"}}},
		{"Handler failures and dead letters, by consumer", "short", [][2]string{
			{`sum by (consumer) (increase(NS_consumer_handler_failures_total[5m]))`, "{{consumer}} failed calls"},
			{`sum by (consumer) (increase(NS_consumer_messages_dead_lettered_total[5m]))`, "{{consumer}} dead-lettered"}}},
		{"Consumer lag, by consumer", "short", [][2]string{
			{`max by (consumer) (NS_consumer_lag)`, "{{consumer}}"}}},
		{"Handler time, 99th percentile, by consumer", "s", [][2]string{
			{`histogram_quantile(0.99, sum by (le, consumer) (rate(NS_consumer_handler_duration_seconds_bucket[5m])))`, "{{consumer}}"}}},
	}
}

func consumerAlerts(m *Model) []alert {
	return []alert{
		{"ConsumerDeadLetters", `sum by (consumer) (increase(NS_consumer_messages_dead_lettered_total[15m])) > 0`, "0m", "warning",
			"A consumer of NAME dead-lettered messages: read them in its dead-letter topic (README.md, What happens to a bad message)."},
		{"ConsumerLagGrowing", `max by (consumer) (NS_consumer_lag) > 1000 and max by (consumer) (deriv(NS_consumer_lag[15m])) > 0`, "15m", "warning",
			"A consumer of NAME falls further behind: its handler is slow or failing, or it has too few partitions for the load."},
	}
}
