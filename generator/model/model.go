package model

import (
	"fmt"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/module"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Component is one part a service can have: answers.Component.
type Component = answers.Component

// The components, in the order they appear everywhere (flags, gsgen.yaml,
// main.go): answers' constants.
const (
	HTTP    = answers.HTTP
	Outbox  = answers.Outbox
	Asynq   = answers.Asynq
	Kafka   = answers.Kafka
	Cleaner = answers.Cleaner
)

// Model is the validated answers plus everything derived from them once:
// the templates read it and compute nothing of their own.
type Model struct {
	Name       string      // DNS-1123 label naming the binary and the Kubernetes objects
	Module     string      // Go module path
	Components []Component // chosen, canonical order

	// One flag per component, so templates say {{if .HTTP}}.
	HTTP, Outbox, Asynq, Kafka, Cleaner bool
	// GRPC is the gRPC server's settings; nil without the grpc component.
	GRPC *GRPCServer
	// Serves says a Kubernetes Service routes to the pods, as it does when a
	// kind that listens (Kind.Listens: HTTP, gRPC) is on: they get a preStop
	// sleep, for the endpoints to stop routing first.
	Serves bool

	// What the kinds need, derived once.
	UsesPostgres bool // outbox, kafka (processed events) or cleaner: one shared pgxpool
	UsesKafka    bool // outbox (writer) or kafka (readers)
	UsesRedis    bool // asynq
	// HasWorkers says gsgen runs background loops of its own (outbox relay,
	// consumers, cleaners, periodic workers). The WaitGroup and the worker
	// drain are there either way: the user's parts (internal/parts) drain
	// with them.
	HasWorkers bool
	// asynq runs in main beside HTTP (srv.Start), or in its own binary
	// cmd/<name>-worker (srv.Run); at most one is true.
	AsynqInProcess, AsynqWorker bool
	// Tracing: OpenTelemetry spans, one trace from an HTTP request through
	// the outbox and Kafka to the consumer, and into asynq tasks.
	Tracing bool

	Timeouts  Timeouts
	Ladder    Ladder
	Limits    Limits // the largest counts config.go accepts
	HTTPPort  int
	AdminPort int // the admin listener: probes and metrics, apart from the API
	// MetricsNamespace prefixes the service's Prometheus metrics: its name
	// with '_' for '-', as metric names allow.
	MetricsNamespace string
	// WorkerAdminPort is the dedicated worker's admin port when it runs beside
	// the service on one machine (make run-worker); in its own pod it uses AdminPort.
	WorkerAdminPort int
	Pool            PoolSize    // DATABASE_MAX_CONNS: what the parts sharing the pool need
	Deploy          Deploy      // the numbers of deploy/k8s and compose.yaml
	CI              *CIWorkflow // .github/workflows/ci.yml; nil with ci: none

	// Component settings; nil or empty when the component is off.
	Relay      *Relay
	Consumers  []Consumer
	Cleaners   []CleanerJob
	Workers    []WorkerJob
	TaskServer *TaskServer
	Tasks      []TaskType // the user's task types, beside the example
	Queues     []Queue    // the asynq queues, sorted by name; nil without asynq

	// EventIDHeader is the Kafka header that carries an event's id: the
	// outbox relay sets it, consumers deduplicate on it.
	EventIDHeader string
	// DeadLetterHeaders are the headers a consumer adds to a message it
	// dead-letters; nil without kafka.
	DeadLetterHeaders []DeadLetterHeader

	// Answers is the normalised answers, written back as gsgen.yaml.
	Answers answers.Answers

	userSQL  map[string][]byte // the user's migrations and queries, by path: cleaners may target their tables
	ownSQL   OwnSQL            // gsgen's own migrations and their stored schemas, which the schema is read with
	warnings []string          // what is allowed but costly, for stderr
}

// Warnings lists what the answers allow at a cost, each saying the cost:
// a task timeout above ShutdownTimeout, a cleaner no index helps.
func (m *Model) Warnings() []string { return append(m.Ladder.Warnings(), m.warnings...) }

// Warn adds a warning found after the model was derived (by a re-run that
// reads the service on disk, say), for stderr.
func (m *Model) Warn(w string) { m.warnings = append(m.warnings, w) }

// EventIDHeader is the Kafka header that carries an event's id, defined once
// for every template: the outbox relay sets it to the row's id, consumers
// deduplicate on it and dead-letter a message without a usable one.
const EventIDHeader = "event_id"

var nameRE = regexp.MustCompile(`^[a-z]([a-z0-9-]*[a-z0-9])?$`)

// New validates a (defaults already applied) and derives the model. own is
// gsgen's own SQL (generator reads it from its templates), userSQL the
// user's migrations and queries by path, which cleaners may target (nil
// for none). Every problem is an *problem.InputError naming the answer.
func New(a answers.Answers, own OwnSQL, userSQL map[string][]byte) (*Model, error) {
	if err := validateName(a.Name); err != nil {
		return nil, err
	}
	if err := module.CheckPath(a.Module); err != nil {
		return nil, &problem.InputError{Field: "module", Msg: fmt.Sprintf("%s is not a valid Go module path (%s)", problem.Quote(a.Module), problem.Shorten(unwrapModuleErr(err))),
			Fix: "use a path like example.com/" + a.Name + " or github.com/you/" + a.Name}
	}
	comps, err := parseComponents(a.Components)
	if err != nil {
		return nil, err
	}
	m := &Model{Name: a.Name, Module: a.Module, Components: comps, HTTPPort: a.HTTP.Port, EventIDHeader: EventIDHeader, Limits: limits,
		AdminPort: answers.DefaultAdminPort, WorkerAdminPort: answers.DefaultAdminPort + 1, MetricsNamespace: snake(a.Name), userSQL: userSQL, ownSQL: own}
	for _, c := range comps {
		switch c {
		case HTTP:
			m.HTTP = true
		case Outbox:
			m.Outbox = true
		case Asynq:
			m.Asynq = true
		case Kafka:
			m.Kafka = true
		case Cleaner:
			m.Cleaner = true
		}
	}
	m.Tracing = a.Tracing
	if m.HTTPPort < 1 || m.HTTPPort > 65535 {
		return nil, &problem.InputError{Field: "http.port", Msg: fmt.Sprintf("%d is not a TCP port", m.HTTPPort), Fix: "use a number from 1 to 65535, e.g. 8080"}
	}
	if err := validatePositive(a.Timeouts); err != nil {
		return nil, err
	}
	t := a.Timeouts
	m.Timeouts = Timeouts{
		PreStop: time.Duration(t.PreStop), Grace: time.Duration(t.Grace),
		HTTPShutdown: time.Duration(t.HTTPShutdown), WorkerDrain: time.Duration(t.WorkerDrain),
		AsynqShutdown: time.Duration(t.AsynqShutdown), TaskTimeout: time.Duration(t.TaskTimeout),
		CloseBudget: time.Duration(t.CloseBudget), Margin: time.Duration(t.Margin),
	}
	if err := boundedSettings(a); err != nil {
		return nil, err
	}
	// Each kind validates its answers and derives its part of the model, in
	// the kinds' order: a component when it is chosen, a kind of named
	// instances (worker, task) always, from the instances the answers list.
	for _, k := range Kinds {
		if k.derive != nil && (!k.Chosen || slices.Contains(comps, k.Name)) {
			if err := k.derive(m, a); err != nil {
				return nil, err
			}
		}
	}
	// A kind that listens on an address of its own is behind the Service.
	m.Serves = slices.ContainsFunc(m.KindsOn(), func(k *Kind) bool { return k.Listens != "" })
	m.UsesPostgres = m.needs(NeedsPostgres)
	m.UsesKafka = m.needs(NeedsKafka)
	m.UsesRedis = m.needs(NeedsRedis)
	m.leaseNeedsPostgres()
	m.HasWorkers = m.Outbox || m.Kafka || m.Cleaner || len(m.Workers) > 0
	if m.Cleaner && len(m.Cleaners) == 0 {
		return nil, &problem.InputError{Field: "cleaners", Msg: "the cleaner component has no table to clean: gsgen's own tables come with outbox (outbox_event) and kafka (processed_event)",
			Fix: "add outbox or kafka to --components, or leave cleaner out for now"}
	}
	if !m.Cleaner && len(a.Cleaners) > 0 {
		return nil, &problem.InputError{Field: "cleaners", Msg: "cleaners are listed but the cleaner component is not chosen", Fix: "add cleaner to components, or remove the cleaners list"}
	}
	if !m.Kafka && len(a.Consumers) > 0 {
		return nil, &problem.InputError{Field: "kafka", Msg: "consumers are listed but the kafka component is not chosen", Fix: "add kafka to components, or remove the kafka list"}
	}
	if m.TaskServer != nil {
		m.AsynqWorker = m.TaskServer.Dedicated
		m.AsynqInProcess = !m.TaskServer.Dedicated
	}
	m.Pool = m.poolSize()
	m.Ladder = NewLadder(m)
	if err := m.Ladder.Check(); err != nil {
		return nil, err
	}
	if m.Deploy, err = m.deploy(); err != nil {
		return nil, err
	}
	if err := m.checkDerivedNames(); err != nil {
		return nil, err
	}
	if m.CI, err = m.ciWorkflow(a.CI); err != nil {
		return nil, err
	}
	a.Components = componentNames(comps)
	m.Answers = a
	return m, nil
}

func validateName(name string) error {
	fix := "use lower-case letters, digits and '-', starting with a letter, e.g. orders or order-events"
	switch {
	case name == "":
		return &problem.InputError{Field: "name", Msg: "is empty", Fix: "pass --name or give DIR a base name"}
	case len(name) > 63:
		return &problem.InputError{Field: "name", Msg: fmt.Sprintf("%s is %d characters long; Kubernetes names allow 63", problem.Quote(name), len(name)), Fix: "choose a shorter name"}
	case strings.ContainsAny(name, `/\`) || strings.Contains(name, ".."):
		return &problem.InputError{Field: "name", Msg: problem.Quote(name) + " contains a path separator or '..'", Fix: fix}
	case strings.ToLower(name) != name:
		return &problem.InputError{Field: "name", Msg: problem.Quote(name) + " has upper-case letters; it names Kubernetes objects, which must be lower case", Fix: "use " + strings.ToLower(problem.Shorten(name))}
	case !nameRE.MatchString(name):
		return &problem.InputError{Field: "name", Msg: problem.Quote(name) + " is not a DNS-1123 label", Fix: fix}
	case token.IsKeyword(name):
		return &problem.InputError{Field: "name", Msg: problem.Quote(name) + " is a Go keyword", Fix: "choose another name, e.g. " + name + "-svc"}
	}
	return nil
}

func unwrapModuleErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

func parseComponents(names []string) ([]Component, error) {
	if len(names) == 0 {
		return nil, &problem.InputError{Field: "components", Msg: "none chosen", Fix: "choose at least one of " + strings.Join(ComponentNames(), ",")}
	}
	chosen := map[Component]bool{}
	for _, n := range names {
		c := Component(strings.TrimSpace(n))
		if !slices.Contains(AllComponents, c) {
			return nil, answers.UnknownComponent(n)
		}
		if chosen[c] {
			return nil, &problem.InputError{Field: "components", Msg: problem.Quote(string(c)) + " is listed twice", Fix: "list each component once"}
		}
		chosen[c] = true
	}
	var out []Component
	for _, c := range AllComponents {
		if chosen[c] {
			out = append(out, c)
		}
	}
	return out, nil
}

// ComponentNames lists every component's name, in canonical order.
func ComponentNames() []string { return componentNames(AllComponents) }

func componentNames(cs []Component) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

// maxTimeout bounds every timeout answer: far beyond any sensible budget,
// and small enough that the ladder's sums cannot overflow.
const maxTimeout = 24 * time.Hour

func validatePositive(t answers.TimeoutAnswers) error {
	for _, f := range answers.TimeoutFields {
		switch d := *f.Of(&t); {
		case d <= 0:
			return &problem.InputError{Field: "timeouts." + f.Key, Msg: fmt.Sprintf("%v must be positive", d), Fix: "give a duration greater than zero, e.g. " + f.Of(&answers.DefaultTimeouts).String()}
		case time.Duration(d) > maxTimeout:
			return &problem.InputError{Field: "timeouts." + f.Key, Msg: fmt.Sprintf("%v is longer than %v", d, problem.Seconds(maxTimeout)), Fix: "a shutdown budget is seconds or minutes, e.g. " + f.Of(&answers.DefaultTimeouts).String()}
		}
	}
	return nil
}

// DrainedParts names the parts that step 3 of the shutdown drains in
// parallel, as the service's log names them ("drained http").
func (m *Model) DrainedParts() []string {
	var out []string
	if m.HTTP {
		out = append(out, "http")
	}
	if m.GRPC != nil {
		out = append(out, "grpc")
	}
	// The Run loops and the user's parts: always, as internal/parts may
	// start some.
	out = append(out, "workers")
	if m.AsynqInProcess {
		out = append(out, "asynq")
	}
	return out
}

// ClosedParts names the clients that step 4 of the shutdown closes side by
// side, before the pool and the admin listener, as the log names them.
func (m *Model) ClosedParts() []string {
	var out []string
	if m.Outbox {
		out = append(out, "kafka writer")
	}
	for _, c := range m.Consumers {
		out = append(out, "kafka reader "+c.Name)
	}
	if m.Kafka {
		out = append(out, "kafka dead-letter writer")
	}
	if m.Asynq {
		out = append(out, "asynq client")
	}
	if m.Tracing {
		out = append(out, "tracer")
	}
	return out
}
