package generator

// The http kind's dashboard panels and alerts.

func httpPanels(m *Model) []panel {
	return []panel{
		{"HTTP requests per second, by route and code", "reqps", [][2]string{
			{`sum by (route, code) (rate(NS_http_request_duration_seconds_count[5m]))`, "{{route}} {{code}}"}}},
		{"HTTP latency, 99th percentile, by route", "s", [][2]string{
			{`histogram_quantile(0.99, sum by (le, route) (rate(NS_http_request_duration_seconds_bucket[5m])))`, "{{route}}"}}},
	}
}

func httpAlerts(m *Model) []alert {
	return []alert{{"HTTPErrors",
		`sum(rate(NS_http_request_duration_seconds_count{code=~"5.."}[5m])) / sum(rate(NS_http_request_duration_seconds_count[5m])) > 0.05`,
		"10m", "warning", "More than 5% of the HTTP requests to NAME fail with a 5xx."}}
}
