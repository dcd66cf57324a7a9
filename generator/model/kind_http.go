package model

import (
	"strconv"

	"github.com/gsgen-dev/gsgen/generator/answers"
)

// The http kind: a net/http server with graceful Shutdown, drained in
// step 3 within its own timeout.

var httpKind = &Kind{Name: HTTP, Chosen: true, What: "an HTTP API (net/http) with graceful Shutdown", Dirs: []string{"http"}, Listens: "HTTP_ADDR",
	ask:    httpAsk,
	Menu:   "net/http server with /healthz, /readyz (503 once shutdown begins) and your routes",
	on:     func(m *Model) bool { return m.HTTP },
	drains: httpDrains, env: httpEnv, panels: httpPanels, alerts: httpAlerts, flags: httpFlags,
	pool: httpPool}

// httpShutdownVar is the variable of the HTTP drain's timeout.
const httpShutdownVar = "HTTP_SHUTDOWN_TIMEOUT"

// httpHeadroom is the connections the pool keeps for HTTP handlers: enough
// for a few concurrent queries; raise DATABASE_MAX_CONNS for a busy API.
const httpHeadroom = 4

// httpPool is headroom for the handlers' queries, of which the service
// needs one connection to start.
func httpPool(m *Model) []poolShare {
	return []poolShare{{PoolPart: PoolPart{What: "HTTP handlers (headroom)", Conns: httpHeadroom}, spare: httpHeadroom - 1}}
}

func httpDrains(m *Model) []Drain {
	return []Drain{{Name: "HTTP drain", Key: "http_shutdown", D: m.Timeouts.HTTPShutdown, Note: "http.Server.Shutdown waits for in-flight requests", Part: "http", Var: httpShutdownVar}}
}

func httpEnv(m *Model) []EnvVar {
	return []EnvVar{
		textVar("HTTP_ADDR", ":"+strconv.Itoa(m.HTTPPort), "http.port"),
		durationVar(httpShutdownVar, m.Timeouts.HTTPShutdown, "timeouts.http_shutdown"),
	}
}

func httpPanels(m *Model) []Panel {
	return []Panel{
		{"HTTP requests per second, by route and code", "reqps", [][2]string{
			{`sum by (route, code) (rate(NS_http_request_duration_seconds_count[5m]))`, "{{route}} {{code}}"}}},
		{"HTTP latency, 99th percentile, by route", "s", [][2]string{
			{`histogram_quantile(0.99, sum by (le, route) (rate(NS_http_request_duration_seconds_bucket[5m])))`, "{{route}}"}}},
	}
}

func httpAlerts(m *Model) []Alert {
	return []Alert{{"HTTPErrors",
		`sum(rate(NS_http_request_duration_seconds_count{code=~"5.."}[5m])) / sum(rate(NS_http_request_duration_seconds_count[5m])) > 0.05`,
		"10m", "warning", "More than 5% of the HTTP requests to NAME fail with a 5xx."}}
}

// httpFlags are the http kind's answers as flags: gsgen new's only, as
// before kinds declared their flags (gsgen add http takes the default).
var httpFlags = []KindFlag{
	{Name: "http-port", Usage: "port the HTTP server listens on", Default: strconv.Itoa(answers.DefaultHTTPPort), Type: "int", Field: "http.port", NewOnly: true,
		set: func(a *answers.Answers, s string) error {
			return setPort(&a.HTTP.Port, "--http-port", s, answers.DefaultHTTPPort)
		},
		get: func(a answers.Answers) string { return unlessZero(a.HTTP.Port, strconv.Itoa(a.HTTP.Port)) }},
}

// httpAsk asks gsgen new for the HTTP port.
func httpAsk(iv Interview, adding bool) error {
	if adding || iv.Answers().HTTP.Port != 0 {
		return nil
	}
	return iv.Text(Question{Field: "http.port", Title: "HTTP port", Def: strconv.Itoa(answers.DefaultHTTPPort),
		Help: "the port the HTTP server listens on",
		Set:  func(a *answers.Answers, s string) error { return answers.ParseCount(s, &a.HTTP.Port) }})
}
