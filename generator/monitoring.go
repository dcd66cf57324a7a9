package generator

import (
	"bytes"
	"encoding/json"
	"strings"

	"gopkg.in/yaml.v3"
)

// panel is one graph of the service's Grafana dashboard: a title, the
// PromQL queries it plots (each with its legend) and their unit.
type panel struct {
	title   string
	unit    string // a Grafana unit: reqps, s, short, bytes, percentunit
	queries [][2]string
}

// dashboardPanels lists the graphs of the service's dashboard, by part, for
// the parts the service has. "NS" in a query stands for the service's
// metrics namespace. Every query reads a metric the service exports:
// e2e's TestDashboardReadsExportedMetrics scrapes a running service and
// checks each name.
func (m *Model) dashboardPanels() []panel {
	var ps []panel
	if m.HTTP {
		ps = append(ps,
			panel{"HTTP requests per second, by route and code", "reqps", [][2]string{
				{`sum by (route, code) (rate(NS_http_request_duration_seconds_count[5m]))`, "{{route}} {{code}}"}}},
			panel{"HTTP latency, 99th percentile, by route", "s", [][2]string{
				{`histogram_quantile(0.99, sum by (le, route) (rate(NS_http_request_duration_seconds_bucket[5m])))`, "{{route}}"}}},
		)
	}
	if m.Outbox {
		ps = append(ps,
			panel{"Outbox events published per second", "short", [][2]string{
				{`sum(rate(NS_outbox_events_published_total[5m]))`, "published"},
				{`sum(rate(NS_outbox_events_refused_total[5m]))`, "refused by Kafka"}}},
			// The backlog is the table's, the same in every pod: max, not sum.
			panel{"Outbox backlog", "short", [][2]string{
				{`max(NS_outbox_pending_events)`, "pending"},
				{`max(NS_outbox_parked_events)`, "parked"}}},
			panel{"Oldest pending outbox event", "s", [][2]string{
				{`max(NS_outbox_oldest_pending_age_seconds)`, "age"}}},
			panel{"Outbox looks failed as a whole (Kafka or PostgreSQL down)", "short", [][2]string{
				{`sum(increase(NS_outbox_batch_failures_total[5m]))`, "failed looks"}}},
			panel{"Outbox batch time, 99th percentile", "s", [][2]string{
				{`histogram_quantile(0.99, sum by (le) (rate(NS_outbox_batch_duration_seconds_bucket[5m])))`, "p99"}}},
		)
	}
	if m.Kafka {
		ps = append(ps,
			panel{"Messages handled per second, by consumer", "short", [][2]string{
				{`sum by (consumer) (rate(NS_consumer_messages_handled_total[5m]))`, "{{consumer}}"}}},
			panel{"Handler failures and dead letters, by consumer", "short", [][2]string{
				{`sum by (consumer) (increase(NS_consumer_handler_failures_total[5m]))`, "{{consumer}} failed calls"},
				{`sum by (consumer) (increase(NS_consumer_messages_dead_lettered_total[5m]))`, "{{consumer}} dead-lettered"}}},
			panel{"Consumer lag, by consumer", "short", [][2]string{
				{`max by (consumer) (NS_consumer_lag)`, "{{consumer}}"}}},
			panel{"Handler time, 99th percentile, by consumer", "s", [][2]string{
				{`histogram_quantile(0.99, sum by (le, consumer) (rate(NS_consumer_handler_duration_seconds_bucket[5m])))`, "{{consumer}}"}}},
		)
	}
	if m.Cleaner {
		ps = append(ps,
			panel{"Rows deleted per second, by cleaner", "short", [][2]string{
				{`sum by (cleaner) (rate(NS_cleaner_rows_deleted_total[5m]))`, "{{cleaner}}"}}},
			panel{"Cleaner runs failed, by cleaner", "short", [][2]string{
				{`sum by (cleaner) (increase(NS_cleaner_run_failures_total[1h]))`, "{{cleaner}}"}}},
		)
	}
	if len(m.Workers) > 0 {
		ps = append(ps,
			panel{"Worker runs per second, by worker", "short", [][2]string{
				{`sum by (worker) (rate(NS_worker_runs_total[5m]))`, "{{worker}} succeeded"},
				{`sum by (worker) (rate(NS_worker_run_failures_total[5m]))`, "{{worker}} failed"}}},
			panel{"Worker run time, 99th percentile, by worker", "s", [][2]string{
				{`histogram_quantile(0.99, sum by (le, worker) (rate(NS_worker_run_duration_seconds_bucket[5m])))`, "{{worker}}"}}},
			// The fleet's last success is the latest of its replicas'.
			panel{"Time since a worker last succeeded, by worker", "s", [][2]string{
				{`time() - max by (worker) (NS_worker_last_success_timestamp_seconds)`, "{{worker}}"},
				{`2 * max by (worker) (NS_worker_period_seconds)`, "{{worker}} alert (two periods)"}}},
		)
	}
	if len(m.Leases()) > 0 {
		ps = append(ps,
			panel{"Lease holders, by lease (one each)", "short", [][2]string{
				{`sum by (lease) (NS_lease_held)`, "{{lease}}"}}},
		)
	}
	if m.Asynq {
		ps = append(ps,
			// Read from Redis: every pod reports the same queues.
			panel{"asynq tasks, by queue and state", "short", [][2]string{
				{`max by (queue, state) (NS_asynq_tasks)`, "{{queue}} {{state}}"}}},
			panel{"asynq oldest pending task, by queue", "s", [][2]string{
				{`max by (queue) (NS_asynq_queue_latency_seconds)`, "{{queue}}"}}},
			panel{"asynq tasks processed and failed per second", "short", [][2]string{
				{`max by (queue) (rate(NS_asynq_tasks_processed_total[5m]))`, "{{queue}} processed"},
				{`max by (queue) (rate(NS_asynq_tasks_failed_total[5m]))`, "{{queue}} failed"}}},
		)
	}
	ps = append(ps,
		panel{"Memory (RSS), by pod", "bytes", [][2]string{
			{`process_resident_memory_bytes{pod=~"NAME-.*"}`, "{{pod}}"}}},
		panel{"CPU, by pod", "percentunit", [][2]string{
			{`rate(process_cpu_seconds_total{pod=~"NAME-.*"}[5m])`, "{{pod}}"}}},
		panel{"Goroutines, by pod", "short", [][2]string{
			{`go_goroutines{pod=~"NAME-.*"}`, "{{pod}}"}}},
	)
	return ps
}

