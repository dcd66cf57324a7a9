package generator

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/gsgen-dev/gsgen/templates"
)

// DependencySet names the third-party modules a service imports. The
// service's go.mod and go.sum depend only on it, so gsgen ships one
// tidied pair per set (templates/gomod/<key>.mod.txt and .sum.txt, refreshed
// by `go test ./generator -run TestDependencySets -update`) and generation
// needs no network.
type DependencySet struct {
	Pgx, KafkaGo, Asynq bool
	// Otel is OpenTelemetry's SDK and OTLP exporter (tracing: true);
	// OtelHTTP its net/http instrumentation, for a traced service with HTTP.
	Otel, OtelHTTP bool
}

// Module is a third-party module a component imports, at the version
// generated services require. The stored go.mod files are tidied from these
// pins, so changing one here and running the -update above moves every service.
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
	// franz-go it needs, so franz-go is pinned beside it.
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
	return out
}

// RuntimeModules lists the modules of the set that the service itself
// imports, for its README.
func (s DependencySet) RuntimeModules() []Module {
	var out []Module
	for _, m := range s.Modules() {
		if !m.Test {
			out = append(out, m)
		}
	}
	return out
}

// Key names the set in templates/gomod: "base" (what every service has),
// "pgx-kafka", "asynq", ...
func (s DependencySet) Key() string {
	var parts []string
	for _, m := range s.Modules() {
		if m.Key != "" {
			parts = append(parts, m.Key)
		}
	}
	if len(parts) == 0 {
		return "base"
	}
	return strings.Join(parts, "-")
}

// Dependencies is the set the model's components import.
func (m *Model) Dependencies() DependencySet {
	return DependencySet{Pgx: m.UsesPostgres, KafkaGo: m.UsesKafka, Asynq: m.UsesRedis, Otel: m.Tracing, OtelHTTP: m.Tracing && m.HTTP}
}

// modulePlaceholder is the module path the stored go.mod files were tidied with.
const modulePlaceholder = "example.com/gsgen-dependency-set"

func storedGoMod(key string) ([]byte, error) {
	b, err := templates.FS.ReadFile("gomod/" + key + ".mod.txt")
	if err != nil {
		return nil, fmt.Errorf("no go.mod stored for dependency set %q (run go test ./generator -run TestDependencySets -update): %w", key, err)
	}
	return b, nil
}

func buildGoMod(m *Model) ([]byte, error) {
	b, err := storedGoMod(m.Dependencies().Key())
	if err != nil {
		return nil, err
	}
	first := []byte("module " + modulePlaceholder + "\n")
	if !bytes.HasPrefix(b, first) {
		return nil, fmt.Errorf("stored go.mod for %q does not start with %q", m.Dependencies().Key(), first)
	}
	return append([]byte("module "+m.Module+"\n"), b[len(first):]...), nil
}

func buildGoSum(m *Model) ([]byte, error) {
	key := m.Dependencies().Key()
	b, err := templates.FS.ReadFile("gomod/" + key + ".sum.txt")
	if err != nil {
		return nil, fmt.Errorf("no go.sum stored for dependency set %q: %w", key, err)
	}
	return b, nil
}

// answersHeader opens gsgen.yaml. It is not a DO NOT EDIT marker: this file
// is the source of truth a user edits before `gsgen regen`.
const answersHeader = "# Answers gsgen generated this service from. Edit them, then run gsgen regen\n# to regenerate the files it owns (files you own are never touched).\n"

func buildAnswersFile(m *Model) ([]byte, error) {
	b, err := MarshalAnswersFile(m.Answers)
	if err != nil {
		return nil, err
	}
	return append([]byte(answersHeader), b...), nil
}

// storedSets lists the go.mod and go.sum of every stored dependency set.
func storedSets(ext string) ([][]byte, error) {
	names, err := fs.Glob(templates.FS, "gomod/*."+ext+".txt")
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, n := range names {
		b, err := templates.FS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// untouched reports whether onDisk is exactly one of the stored files (with
// the service's module line for go.mod): gsgen wrote it and the user has not
// added anything, so the rendered file can replace it whole.
func untouched(ext string, onDisk []byte, module string) (bool, error) {
	sets, err := storedSets(ext)
	if err != nil {
		return false, err
	}
	for _, s := range sets {
		if module != "" {
			s = bytes.Replace(s, []byte("module "+modulePlaceholder+"\n"), []byte("module "+module+"\n"), 1)
		}
		if bytes.Equal(s, onDisk) {
			return true, nil
		}
	}
	return false, nil
}

// mergeGoMod keeps the user's own requirements: a go.mod gsgen wrote and
// nobody changed is replaced by the new one (exactly what go mod tidy
// writes); otherwise each requirement of the new one is added to it, or
// raised to the new version, and the rest stays as the user left it.
func mergeGoMod(onDisk, rendered []byte) ([]byte, error) {
	disk, err := modfile.Parse("go.mod", onDisk, nil)
	if err != nil {
		return nil, &InputError{Field: "go.mod", Msg: "cannot be parsed: " + err.Error(), Fix: "fix it (go mod tidy reports the same problem) and re-run"}
	}
	if disk.Module == nil {
		return nil, &InputError{Field: "go.mod", Msg: "has no module line", Fix: "add one (module example.com/you/service), or move go.mod away"}
	}
	want, err := modfile.Parse("go.mod", rendered, nil)
	if err != nil {
		return nil, err
	}
	if have, module := disk.Module.Mod.Path, want.Module.Mod.Path; have != module {
		// The service's imports say module; a go.mod naming another would
		// not build, and its module line is the user's to change.
		return nil, &InputError{Field: "go.mod", Msg: fmt.Sprintf("its module is %s, but the service's module is %s", Quote(have), Quote(module)),
			Fix: fmt.Sprintf("give the service the same module (--module %s, or module: in gsgen.yaml), or change go.mod's module line", Shorten(have))}
	}
	ok, err := untouched("mod", onDisk, disk.Module.Mod.Path)
	if err != nil || ok {
		return rendered, err
	}
	have := map[string]*modfile.Require{}
	for _, r := range disk.Require {
		have[r.Mod.Path] = r
	}
	for _, r := range want.Require {
		old, found := have[r.Mod.Path]
		switch {
		case !found:
			disk.AddNewRequire(r.Mod.Path, r.Mod.Version, r.Indirect)
		case semver.Compare(old.Mod.Version, r.Mod.Version) < 0:
			if err := disk.AddRequire(r.Mod.Path, r.Mod.Version); err != nil {
				return nil, err
			}
		}
	}
	disk.Cleanup()
	return disk.Format()
}

// mergeGoSum keeps every checksum the user's go.sum has and adds the new ones.
func mergeGoSum(onDisk, rendered []byte) ([]byte, error) {
	ok, err := untouched("sum", onDisk, "")
	if err != nil || ok {
		return rendered, err
	}
	lines := map[string]bool{}
	for _, b := range [][]byte{onDisk, rendered} {
		for l := range strings.SplitSeq(string(b), "\n") {
			if l != "" {
				lines[l] = true
			}
		}
	}
	var out bytes.Buffer
	for _, l := range sortedKeys(lines) {
		out.WriteString(l + "\n")
	}
	return out.Bytes(), nil
}
