package render

import (
	"bytes"
	"encoding/json"

	"gopkg.in/yaml.v3"

	"github.com/gsgen-dev/gsgen/generator/internal/golit"
	"github.com/gsgen-dev/gsgen/generator/model"
)

// buildDashboard writes the service's Grafana dashboard: two graphs a row,
// on a Prometheus data source the viewer picks.
func buildDashboard(m *model.Model) ([]byte, error) {
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
	for i, p := range m.Panels() {
		g := graph{ID: i + 1, Type: "timeseries", Title: p.Title, Datasource: datasource,
			GridPos: gridPos{H: 8, W: 12, X: 12 * (i % 2), Y: 8 * (i / 2)}}
		g.FieldConfig.Defaults.Unit = p.Unit
		for j, q := range p.Queries {
			g.Targets = append(g.Targets, target{m.PromQL(q[0]), q[1], string(rune('A' + j))})
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

// buildRules writes the service's PrometheusRule.
func buildRules(m *model.Model) ([]byte, error) {
	type rule struct {
		Alert       string            `yaml:"alert"`
		Expr        string            `yaml:"expr"`
		For         string            `yaml:"for,omitempty"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	}
	var rules []rule
	for _, a := range m.Alerts() {
		r := rule{Alert: golit.Name(m.Name) + a.Name, Expr: m.PromQL(a.Expr), Labels: map[string]string{"severity": a.Severity},
			Annotations: map[string]string{"summary": m.PromQL(a.Summary)}}
		if a.For != "0m" {
			r.For = a.For
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