// DashboardQueries lists every PromQL query of the service's dashboard.
func (m *Model) DashboardQueries() []string {
	var out []string
	for _, p := range m.dashboardPanels() {
		for _, q := range p.queries {
			out = append(out, m.promQL(q[0]))
		}
	}
	return out
}

// promQL fills the service's names into a query.
func (m *Model) promQL(q string) string {
	return strings.NewReplacer("NS_", m.MetricsNamespace+"_", "NAME", m.Name).Replace(q)
}

// buildDashboard writes the service's Grafana dashboard: two graphs a row,
// on a Prometheus data source the viewer picks.
func buildDashboard(m *Model) ([]byte, error) {
	type (
		target struct {
			Expr         string `json:"expr"`
			LegendFormat string `json:"legendFormat"`
			RefID        string `json:"refId"`
		}
		ref struct {
			Type string `json:"type"`
			UID  string `json:"uid"`
		}
		gridPos struct {
			H int `json:"h"`
			W int `json:"w"`
			X int `json:"x"`
			Y int `json:"y"`
		}
		fieldConfig struct {
			Defaults struct {
				Unit string `json:"unit"`
			} `json:"defaults"`
		}
		graph struct {
			ID          int         `json:"id"`
			Type        string      `json:"type"`
			Title       string      `json:"title"`
			Datasource  ref         `json:"datasource"`
			GridPos     gridPos     `json:"gridPos"`
			FieldConfig fieldConfig `json:"fieldConfig"`
			Targets     []target    `json:"targets"`
		}
		variable struct {
			Name  string `json:"name"`
			Label string `json:"label"`
			Type  string `json:"type"`
			Query string `json:"query"`
		}
	)
	datasource := ref{"prometheus", "${datasource}"}
	var graphs []graph
	for i, p := range m.dashboardPanels() {
		g := graph{ID: i + 1, Type: "timeseries", Title: p.title, Datasource: datasource,
			GridPos: gridPos{H: 8, W: 12, X: 12 * (i % 2), Y: 8 * (i / 2)}}
		g.FieldConfig.Defaults.Unit = p.unit
		for j, q := range p.queries {
			g.Targets = append(g.Targets, target{m.promQL(q[0]), q[1], string(rune('A' + j))})
		}
		graphs = append(graphs, g)
	}
	dashboard := struct {
		Title         string `json:"title"`
		UID           string `json:"uid"`
		Description   string `json:"description"`
		SchemaVersion int    `json:"schemaVersion"`
		Refresh       string `json:"refresh"`
		Time          struct {
			From string `json:"from"`
			To   string `json:"to"`
		} `json:"time"`
		Templating struct {
			List []variable `json:"list"`
		} `json:"templating"`
		Panels []graph `json:"panels"`
	}{
		Title: m.Name, UID: m.Name, SchemaVersion: 39, Refresh: "30s", Panels: graphs,
		Description: GeneratedMarker + " The metrics of the " + m.Name + " service (README.md, Metrics).",
	}
	dashboard.Time.From, dashboard.Time.To = "now-6h", "now"
	dashboard.Templating.List = []variable{{"datasource", "Data source", "datasource", "prometheus"}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(dashboard); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// alert is one Prometheus alerting rule of the service.
type alert struct {
	name, expr, forDuration, severity, summary string
}

// alerts lists the service's alerting rules, for the parts it has. "NS"
// and "NAME" stand for its metrics namespace and its name.
func (m *Model) alerts() []alert {
	var as []alert
	if m.HTTP {
		as = append(as, alert{"HTTPErrors",
			`sum(rate(NS_http_request_duration_seconds_count{code=~"5.."}[5m])) / sum(rate(NS_http_request_duration_seconds_count[5m])) > 0.05`,
			"10m", "warning", "More than 5% of the HTTP requests to NAME fail with a 5xx."})
	}
	if m.Outbox {
		as = append(as,
			alert{"OutboxStalled", `max(NS_outbox_oldest_pending_age_seconds) > 300`, "5m", "critical",
				"An outbox event of NAME has waited over 5 minutes: the relay is not publishing (Kafka down, a relay stuck, events held behind a parked one)."},
			alert{"OutboxParkedEvents", `max(NS_outbox_parked_events) > 0`, "1m", "warning",
				"NAME has parked outbox events: Kafka refused them for good. Their aggregates wait until they are released (README.md, When Kafka refuses an event)."},
		)
	}
	if m.Kafka {
		as = append(as,
			alert{"ConsumerDeadLetters", `sum by (consumer) (increase(NS_consumer_messages_dead_lettered_total[15m])) > 0`, "0m", "warning",
				"A consumer of NAME dead-lettered messages: read them in its dead-letter topic (README.md, What happens to a bad message)."},
			alert{"ConsumerLagGrowing", `max by (consumer) (NS_consumer_lag) > 1000 and max by (consumer) (deriv(NS_consumer_lag[15m])) > 0`, "15m", "warning",
				"A consumer of NAME falls further behind: its handler is slow or failing, or it has too few partitions for the load."},
		)
	}
	if m.Cleaner {
		as = append(as, alert{"CleanerFailing", `sum by (cleaner) (increase(NS_cleaner_run_failures_total[1h])) > 3`, "0m", "warning",
			"A cleaner of NAME keeps failing: its table grows."})
	}
	if len(m.Workers) > 0 {
		// Three in an hour, as for the cleaners: one failed run is retried
		// at the next interval anyway.
		as = append(as, alert{"WorkerFailing", `sum by (worker) (increase(NS_worker_run_failures_total[1h])) > 3`, "0m", "warning",
			"A worker of NAME keeps failing: its runs end in an error, a panic or their timeout (its log says which)."},
			// Two periods: one late run is a slow one, two missed ones are a
			// worker that no replica runs (the lease stuck, every run failing).
			alert{"WorkerNotSucceeding", `time() - max by (worker) (NS_worker_last_success_timestamp_seconds) > 2 * max by (worker) (NS_worker_period_seconds)`, "0m", "warning",
				"A worker of NAME has not succeeded in any replica for two of its periods: its runs fail, or no replica holds its lease (the lease holders panel says which)."})
	}
	if len(m.Leases()) > 0 {
		as = append(as, alert{"LeaseNotHeld", `sum by (lease) (NS_lease_held) != 1`, "5m", "warning",
			"A lease of NAME has had no holder (or more than one) for 5 minutes: its periodic part runs nowhere; PostgreSQL may be unreachable from the pods."})
	}
	if m.Asynq {
		as = append(as, alert{"AsynqQueueBacklog", `max by (queue) (NS_asynq_queue_latency_seconds) > 300`, "5m", "warning",
			"A task in an asynq queue of NAME has waited over 5 minutes: too few workers, or none."})
	}
	// From kube-state-metrics, not from the service: a container that ended
	// with an error, after a failed shutdown (over its budget, a second
	// signal) or a crash. It sees a container restarted in its pod, not a
	// pod a rollout deleted; gsgen timeline reads that one's log.
	as = append(as, alert{"ExitedWithError",
		`max by (pod, container) (kube_pod_container_status_last_terminated_exitcode{container=~"NAME(-worker)?"}) > 0`, "0m", "warning",
		"A container of NAME exited with an error: a shutdown over its budget, or a crash. Read its log with kubectl logs --previous."})
	return as
}

// AlertQueries lists the PromQL of every alerting rule of the service.
func (m *Model) AlertQueries() []string {
	var out []string
	for _, a := range m.alerts() {
		out = append(out, m.promQL(a.expr))
	}
	return out
}

// buildRules writes the service's PrometheusRule.
func buildRules(m *Model) ([]byte, error) {
	type rule struct {
		Alert       string            `yaml:"alert"`
		Expr        string            `yaml:"expr"`
		For         string            `yaml:"for,omitempty"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	}
	var rules []rule
	for _, a := range m.alerts() {
		r := rule{Alert: goName(m.Name) + a.name, Expr: m.promQL(a.expr), Labels: map[string]string{"severity": a.severity},
			Annotations: map[string]string{"summary": m.promQL(a.summary)}}
		if a.forDuration != "0m" {
			r.For = a.forDuration
		}
		rules = append(rules, r)
	}
	type group struct {
		Name  string `yaml:"name"`
		Rules []rule `yaml:"rules"`
	}
	doc := struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name   string            `yaml:"name"`
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec struct {
			Groups []group `yaml:"groups"`
		} `yaml:"spec"`
	}{APIVersion: "monitoring.coreos.com/v1", Kind: "PrometheusRule"}
	doc.Metadata.Name = m.Name
	doc.Metadata.Labels = map[string]string{"app.kubernetes.io/name": m.Name}
	doc.Spec.Groups = []group{{m.Name, rules}}
	var b bytes.Buffer
	b.WriteString("# " + GeneratedMarker + "\n# The alerts of " + m.Name + ", on the metrics it serves at /metrics (README.md, Metrics).\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}
