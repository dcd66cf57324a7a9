package generator

// The cleaner kind's dashboard panels and alerts.

func cleanerPanels(m *Model) []panel {
	return []panel{
		{"Rows deleted per second, by cleaner", "short", [][2]string{
			{`sum by (cleaner) (rate(NS_cleaner_rows_deleted_total[5m]))`, "{{cleaner}}"}}},
		{"Cleaner runs failed, by cleaner", "short", [][2]string{
			{`sum by (cleaner) (increase(NS_cleaner_run_failures_total[1h]))`, "{{cleaner}}"}}},
	}
}

func cleanerAlerts(m *Model) []alert {
	return []alert{{"CleanerFailing", `sum by (cleaner) (increase(NS_cleaner_run_failures_total[1h])) > 3`, "0m", "warning",
		"A cleaner of NAME keeps failing: its table grows."}}
}
