package model

import "strings"

// DependencySet names the third-party modules a service imports. Its
// go.mod and go.sum are selected from one pinned module graph
// (templates/gomod/graph.txt, refreshed by `go test ./generator/render -run
// TestDependencySets -update`): every line of the graph says which modules
// bring it, so generation needs no network, every service of one gsgen
// version requires the same version of each module, and a new optional
// module adds lines to one file instead of doubling a set of stored files.
type DependencySet struct {
	Pgx, KafkaGo, Asynq bool
	// Otel is OpenTelemetry's SDK and OTLP exporter (tracing: true);
	// OtelHTTP its net/http instrumentation, for a traced service with HTTP.
	Otel, OtelHTTP bool
	// Cron parses the schedules of periodic workers (robfig/cron).
	Cron bool
	// Consumers: the service reads Kafka with franz-go's kgo (the kafka
	// component). It selects no line of its own (franz-go comes with
	// KafkaGo, for kfake), only makes franz-go one of the modules the
	// service itself imports.
	Consumers bool
	// GRPC is google.golang.org/grpc, for the grpc component.
	GRPC bool
}

// Module is a third-party module a component imports, at the version
// generated services require. The graph is tidied from these pins, so
// changing one here and running the -update above moves every service.
type Module struct {
	Key     string // its part of DependencySet.Key; empty for a module that comes with another
	Path    string
	Version string
	Test    bool // only the service's tests import it
}

var (
	pgxModule     = Module{"pgx", "github.com/jackc/pgx/v5", "v5.12.0", false}
	kafkaGoModule = Module{"kafka", "github.com/segmentio/kafka-go", "v0.4.51", false}
	asynqModule   = Module{"asynq", "github.com/hibiken/asynq", "v0.26.0", false}
	// Every service serves Prometheus metrics on its admin listener.
	prometheusModule = Module{"", "github.com/prometheus/client_golang", "v1.25.0", false}
	// Modules that come with another: goose applies the migrations of a
	// service with Postgres (`<name> migrate up`); kfake, an in-process Kafka
	// broker, runs the tests of a service with Kafka. kfake's own go.mod lags behind the
	// franz-go it needs, so franz-go is pinned beside it; its kgo client is
	// also what the consumers read with (DependencySet.Consumers).
	gooseModule   = Module{"", "github.com/pressly/goose/v3", "v3.30.0", false}
	franzGoModule = Module{"", "github.com/twmb/franz-go", "v1.22.3", true}
	kfakeModule   = Module{"", "github.com/twmb/franz-go/pkg/kfake", "v0.0.0-20260918054303-01f206a7e32c", true}
	// Tracing: the API, the SDK (its tracetest package is the tests'
	// in-memory exporter) and the OTLP exporter over HTTP, which reads the
	// OTEL_EXPORTER_OTLP_* variables; otelhttp traces the HTTP server.
	otelModule          = Module{"otel", "go.opentelemetry.io/otel", "v1.47.0", false}
	otelSDKModule       = Module{"", "go.opentelemetry.io/otel/sdk", "v1.47.0", false}
	otelTraceModule     = Module{"", "go.opentelemetry.io/otel/trace", "v1.47.0", false}
	otlpTraceHTTPModule = Module{"", "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp", "v1.47.0", false}
	otelHTTPModule      = Module{"otelhttp", "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp", "v0.72.0", false}
	// The cron parser of the workers' --cron schedules; asynq's scheduler
	// uses the same one.
	cronModule = Module{"cron", "github.com/robfig/cron/v3", "v3.0.1", false}
	// The gRPC server, its health and reflection services; OpenTelemetry's
	// exporters already bring it, at this version, to traced services.
	grpcModule = Module{"grpc", "google.golang.org/grpc", "v1.85.0", false}
)

// Modules lists the modules of the set.
func (s DependencySet) Modules() []Module {
	out := []Module{prometheusModule}
	if s.Pgx {
		out = append(out, pgxModule, gooseModule)
	}
	if s.KafkaGo {
		out = append(out, kafkaGoModule, franzGoModule, kfakeModule)
	}
	if s.Asynq {
		out = append(out, asynqModule)
	}
	if s.Otel {
		out = append(out, otelModule, otelSDKModule, otelTraceModule, otlpTraceHTTPModule)
	}
	if s.OtelHTTP {
		out = append(out, otelHTTPModule)
	}
	if s.Cron {
		out = append(out, cronModule)
	}
	if s.GRPC {
		out = append(out, grpcModule)
	}
	return out
}

// RuntimeModules lists the modules of the set that the service itself
// imports, for its README.
func (s DependencySet) RuntimeModules() []Module {
	var out []Module
	for _, m := range s.Modules() {
		if !m.Test || (m == franzGoModule && s.Consumers) {
			out = append(out, m)
		}
	}
	return out
}

// Keys lists the keys of the set's modules: pgx, kafka, ...
func (s DependencySet) Keys() []string {
	var out []string
	for _, m := range s.Modules() {
		if m.Key != "" {
			out = append(out, m.Key)
		}
	}
	return out
}

// Key names the set: "base" (what every service has), "pgx-kafka",
// "asynq", ...
func (s DependencySet) Key() string {
	if k := s.Keys(); len(k) > 0 {
		return strings.Join(k, "-")
	}
	return "base"
}

// AllDependencySets lists every set the flags can make, accepted or not.
func AllDependencySets() []DependencySet {
	var out []DependencySet
	for i := range 1 << 7 {
		bit := func(n int) bool { return i&(1<<n) != 0 }
		out = append(out, DependencySet{Pgx: bit(0), KafkaGo: bit(1), Asynq: bit(2), Otel: bit(3), OtelHTTP: bit(4), Cron: bit(5), GRPC: bit(6)})
	}
	return out
}

// Dependencies is the set the model's components import.
func (m *Model) Dependencies() DependencySet {
	return DependencySet{Pgx: m.UsesPostgres, KafkaGo: m.UsesKafka, Asynq: m.UsesRedis, Otel: m.Tracing, OtelHTTP: m.Tracing && m.HTTP,
		Cron: m.CronWorkers(), Consumers: m.Kafka, GRPC: m.GRPC != nil}
}
