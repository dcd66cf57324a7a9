package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/answers"
)

// buildRoot holds the services' sources and binaries, built once per test
// process and shared by the scenarios.
var buildRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gsgen-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// e2eOnly skips the test under -short: every scenario builds and runs services.
func e2eOnly(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: builds generated services and runs them; skipped with -short")
	}
}

// variant is one generated service the scenarios run.
type variant struct {
	name   string // names its directory and binary
	preset string // golden/<preset> is gsgen's output for golden/<preset>.yaml
	// answers, when set, changes golden/<preset>.yaml before generating the
	// service with gsgen's generator, as `gsgen new -f <preset>.yaml --flag ...`
	// would; nil copies golden/<preset> as it is.
	answers func(*answers.Answers)
	// additions are the packages under internal/ that get the tests' own
	// handlers (see additions below).
	additions []string
	// files replace files the user owns (path in the service -> content),
	// as the user would edit them.
	files map[string]string

	once sync.Once
	dir  string // the service's source
	bin  string // its main binary
	err  error
}

var (
	httpService = &variant{name: "http", preset: "http", additions: []string{"httpapi"}}
	// grpcService serves gRPC beside HTTP: no PostgreSQL, Kafka or Redis.
	grpcService = &variant{name: "grpc", preset: "grpc"}
	// workerService runs the outbox relay without HTTP handlers or asynq: no Redis.
	workerService = &variant{name: "worker", preset: "worker"}
	fullService   = &variant{name: "full", preset: "full", additions: []string{"httpapi", "tasks", "consumer"}}
	// fullShortAsynq is the full preset with --task-timeout 1s --asynq-shutdown 5s.
	// The golden one cannot be given a shorter ASYNQ_SHUTDOWN_TIMEOUT than its
	// task timeout (20s): config.Load refuses it, and a task held past 25s
	// would make that scenario take most of a minute. 5s leaves a busy
	// machine ample time to release the short task during the drain.
	fullShortAsynq = &variant{name: "full-short-asynq", preset: "full", additions: []string{"httpapi", "tasks"},
		answers: func(a *answers.Answers) {
			a.Timeouts.TaskTimeout = answers.Duration(time.Second)
			a.Timeouts.AsynqShutdown = answers.Duration(5 * time.Second)
		}}
	// eightConsumers is the worker preset with eight Kafka consumers, each
	// in a group of its own, all closing in one close budget.
	eightConsumers = &variant{name: "eight-consumers", preset: "worker",
		answers: func(a *answers.Answers) {
			a.Consumers = nil
			for i := range 8 {
				a.Consumers = append(a.Consumers, answers.ConsumerAnswers{Name: fmt.Sprintf("reader-%d", i), Topic: outboxTopic})
			}
		}}
)

// addition is a handler the tests add to a service the way its user would:
// a file of their own in the package (testdata/overlay/<package>/), plus one
// registration line in the user-owned file that lists the handlers.
type addition struct {
	file, after, line string
}

var additions = map[string]addition{
	"httpapi": {"internal/httpapi/routes.go", `mux.HandleFunc("GET /hello/{name}", hello)`, `mux.HandleFunc("GET /e2e/slow", e2eSlow(deps.Logger))`},
	"tasks":   {"internal/tasks/example.go", `mux.HandleFunc(TypeWelcomeEmail, h.HandleWelcomeEmail)`, `mux.HandleFunc(TypeE2EHold, h.HandleE2EHold)`},
	// Not a registration: a fault the handler returns before its work.
	"consumer": {"internal/consumer/order_events_handler.go", `eventID := EventID(msg)`, "if err := e2eFault(eventID); err != nil {\n\t\treturn err\n\t}"},
}

// build returns the variant's source directory and binary, building them on
// first use.
func (v *variant) build(t *testing.T) (dir, bin string) {
	t.Helper()
	v.once.Do(func() {
		start := time.Now()
		v.dir = filepath.Join(buildRoot, v.name)
		if v.err = v.writeSource(); v.err != nil {
			return
		}
		for _, pkg := range v.additions {
			if v.err = addHandlers(v.dir, pkg); v.err != nil {
				return
			}
		}
		for p, content := range v.files {
			if v.err = os.WriteFile(filepath.Join(v.dir, filepath.FromSlash(p)), []byte(content), 0o644); v.err != nil {
				return
			}
		}
		cmds, err := filepath.Glob(filepath.Join(v.dir, "cmd", "*"))
		// The service's own command: not its dedicated asynq worker, not make demo's driver.
		cmds = slices.DeleteFunc(cmds, func(c string) bool {
			return strings.HasSuffix(c, "-worker") || strings.HasSuffix(c, "-demo")
		})
		if err != nil || len(cmds) != 1 {
			v.err = fmt.Errorf("want one command under %s/cmd, found %v (%v)", v.dir, cmds, err)
			return
		}
		v.bin = filepath.Join(buildRoot, v.name+".bin")
		cmd := exec.Command("go", "build", "-trimpath", "-o", v.bin, "./cmd/"+filepath.Base(cmds[0]))
		cmd.Dir = v.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			v.err = fmt.Errorf("go build in %s: %v\n%s", v.dir, err, out)
			return
		}
		t.Logf("built %s in %v", v.name, time.Since(start).Round(time.Millisecond))
	})
	if v.err != nil {
		t.Fatalf("building the %s service: %v", v.name, v.err)
	}
	return v.dir, v.bin
}

// writeSource puts gsgen's output for the variant in v.dir.
func (v *variant) writeSource() error {
	golden := filepath.Join("..", "golden", v.preset)
	if v.answers == nil {
		return os.CopyFS(v.dir, os.DirFS(golden))
	}
	answersFile := golden + ".yaml"
	data, err := os.ReadFile(answersFile)
	if err != nil {
		return err
	}
	a, err := answers.ParseAnswersFile(answersFile, data)
	if err != nil {
		return err
	}
	v.answers(&a)
	_, files, err := generator.Generate(a.WithDefaults())
	if err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(v.dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// addHandlers lays testdata/overlay/<pkg> over internal/<pkg> and registers
// its handler after the example one.
func addHandlers(dir, pkg string) error {
	if err := os.CopyFS(filepath.Join(dir, "internal", pkg), os.DirFS(filepath.Join("testdata", "overlay", pkg))); err != nil {
		return err
	}
	add := additions[pkg]
	p := filepath.Join(dir, filepath.FromSlash(add.file))
	src, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if strings.Count(string(src), add.after) != 1 {
		return fmt.Errorf("%s: cannot find the line %q to register the tests' handler after", add.file, add.after)
	}
	return os.WriteFile(p, []byte(strings.Replace(string(src), add.after, add.after+"\n\t"+add.line, 1)), 0o644)
}
