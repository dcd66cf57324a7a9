package model

import (
	"strings"
)

// Panel is one graph of the service's Grafana dashboard: a title, the
// PromQL queries it plots (each with its legend) and their unit.
type Panel struct {
	Title   string
	Unit    string // a Grafana unit: reqps, s, short, bytes, percentunit
	Queries [][2]string
}

// Panels lists the graphs of the service's dashboard: each kind's
// (Kind.panels) for the kinds the service has, then the pod's. "NS" in a query stands for the service's
// metrics namespace. Every query reads a metric the service exports:
// e2e's TestDashboardReadsExportedMetrics scrapes a running service and
// checks each name.
func (m *Model) Panels() []Panel {
	var ps []Panel
	for _, k := range monitored(m) {
		if k.panels != nil {
			ps = append(ps, k.panels(m)...)
		}
	}
	ps = append(ps,
		Panel{"Memory (RSS), by pod", "bytes", [][2]string{
			{`process_resident_memory_bytes{pod=~"NAME-.*"}`, "{{pod}}"}}},
		Panel{"CPU, by pod", "percentunit", [][2]string{
			{`rate(process_cpu_seconds_total{pod=~"NAME-.*"}[5m])`, "{{pod}}"}}},
		Panel{"Goroutines, by pod", "short", [][2]string{
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

func leasePanels(m *Model) []Panel {
	return []Panel{
		{"Lease holders, by lease (one each)", "short", [][2]string{
			{`sum by (lease) (NS_lease_held)`, "{{lease}}"}}},
	}
}

func leaseAlerts(m *Model) []Alert {
	return []Alert{{"LeaseNotHeld", `sum by (lease) (NS_lease_held) != 1`, "5m", "warning",
		"A lease of NAME has had no holder (or more than one) for 5 minutes: its periodic part runs nowhere; PostgreSQL may be unreachable from the pods."}}
}

// DashboardQueries lists every PromQL query of the service's dashboard.
func (m *Model) DashboardQueries() []string {
	var out []string
	for _, p := range m.Panels() {
		for _, q := range p.Queries {
			out = append(out, m.PromQL(q[0]))
		}
	}
	return out
}

// PromQL fills the service's names into a query.
func (m *Model) PromQL(q string) string {
	return strings.NewReplacer("NS_", m.MetricsNamespace+"_", "NAME", m.Name).Replace(q)
}

// Alert is one Prometheus alerting rule of the service.
type Alert struct {
	Name, Expr, For, Severity, Summary string
}

// Alerts lists the service's alerting rules: each kind's (Kind.alerts) for
// the kinds the service has, then the container's. "NS"
// and "NAME" stand for its metrics namespace and its name.
func (m *Model) Alerts() []Alert {
	var as []Alert
	for _, k := range monitored(m) {
		if k.alerts != nil {
			as = append(as, k.alerts(m)...)
		}
	}
	// From kube-state-metrics, not from the service: a container that ended
	// with an error, after a failed shutdown (over its budget, a second
	// signal) or a crash. It sees a container restarted in its pod, not a
	// pod a rollout deleted; gsgen timeline reads that one's log.
	as = append(as, Alert{"ExitedWithError",
		`max by (pod, container) (kube_pod_container_status_last_terminated_exitcode{container=~"NAME(-worker)?"}) > 0`, "0m", "warning",
		"A container of NAME exited with an error: a shutdown over its budget, or a crash. Read its log with kubectl logs --previous."})
	return as
}

// AlertQueries lists the PromQL of every alerting rule of the service.
func (m *Model) AlertQueries() []string {
	var out []string
	for _, a := range m.Alerts() {
		out = append(out, m.PromQL(a.Expr))
	}
	return out
}
