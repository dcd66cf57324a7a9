package render

import (
	"fmt"
	"slices"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
)

// userTableSQL is a migration of the user's own, so that a cleaner can
// exist without gsgen's tables: the space includes services whose only
// PostgreSQL is such a cleaner.
var userTableSQL = map[string][]byte{"db/migrations/0100_orders.sql": []byte(
	"-- +goose Up\nCREATE TABLE orders (\n    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n    created_at timestamptz NOT NULL DEFAULT now()\n);\nCREATE INDEX orders_created_at_idx ON orders (created_at);\n\n-- +goose Down\nDROP TABLE orders;\n")}

// AcceptedService is one point of the space of services validation accepts.
type AcceptedService struct {
	Shape   string            // e.g. s-hoakc-d-u: the components' initials, asynq mode, cleaner's table
	Answers answers.Answers   // defaults applied
	UserSQL map[string][]byte // SQL of the user's own beside gsgen's, by path
}

// AcceptedSpace enumerates every service shape validation accepts: each
// non-empty set of components, each asynq mode, and with cleaner both
// gsgen's default cleaner (when outbox or kafka bring a table) and a cleaner
// on a table of the user's. Each is named by its shape, e.g. s-hoakc-d-u,
// and all are called svc (module example.com/svc): packages that come out
// the same in two shapes are then byte-identical, and a build cache
// compiles them once.
// gsgen's tests generate, build and vet every one of them; an error is a
// point that validation refuses, a bug in gsgen.
func AcceptedSpace() ([]AcceptedService, error) {
	var out []AcceptedService
	// gRPC is a server beside the others, sharing nothing with them but
	// main.go's order and the ladder: crossing it with every set would
	// double the space (and the minutes of the test that builds it) to
	// prove nothing new, so it joins the few shapes below instead.
	crossed := slices.DeleteFunc(slices.Clone(model.AllComponents), func(c model.Component) bool { return c == model.GRPC })
	for set := 1; set < 1<<len(crossed); set++ {
		var comps []string
		code := ""
		for i, c := range crossed {
			if set&(1<<i) != 0 {
				comps = append(comps, string(c))
				code += string(c)[:1]
			}
		}
		modes := []string{""}
		if slices.Contains(comps, "asynq") {
			modes = []string{"inprocess", "dedicated"}
		}
		cleaners := []string{""}
		if slices.Contains(comps, "cleaner") {
			cleaners = []string{"user"}
			if slices.Contains(comps, "outbox") || slices.Contains(comps, "kafka") {
				cleaners = append(cleaners, "gsgen")
			}
		}
		for _, mode := range modes {
			for _, cl := range cleaners {
				name := "s-" + code
				if mode != "" {
					name += "-" + mode[:1]
				}
				a := answers.Answers{Name: "svc", Components: comps, Asynq: answers.AsynqAnswers{Mode: mode}}
				var userSQL map[string][]byte
				if cl != "" {
					name += "-" + cl[:1]
				}
				if cl == "user" {
					userSQL = userTableSQL
					a.Cleaners = []answers.CleanerAnswers{{Name: "old-orders", Table: "orders", Column: "created_at"}}
				}
				a.Module = "example.com/svc"
				a = a.WithDefaults()
				if _, err := NewModel(a, userSQL); err != nil {
					return nil, fmt.Errorf("%s is refused: %w", name, err)
				}
				out = append(out, AcceptedService{name, a, userSQL})
			}
		}
	}
	// Workers and task types are lists, not components: a few shapes cover
	// what they change (a worker with and without the pool, a task type with
	// the server in process and in its own binary), instead of doubling the
	// space.
	// A fleet worker on an interval and one on a cron schedule (PostgreSQL
	// for their leases, the cron parser); alone, replica-scoped ones need
	// neither PostgreSQL nor, on an interval, the parser.
	worker := []answers.WorkerAnswers{{Name: "report", Interval: answers.Duration(time.Minute)}, {Name: "digest", Cron: "0 9 * * 1", Timezone: "Europe/Paris"}}
	replicaWorker := []answers.WorkerAnswers{{Name: "cache", Interval: answers.Duration(time.Minute), Scope: answers.ScopeReplica}}
	replicaCron := []answers.WorkerAnswers{{Name: "cache", Cron: "@hourly", Scope: answers.ScopeReplica}}
	task := []answers.TaskAnswers{{Type: "report:build", Queue: "reports"}}
	for _, x := range []struct {
		name, comps, mode string
		workers           []answers.WorkerAnswers
		tasks             []answers.TaskAnswers
	}{
		{"s-h-w", "http", "", worker, nil},
		{"s-h-wr", "http", "", replicaWorker, nil},
		{"s-h-wrc", "http", "", replicaCron, nil},
		{"s-a-d-wrc", "asynq", "dedicated", replicaCron, nil},
		{"s-o-w", "outbox", "", worker, nil},
		{"s-ha-i-wt", "http,asynq", "inprocess", worker, task},
		{"s-a-d-t", "asynq", "dedicated", nil, task},
		{"s-hoakc-i-g-wt", "http,outbox,asynq,kafka,cleaner", "inprocess", worker, task},
	} {
		a := answers.Answers{Name: "svc", Module: "example.com/svc", Components: answers.SplitList(x.comps), Asynq: answers.AsynqAnswers{Mode: x.mode},
			Workers: x.workers, Tasks: x.tasks}.WithDefaults()
		if _, err := NewModel(a, nil); err != nil {
			return nil, fmt.Errorf("%s is refused: %w", x.name, err)
		}
		out = append(out, AcceptedService{x.name, a, nil})
	}
	// Tracing adds OpenTelemetry to the dependency set: one traced shape per
	// set a traced service can need (with and without HTTP, which brings
	// otelhttp), so each has its stored go.mod and go.sum.
	for _, x := range []struct {
		name, comps, mode string
		cleaner           bool
	}{
		{"s-h-tr", "http", "", false},
		{"s-c-u-tr", "cleaner", "", true},
		{"s-hc-u-tr", "http,cleaner", "", true},
		{"s-o-tr", "outbox", "", false},
		{"s-hok-tr", "http,outbox,kafka", "", false},
		{"s-a-d-tr", "asynq", "dedicated", false},
		{"s-ha-i-tr", "http,asynq", "inprocess", false},
		{"s-ac-d-u-tr", "asynq,cleaner", "dedicated", true},
		{"s-hac-i-u-tr", "http,asynq,cleaner", "inprocess", true},
		{"s-oa-d-tr", "outbox,asynq", "dedicated", false},
		{"s-hoakc-i-g-wt-tr", "http,outbox,asynq,kafka,cleaner", "inprocess", false},
	} {
		a := answers.Answers{Name: "svc", Module: "example.com/svc", Components: answers.SplitList(x.comps), Asynq: answers.AsynqAnswers{Mode: x.mode}, Tracing: true}
		var userSQL map[string][]byte
		if x.cleaner {
			userSQL = userTableSQL
			a.Cleaners = []answers.CleanerAnswers{{Name: "old-orders", Table: "orders", Column: "created_at"}}
		}
		if x.name == "s-hoakc-i-g-wt-tr" {
			a.Workers, a.Tasks = worker, task
		}
		a = a.WithDefaults()
		if _, err := NewModel(a, userSQL); err != nil {
			return nil, fmt.Errorf("%s is refused: %w", x.name, err)
		}
		out = append(out, AcceptedService{x.name, a, userSQL})
	}
	// gRPC: alone (no Service but its own, no HTTP: the preStop comes from
	// it), beside HTTP (two servers, two drains), and with everything,
	// traced, which is the one set holding every module of the graph.
	for _, x := range []struct{ name, comps, mode string }{
		{"s-g-rpc", "grpc", ""},
		{"s-hg-rpc", "http,grpc", ""},
		{"s-hgoakc-i-g-wt-tr-rpc", "http,grpc,outbox,asynq,kafka,cleaner", "inprocess"},
	} {
		a := answers.Answers{Name: "svc", Module: "example.com/svc", Components: answers.SplitList(x.comps), Asynq: answers.AsynqAnswers{Mode: x.mode}}
		if x.mode != "" {
			a.Workers, a.Tasks, a.Tracing = worker, task, true
		}
		a = a.WithDefaults()
		if _, err := NewModel(a, nil); err != nil {
			return nil, fmt.Errorf("%s is refused: %w", x.name, err)
		}
		out = append(out, AcceptedService{x.name, a, nil})
	}
	return out, nil
}
