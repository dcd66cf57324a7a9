package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// The grpc kind: a gRPC server (google.golang.org/grpc) with the standard
// health service beside the probes, drained by GracefulStop within its own
// timeout, then Stop. Everything of it is here and in templates/grpc; Kinds
// lists it, and main.go.tmpl places its blocks.

// GRPC is the gRPC server kind.
const GRPC = answers.GRPC

// Defaults of the grpc kind.
const (
	DefaultGRPCPort            = 50051 // the port gRPC's own examples use
	defaultGRPCShutdownTimeout = 25 * time.Second
)

// grpcShutdownKey is the answer of its drain, as the ladder and its
// messages name it.
const grpcShutdownKey = "grpc.shutdown_timeout"

// grpcShutdownVar is the variable of the gRPC drain's timeout.
const grpcShutdownVar = "GRPC_SHUTDOWN_TIMEOUT"

// GRPCServer is the grpc kind's settings on the model.
type GRPCServer struct {
	Port            int
	ShutdownTimeout time.Duration
	Reflection      bool
}

var grpcKind = &Kind{Name: GRPC, Chosen: true, What: "a gRPC server (google.golang.org/grpc) with the health service and GracefulStop",
	Menu:     "gRPC server with the health service (grpc.health.v1); GracefulStop bounded, then Stop",
	Dirs:     []string{"grpc"},
	Listens:  "GRPC_ADDR",
	on:       func(m *Model) bool { return m.GRPC != nil },
	defaults: grpcDefaults, derive: grpcDerive, forget: func(a *answers.Answers) error { a.GRPC = answers.GRPCAnswers{}; return nil },
	drains: grpcDrains, env: grpcEnv, settings: grpcSettings, flags: grpcFlags,
	panels: grpcPanels, alerts: grpcAlerts}

func grpcDefaults(a *answers.Answers) {
	answers.SetDefault(&a.GRPC.Port, DefaultGRPCPort)
	answers.SetDefault(&a.GRPC.ShutdownTimeout, answers.Duration(defaultGRPCShutdownTimeout))
}

func grpcDerive(m *Model, a answers.Answers) error {
	g := a.GRPC
	if g.Port < 1 || g.Port > 65535 {
		return &problem.InputError{Field: "grpc.port", Msg: fmt.Sprintf("%d is not a TCP port", g.Port), Fix: "use a number from 1 to 65535, e.g. " + strconv.Itoa(DefaultGRPCPort)}
	}
	if g.Port == a.HTTP.Port && m.HTTP {
		return &problem.InputError{Field: "grpc.port", Msg: fmt.Sprintf("%d is the HTTP port too", g.Port), Fix: "give gRPC a port of its own, e.g. " + strconv.Itoa(DefaultGRPCPort)}
	}
	if g.Port == m.AdminPort {
		return &problem.InputError{Field: "grpc.port", Msg: fmt.Sprintf("%d is the admin listener's port (probes, /metrics)", g.Port), Fix: "give gRPC a port of its own, e.g. " + strconv.Itoa(DefaultGRPCPort)}
	}
	if g.ShutdownTimeout <= 0 {
		return &problem.InputError{Field: grpcShutdownKey, Msg: fmt.Sprintf("%v must be positive", g.ShutdownTimeout), Fix: "give a duration greater than zero, e.g. " + problem.Seconds(defaultGRPCShutdownTimeout)}
	}
	m.GRPC = &GRPCServer{Port: g.Port, ShutdownTimeout: time.Duration(g.ShutdownTimeout), Reflection: g.Reflection}
	return nil
}

func grpcDrains(m *Model) []Drain {
	return []Drain{{Name: "gRPC drain", Key: grpcShutdownKey, D: m.GRPC.ShutdownTimeout, Note: "GracefulStop waits for in-flight RPCs, then Stop", Part: "grpc", Var: grpcShutdownVar}}
}

