package generator

// The worker kind's dashboard panels and alerts.

func workerPanels(m *Model) []panel {
	return []panel{
		{"Worker runs per second, by worker", "short", [][2]string{
			{`sum by (worker) (rate(NS_worker_runs_total[5m]))`, "{{worker}} succeeded"},
			{`sum by (worker) (rate(NS_worker_run_failures_total[5m]))`, "{{worker}} failed"}}},
		{"Worker run time, 99th percentile, by worker", "s", [][2]string{
			{`histogram_quantile(0.99, sum by (le, worker) (rate(NS_worker_run_duration_seconds_bucket[5m])))`, "{{worker}}"}}},
		// The fleet's last success is the latest of its replicas'.
		{"Time since a worker last succeeded, by worker", "s", [][2]string{
			{`time() - max by (worker) (NS_worker_last_success_timestamp_seconds)`, "{{worker}}"},
			{`2 * max by (worker) (NS_worker_period_seconds)`, "{{worker}} alert (two periods)"}}},
	}
}

func workerAlerts(m *Model) []alert {
	// Three in an hour, as for the cleaners: one failed run is retried
	// at the next interval anyway.
	return []alert{{"WorkerFailing", `sum by (worker) (increase(NS_worker_run_failures_total[1h])) > 3`, "0m", "warning",
		"A worker of NAME keeps failing: its runs end in an error, a panic or their timeout (its log says which)."},
		// Two periods: one late run is a slow one, two missed ones are a
		// worker that no replica runs (the lease stuck, every run failing).
		{"WorkerNotSucceeding", `time() - max by (worker) (NS_worker_last_success_timestamp_seconds) > 2 * max by (worker) (NS_worker_period_seconds)`, "0m", "warning",
			"A worker of NAME has not succeeded in any replica for two of its periods: its runs fail, or no replica holds its lease (the lease holders panel says which)."}}
}
