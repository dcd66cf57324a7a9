package model

import (
	"slices"
	"strconv"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/internal/golit"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Kind is one kind of part a service can have (a component, or a part
// listed by name as workers and tasks are), complete in its own
// kind_<name>.go: its model type, and through its hooks its defaults and
// remove edits (package answers reaches them through the answers.KindSpec
// registerKinds gives it), its derivation and validation, the template
// folders plan renders when it is on (its _item_ files once per named
// instance), its drains and bounds on the ladder, the variables its config
// reads, the limits of its numbers, its pool share, names and topics, its
// dashboard panels and alerts, its flags of gsgen new and add, and its
// interview questions. Package answers keeps only what is about the
// answers as a whole: the service-wide defaults (module, components,
// timeouts, the HTTP port, ci), the Default* values, and the rules of add
// and remove that join two kinds. A new kind is one entry in Kinds, its
// kind_<name>.go, its template folder (a template named *.user.tmpl gives
// a file the user owns; *.blocks.tmpl holds its named pieces of main.go,
// config.go and the README), and the lines of main.go.tmpl, config.go.tmpl
// and README.md.tmpl that place those pieces: main.go.tmpl is the one place
// where the start and stop order is written.
type Kind struct {
	Name Component // what gsgen.yaml, gsgen add and gsgen remove call it
	// Chosen says it is one of components:; the other kinds (worker, task)
	// are on when the answers list instances of them.
	Chosen bool
	What   string   // one line, for help and prompts
	Menu   string   // a component's line in gsgen new's menu of components
	Dirs   []string // its template folders under templates/
	Needs  []Need   // the servers it talks to
	// Listens is the variable of the address it serves on (HTTP_ADDR), if
	// it serves: a Service routes to the pods (Model.Serves, and with it a
	// preStop sleep), and the service's own tests give it a free port.
	Listens string
	// Instances is its named instances in the answers; nil for a kind that
	// has none (http, outbox, asynq).
	Instances *answers.Instances
	on        func(*Model) bool
	items     func(*Model) []Instance         // what its _item_ templates render for
	drains    func(*Model) []Drain            // drains of its own in step 3; the Run loops share the worker drain
	bounds    func(*Model) []Bound            // its timeouts that must fit in a drain
	env       func(*Model) []EnvVar           // the variables config.go reads for it
	settings  func(answers.Answers) []setting // its numbers, held to their limits
	// defaults fills its unanswered answers when the answers name it (list
	// it in components:, or list instances of it), in the kinds' order:
	// after the earlier kinds' defaults, whose answers it may read; derive
	// validates them and sets its part of the model, before anything that
	// asks which kinds are on.
	defaults func(*answers.Answers)
	derive   func(*Model, answers.Answers) error
	flags    []KindFlag           // its answers as flags of gsgen new and add
	panels   func(*Model) []Panel // its graphs on the service's dashboard
	alerts   func(*Model) []Alert // its alerting rules
	// forget drops its answers when gsgen remove takes it out, or refuses
	// with an error.
	forget func(*answers.Answers) error
	pool   func(*Model) []poolShare // its PostgreSQL connections (DATABASE_MAX_CONNS)
	// names lists the names it derives from answers that must not collide
	// (Go names, SQL queries, Kafka groups), beside the environment
	// variables every kind's env gives.
	names func(*Model) []derived
	// topics lists the Kafka topics it writes and reads (the manifests'
	// topic list); periodic its periodic parts (gsgen plan's table, and
	// their leases); deploy sets its pieces of the deployment beyond its
	// variables (a Deployment of its own).
	topics   func(*Model) []string
	periodic func(*Model) []Periodic
	deploy   func(*Model, *Deploy)
	// ask asks its answers at the prompt, when it is chosen (Kind.Ask);
	// addQuestions and newInstance make a new named instance at gsgen add's
	// prompt (Kind.AddQuestions, Kind.AddInstance), whose name's help is
	// NameHelp.
	ask          func(iv Interview, adding bool) error
	addQuestions func(iv Interview, i int, service *Model) []Question
	newInstance  func(a answers.Answers, name string) (answers.Answers, error)
	NameHelp     string
	// addFlags are the flags of gsgen add KIND NAME, from which fromFlags
	// builds the new instance (Kind.AddFlags, Kind.AddFromFlags);
	// AddExample is a whole such command.
	addFlags   []AddFlag
	fromFlags  func(a answers.Answers, name string, f AddFlagValues) (answers.Answers, error)
	AddExample string
}

// Need is a server a kind talks to: the service gets its client, config and
// deploy pieces when one of its kinds needs it.
type Need int

// The servers.
const (
	NeedsPostgres Need = iota
	NeedsKafka
	NeedsRedis
)

// Kinds lists every kind in the order the service's files, config and
// ladder list them.
var Kinds = []*Kind{
	httpKind,
	outboxKind,
	asynqKind,
	kafkaKind,
	cleanerKind,
	workerKind,
	taskKind,
	grpcKind, // after the kinds of earlier gsgens: their menu numbers and orders stay as they were
}

// AllComponents lists every component (a kind chosen in components:) in
// canonical order: the kinds' order, as package answers has them.
var AllComponents = registerKinds()

// registerKinds gives package answers the spec side of every kind (its
// name, named instances, defaults and forget) in the kinds' order, once,
// before anything of generator's reads AllComponents: WithDefaults and the
// edits of add and remove reach the kinds through it.
func registerKinds() []Component {
	for _, k := range Kinds {
		answers.Register(answers.KindSpec{Name: k.Name, Chosen: k.Chosen, Instances: k.Instances, Defaults: k.defaults, Forget: k.forget})
	}
	return answers.Components()
}

// KindNamed returns the kind called name, or nil.
func KindNamed(name string) *Kind {
	i := slices.IndexFunc(Kinds, func(k *Kind) bool { return string(k.Name) == name })
	if i < 0 {
		return nil
	}
	return Kinds[i]
}

// KindNames lists the names of every kind gsgen add takes.
func KindNames() []string {
	out := make([]string, len(Kinds))
	for i, k := range Kinds {
		out[i] = string(k.Name)
	}
	return out
}

// KindsOn lists the kinds the model's service has, in order.
func (m *Model) KindsOn() []*Kind {
	return slices.DeleteFunc(slices.Clone(Kinds), func(k *Kind) bool { return !k.on(m) })
}

// Listener is the variable of an address the service listens on, for its
// own tests; Taken marks the one a test points at a port already in use.
type Listener struct {
	Var   string
	Taken bool
}

// Listeners are the addresses the service listens on: the admin
// listener's, then each serving kind's in the kinds' order, the one named
// taken marked (none for "").
func (m *Model) Listeners(taken string) []Listener {
	out := []Listener{{Var: "ADMIN_ADDR", Taken: taken == "ADMIN_ADDR"}}
	for _, k := range m.KindsOn() {
		if k.Listens != "" {
			out = append(out, Listener{Var: k.Listens, Taken: taken == k.Listens})
		}
	}
	return out
}

// placed lists the kinds that are on, and the extra pieces that are (as the
// leases', no one kind's), in order: those it names first, as it lists
// them, then the others in the kinds' order.
func (m *Model) placed(order []Component, extra ...*Kind) []*Kind {
	ks := append(m.KindsOn(), extra...)
	ks = slices.DeleteFunc(ks, func(k *Kind) bool { return !k.on(m) })
	place := func(k *Kind) int {
		if i := slices.Index(order, k.Name); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(ks, func(a, b *Kind) int { return place(a) - place(b) })
	return ks
}

// InstancesOf lists the named instances of k the model's service has (what
// its _item_ templates render for); nil for a kind without any.
func (k *Kind) InstancesOf(m *Model) []Instance {
	if k.items == nil {
		return nil
	}
	return k.items(m)
}

// needs says whether a kind the service has talks to server n.
func (m *Model) needs(n Need) bool {
	return slices.ContainsFunc(m.KindsOn(), func(k *Kind) bool { return slices.Contains(k.Needs, n) })
}

// instances turns a slice of named instances into []Instance.
func instances[T Instance](list []T) []Instance {
	out := make([]Instance, len(list))
	for i, x := range list {
		out[i] = x
	}
	return out
}

// Pieces more than one kind uses.

// leaseEnv is the variable of a fleet part's lease: its TTL.
func leaseEnv(prefix string, l *Lease, from string) []EnvVar {
	if l == nil {
		return nil
	}
	return []EnvVar{durationVar(prefix+"LEASE_TTL", l.TTL, from+"lease_ttl")}
}

// setLeaseDefaults fills a periodic part's scope (fleet) and, in fleet
// scope, its lease's TTL. Replica scope has no lease: a lease_ttl left in
// gsgen.yaml by a part that was fleet-scoped is dropped.
func setLeaseDefaults(scope *string, ttl *answers.Duration) {
	answers.SetDefault(scope, answers.ScopeFleet)
	switch *scope {
	case answers.ScopeFleet:
		answers.SetDefault(ttl, answers.Duration(answers.DefaultLeaseTTL))
	case answers.ScopeReplica:
		*ttl = 0
	}
}

// leaseSetting bounds a part's lease TTL where the answers give one.
func leaseSetting(field string, ttl answers.Duration) []setting {
	if ttl == 0 {
		return nil
	}
	return []setting{duration(field, ttl, maxLeaseTTL)}
}

// durationVar, countVar, boolVar and textVar make a variable holding a
// value of their type: as the environment spells it, and as config.go's
// constant.
func durationVar(name string, d time.Duration, from string) EnvVar {
	return EnvVar{Name: name, Value: problem.Seconds(d), From: from, Go: golit.Duration(d)}
}

func countVar(name string, n int, from string) EnvVar {
	return EnvVar{Name: name, Value: strconv.Itoa(n), From: from, Go: strconv.Itoa(n)}
}

func boolVar(name string, b bool, from string) EnvVar {
	return EnvVar{Name: name, Value: strconv.FormatBool(b), From: from, Go: strconv.FormatBool(b)}
}

func textVar(name, s, from string) EnvVar {
	return EnvVar{Name: name, Value: s, From: from, Go: strconv.Quote(s)}
}