func grpcEnv(m *Model) []EnvVar {
	g := m.GRPC
	return []EnvVar{
		textVar("GRPC_ADDR", ":"+strconv.Itoa(g.Port), "grpc.port"),
		durationVar(grpcShutdownVar, g.ShutdownTimeout, grpcShutdownKey),
		boolVar("GRPC_REFLECTION", g.Reflection, "grpc.reflection"),
	}
}

func grpcSettings(a answers.Answers) []setting {
	return []setting{duration(grpcShutdownKey, a.GRPC.ShutdownTimeout, maxTimeout)}
}

// grpcFlags are the grpc kind's answers as flags of gsgen new and add.
var grpcFlags = []KindFlag{
	{Name: "grpc-port", Usage: "grpc: port the gRPC server listens on", Default: strconv.Itoa(DefaultGRPCPort),
		Field: "grpc.port", Title: "gRPC port",
		set: func(a *answers.Answers, s string) error {
			return setPort(&a.GRPC.Port, "--grpc-port", s, DefaultGRPCPort)
		},
		get: func(a answers.Answers) string { return unlessZero(a.GRPC.Port, strconv.Itoa(a.GRPC.Port)) }},
	{Name: "grpc-shutdown", Usage: "grpc: how long GracefulStop may wait for in-flight RPCs before Stop", Default: problem.Seconds(defaultGRPCShutdownTimeout),
		Field: grpcShutdownKey, Title: "gRPC drain",
		set: func(a *answers.Answers, s string) error {
			return setDuration(&a.GRPC.ShutdownTimeout, "--grpc-shutdown", s)
		},
		get: func(a answers.Answers) string {
			return unlessZero(a.GRPC.ShutdownTimeout, a.GRPC.ShutdownTimeout.String())
		}},
	{Name: "grpc-reflection", Usage: "grpc: register the reflection service (grpcurl); GRPC_REFLECTION turns it off", Default: "false", Bool: true,
		Field: "grpc.reflection", Title: "Register the gRPC reflection service?",
		set:      func(a *answers.Answers, s string) error { return setBool(&a.GRPC.Reflection, "--grpc-reflection", s) },
		get:      func(a answers.Answers) string { return unlessZero(a.GRPC.Port, strconv.FormatBool(a.GRPC.Reflection)) },
		answered: func(a answers.Answers) bool { return a.GRPC.Reflection }},
}

// grpcPanels read the histogram the server's interceptor exports
// (internal/grpcapi): NS_grpc_request_duration_seconds by method and code.
func grpcPanels(*Model) []Panel {
	return []Panel{
		{"gRPC calls per second, by method and code", "reqps", [][2]string{
			{`sum by (method, code) (rate(NS_grpc_request_duration_seconds_count[5m]))`, "{{method}} {{code}}"}}},
		{"gRPC latency, 99th percentile, by method", "s", [][2]string{
			{`histogram_quantile(0.99, sum by (le, method) (rate(NS_grpc_request_duration_seconds_bucket[5m])))`, "{{method}}"}}},
	}
}

// grpcServerFaults are the status codes that say the server failed the
// call, as a 5xx does for HTTP: an error it returned without a status
// (Unknown), a bug or a broken invariant (Internal, DataLoss), a dependency
// down (Unavailable) or a handler slower than the caller's deadline
// (DeadlineExceeded). The others are the caller's doing (InvalidArgument,
// NotFound, Canceled ...) or a method it should not call (Unimplemented).
const grpcServerFaults = "Unknown|Internal|Unavailable|DataLoss|DeadlineExceeded"

func grpcAlerts(*Model) []Alert {
	return []Alert{{"GRPCErrors",
		`sum(rate(NS_grpc_request_duration_seconds_count{code=~"` + grpcServerFaults + `"}[5m])) / sum(rate(NS_grpc_request_duration_seconds_count[5m])) > 0.05`,
		"10m", "warning", "More than 5% of the gRPC calls to NAME fail with a server-side code (" + strings.ReplaceAll(grpcServerFaults, "|", ", ") + ")."}}
}
