package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/mod/modfile"

	"github.com/gsgen-dev/gsgen/doctor"
	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// gsgen's own tests' servers, as they default them (README.md, "Tests").
const (
	testPostgresVar = "GSGEN_TEST_POSTGRES_URL"
	testPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	testRedisVar    = "GSGEN_TEST_REDIS_ADDR"
	gsgenModule     = "github.com/gsgen-dev/gsgen"
)

// The fixes of a server that does not answer.
const (
	postgresFix = "start PostgreSQL (your system's service, or docker compose up --wait postgres in the service), or set %s to one that answers"
	redisFix    = "start Redis (redis-server --daemonize yes, or docker compose up --wait redis in the service), or set %s to one that answers"
)

// doctorMissing is a doctor run that found something missing: exit 1.
type doctorMissing struct{ missing []string }

func (e doctorMissing) Error() string {
	return fmt.Sprintf("doctor: missing %s (each has its fix above)", strings.Join(e.missing, ", "))
}

func newDoctorCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor [DIR]",
		Short: "Check that this machine has what a service (or gsgen's own tests) needs",
		Long: `Check what the service in DIR needs to build, test and run here, and print each
check with a fix: a Go at least as new as its go.mod, PostgreSQL and Redis
answering at the addresses the service would use (its variables, DATABASE_URL,
REDIS_ADDR, or their local defaults), Kafka for make run (the tests run Kafka
in-process), docker when compose.yaml is the plan, its HTTP and admin ports free,
and its modules in the module cache (checked offline) or in vendor/.

Without DIR, the service in the current directory (it holds gsgen.yaml);
outside one, what gsgen's own tests need: PostgreSQL at GSGEN_TEST_POSTGRES_URL
and Redis at GSGEN_TEST_REDIS_ADDR (or their local defaults), and in gsgen's
checkout its Go version and module cache.

Exits 1 naming what is missing, 2 when DIR is not a generated service.`,
		Example: `  gsgen doctor ./orders    # before the first make test
  gsgen doctor             # in a service, or gsgen's own tests outside one`,
		Args: argsBetween(0, 1, "at most one DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			} else if _, err := os.Lstat(answers.AnswersFile); err == nil {
				dir = "."
			}
			var t doctor.Target
			var what string
			if dir != "" {
				if err := isService(dir); err != nil {
					return err
				}
				m, err := serviceModel(dir, func(a answers.Answers) (answers.Answers, error) { return a, nil })
				if err != nil {
					return err
				}
				t = serviceTarget(dir, m)
				what = fmt.Sprintf("the service in %s needs (make test, make run, make demo)", dir)
			} else {
				t = gsgenTestsTarget()
				what = "gsgen's own tests need (go test ./...; for a service, gsgen doctor DIR)"
			}
			fmt.Fprintf(e.stdout, "What %s:\n", what)
			r := doctor.Run(cmd.Context(), t)
			r.Write(e.stdout)
			if missing := r.Missing(); len(missing) > 0 {
				return doctorMissing{missing}
			}
			fmt.Fprintln(e.stdout, "doctor: nothing missing")
			return nil
		},
	}
}

// serviceTarget is what the service m, in dir, needs: its servers at the
// addresses its config would read from this environment.
func serviceTarget(dir string, m *model.Model) doctor.Target {
	t := doctor.Target{Dir: dir}
	server := func(name string) *doctor.Server {
		v, set := os.LookupEnv(name)
		if !set {
			v, _ = m.Default(name)
		}
		return &doctor.Server{Addr: v, Var: name, Set: set}
	}
	if m.UsesPostgres {
		t.Postgres, t.PostgresFix = server("DATABASE_URL"), fmt.Sprintf(postgresFix, "DATABASE_URL")
	}
	if m.UsesRedis {
		t.Redis, t.RedisFix = server("REDIS_ADDR"), fmt.Sprintf(redisFix, "REDIS_ADDR")
		t.RedisPassword = os.Getenv("REDIS_PASSWORD")
	}
	if m.UsesKafka {
		t.Kafka = server("KAFKA_BROKERS")
	}
	if _, err := os.Stat(filepath.Join(dir, "compose.yaml")); err == nil {
		t.Compose = true
	}
	if _, err := os.Stat(filepath.Join(dir, "cmd", m.Name+"-demo")); err == nil {
		t.Demo = true
	}
	if m.HTTP {
		t.Ports = append(t.Ports, doctor.Port{What: "HTTP, make run", Addr: server("HTTP_ADDR").Addr, Var: "HTTP_ADDR"})
	}
	t.Ports = append(t.Ports, doctor.Port{What: "admin: probes and /metrics, make run", Addr: server("ADMIN_ADDR").Addr, Var: "ADMIN_ADDR"})
	if m.AsynqWorker {
		// make run-worker gives the worker an admin port of its own.
		t.Ports = append(t.Ports, doctor.Port{What: "the worker's admin, make run-worker", Addr: ":" + strconv.Itoa(m.WorkerAdminPort), Var: "ADMIN_ADDR of make run-worker"})
	}
	return t
}

// gsgenTestsTarget is what go test ./... in gsgen's checkout needs; outside
// the checkout, its servers only.
func gsgenTestsTarget() doctor.Target {
	pg, pgSet := os.LookupEnv(testPostgresVar)
	if !pgSet {
		pg = testPostgresURL
	}
	redis, redisSet := os.LookupEnv(testRedisVar)
	if !redisSet {
		redis = model.LocalRedisAddr
	}
	t := doctor.Target{
		Postgres:    &doctor.Server{Addr: pg, Var: testPostgresVar, Set: pgSet},
		PostgresFix: fmt.Sprintf(postgresFix, testPostgresVar),
		Redis:       &doctor.Server{Addr: redis, Var: testRedisVar, Set: redisSet},
		RedisFix:    fmt.Sprintf(redisFix, testRedisVar),
	}
	if b, err := os.ReadFile("go.mod"); err == nil && modfile.ModulePath(b) == gsgenModule {
		t.Dir = "."
	}
	return t
}

// isService refuses a DIR that is not a generated service.
func isService(dir string) error {
	fix := "give the directory of a service gsgen generated (gsgen new DIR makes one), or no DIR for gsgen's own tests"
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return &problem.InputError{Field: "DIR", Msg: fmt.Sprintf("%s is not a directory", problem.Quote(dir)), Fix: fix}
	}
	if _, err := os.Lstat(filepath.Join(dir, answers.AnswersFile)); err != nil {
		return &problem.InputError{Field: "DIR", Msg: fmt.Sprintf("%s has no %s, so it is not a service gsgen generated", problem.Quote(dir), answers.AnswersFile), Fix: fix}
	}
	return nil
}
