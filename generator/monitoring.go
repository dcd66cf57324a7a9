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

// dashboardPanels lists the graphs of the service's dashboard: each kind's
// (Kind.panels) for the kinds the service has, then the pod's. "NS" in a query stands for the service's
// metrics namespace. Every query reads a metric the service exports:
// e2e's TestDashboardReadsExportedMetrics scrapes a running service and
// checks each name.
func dashboardPanels(m *Model) []panel {
	var ps []panel
	for _, k := range monitored(m) {
		if k.panels != nil {
			ps = append(ps, k.panels(m)...)
		}
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

// monitoredOrder is the order of the kinds' panels on the dashboard and of
// their alert rules, as earlier gsgens wrote them: a panel's id is its
// place, so these keep theirs, and a kind not listed (one added later, as
// grpc) comes after them in the kinds' order. lease stands for the leases'
// panel and alert, which are no one kind's: cleaners and workers share them.
var monitoredOrder = []Component{HTTP, Outbox, Kafka, Cleaner, Worker, leases.Name, Asynq}

// leases is the leases' pieces of the dashboard, the alert rules and the
// pool, there when a cleaner or a worker of the service runs under a lease.
var leases = &Kind{Name: "lease", on: func(m *Model) bool { return len(m.Leases()) > 0 },
	panels: leasePanels, alerts: leaseAlerts, pool: leasesPool}

// monitored lists the kinds whose panels and alerts the service shows, the
// leases' pieces among them, in monitoredOrder.
func monitored(m *Model) []*Kind { return m.placed(monitoredOrder, leases) }

func leasePanels(m *Model) []panel {
	return []panel{
		{"Lease holders, by lease (one each)", "short", [][2]string{
			{`sum by (lease) (NS_lease_held)`, "{{lease}}"}}},
	}
}

func leaseAlerts(m *Model) []alert {
	return []alert{{"LeaseNotHeld", `sum by (lease) (NS_lease_held) != 1`, "5m", "warning",
		"A lease of NAME has had no holder (or more than one) for 5 minutes: its periodic part runs nowhere; PostgreSQL may be unreachable from the pods."}}
}

// DashboardQueries lists every PromQL query of the service's dashboard.
func (m *Model) DashboardQueries() []string {
	var out []string
	for _, p := range dashboardPanels(m) {
		for _, q := range p.queries {
			out = append(out, promQL(m, q[0]))
		}
	}
	return out
}

// promQL fills the service's names into a query.
func promQL(m *Model, q string) string {
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
	for i, p := range dashboardPanels(m) {
		g := graph{ID: i + 1, Type: "timeseries", Title: p.title, Datasource: datasource,
			GridPos: gridPos{H: 8, W: 12, X: 12 * (i % 2), Y: 8 * (i / 2)}}
		g.FieldConfig.Defaults.Unit = p.unit
		for j, q := range p.queries {
			g.Targets = append(g.Targets, target{promQL(m, q[0]), q[1], string(rune('A' + j))})
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

// alerts lists the service's alerting rules: each kind's (Kind.alerts) for
// the kinds the service has, then the container's. "NS"
// and "NAME" stand for its metrics namespace and its name.
func alerts(m *Model) []alert {
	var as []alert
	for _, k := range monitored(m) {
		if k.alerts != nil {
			as = append(as, k.alerts(m)...)
		}
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
	for _, a := range alerts(m) {
		out = append(out, promQL(m, a.expr))
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
	for _, a := range alerts(m) {
		r := rule{Alert: goName(m.Name) + a.name, Expr: promQL(m, a.expr), Labels: map[string]string{"severity": a.severity},
			Annotations: map[string]string{"summary": promQL(m, a.summary)}}
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
