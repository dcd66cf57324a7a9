package generator

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gsgen-dev/gsgen/templates"
)

// DependencySet names the third-party modules a service imports. The
// service's go.mod and go.sum depend only on it, so gsgen ships one
// tidied pair per set (templates/gomod/<key>.mod.txt and .sum.txt, refreshed
// by `go test ./generator -run TestDependencySets -update`) and generation
// needs no network.
type DependencySet struct {
	Pgx, KafkaGo, Asynq bool
}

// Module is a third-party module a component imports, at the version
// generated services require. The stored go.mod files are tidied from these
// pins, so changing one here and running the -update above moves every service.
type Module struct {
	Key     string // its part of DependencySet.Key
	Path    string
	Version string
}

var (
	pgxModule     = Module{"pgx", "github.com/jackc/pgx/v5", "v5.12.0"}
	kafkaGoModule = Module{"kafka", "github.com/segmentio/kafka-go", "v0.4.51"}
	asynqModule   = Module{"asynq", "github.com/hibiken/asynq", "v0.26.0"}
)

// Modules lists the modules of the set.
func (s DependencySet) Modules() []Module {
	var out []Module
	if s.Pgx {
		out = append(out, pgxModule)
	}
	if s.KafkaGo {
		out = append(out, kafkaGoModule)
	}
	if s.Asynq {
		out = append(out, asynqModule)
	}
	return out
}

// Key names the set in templates/gomod: "std", "pgx-kafka", "asynq", ...
func (s DependencySet) Key() string {
	var parts []string
	for _, m := range s.Modules() {
		parts = append(parts, m.Key)
	}
	if len(parts) == 0 {
		return "std"
	}
	return strings.Join(parts, "-")
}

// Dependencies is the set the model's components import.
func (m *Model) Dependencies() DependencySet {
	return DependencySet{Pgx: m.UsesPostgres, KafkaGo: m.UsesKafka, Asynq: m.UsesRedis}
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
const answersHeader = "# Answers gsgen generated this service from. Edit them and re-run gsgen\n# (e.g. gsgen new . --force -f gsgen.yaml) to regenerate the files it owns.\n"

func buildAnswersFile(m *Model) ([]byte, error) {
	b, err := MarshalAnswersFile(m.Answers)
	if err != nil {
		return nil, err
	}
	return append([]byte(answersHeader), b...), nil
}
