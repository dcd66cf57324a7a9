package answers

import (
	"slices"
	"strings"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// KindSpec is the spec side of one kind of part a service can have: what
// the answers, their defaults and the edits of gsgen add and remove need of
// it. The rest of the kind (its templates, model, ladder, deployment) is
// model.Kind's, and its Defaults and Forget are written beside it, in
// generator/model's kind_<name>.go. What stays here is what is about the
// answers as a whole: the service-wide defaults of WithDefaults (module,
// components, timeouts, the HTTP port, ci), the Default* values many
// callers read, and the rules of add and remove that join two kinds (kafka
// keeps a cleaner of processed_event, a task brings asynq, a kind's
// cleaners of its own tables go with it).
type KindSpec struct {
	Name Component // what gsgen.yaml, gsgen add and gsgen remove call it
	// Chosen says it is one of components:; the other kinds (worker, task)
	// are on when the answers list instances of them.
	Chosen bool
	// Instances is its named instances in the answers; nil for a kind that
	// has none (http, outbox, asynq).
	Instances *Instances
	// Defaults fills its unanswered answers. WithDefaults calls it, in the
	// kinds' order, for each kind the answers name: one components: lists,
	// or one of whose instances they list (a worker; a consumer, even
	// without kafka, which the model then refuses).
	Defaults func(*Answers)
	// Forget drops its answers when gsgen remove takes it out (after its
	// instances and its place in components:), or refuses with an error
	// (asynq while task types run on it); nil when it has nothing more.
	Forget func(*Answers) error
}

// kinds is every kind registered, in model.Kinds' order.
var kinds []KindSpec

// Register adds the spec side of a kind. Package generator registers each
// of its Kinds, in their order, when it is loaded: that order is the
// components' canonical order here.
func Register(k KindSpec) {
	if kindNamed(string(k.Name)) != nil {
		panic("answers: kind " + string(k.Name) + " registered twice")
	}
	kinds = append(kinds, k)
}

// kindNamed returns the kind called name, or nil.
func kindNamed(name string) *KindSpec {
	i := slices.IndexFunc(kinds, func(k KindSpec) bool { return string(k.Name) == name })
	if i < 0 {
		return nil
	}
	return &kinds[i]
}

// Components lists every component (a kind chosen in components:) in
// canonical order: the kinds' order.
func Components() []Component {
	var out []Component
	for _, k := range kinds {
		if k.Chosen {
			out = append(out, k.Name)
		}
	}
	return out
}

// ComponentNames lists every component's name, in canonical order.
func ComponentNames() []string {
	var out []string
	for _, c := range Components() {
		out = append(out, string(c))
	}
	return out
}

// UnknownComponent is the error of a component name no kind has.
func UnknownComponent(name string) error {
	return &problem.InputError{Field: "components", Msg: "unknown component " + problem.Quote(name), Fix: "choose from " + strings.Join(ComponentNames(), ",")}
}

// namedIn says whether answers a name kind k: list it in components:, or
// list instances of it.
func (k KindSpec) namedIn(a Answers) bool {
	return a.HasComponent(k.Name) || k.Instances != nil && len(k.Instances.names(a)) > 0
}

// HasComponent says whether components: lists c.
func (a Answers) HasComponent(c Component) bool {
	return slices.Contains(a.Components, string(c))
}

// ListComponent lists c in components:, once, in canonical order, and
// nothing else: a kind's defaults use it to bring another (kafka the
// cleaner); gsgen add's edit is AddComponent.
func (a *Answers) ListComponent(c Component) {
	a.Components = withComponent(a.Components, c)
}

// withComponent returns list with c added once, in canonical order.
func withComponent(list []string, c Component) []string {
	if slices.Contains(list, string(c)) {
		return list
	}
	list = append(slices.Clone(list), string(c))
	all := Components()
	slices.SortFunc(list, func(x, y string) int {
		return slices.Index(all, Component(x)) - slices.Index(all, Component(y))
	})
	return list
}

// named is a named instance in the answers: a Kafka consumer, a cleaner, a
// worker, a task type.
type named interface{ instanceName() string }

func (c ConsumerAnswers) instanceName() string { return c.Name }
func (c CleanerAnswers) instanceName() string  { return c.Name }
func (w WorkerAnswers) instanceName() string   { return w.Name }
func (t TaskAnswers) instanceName() string     { return t.Type }

func indexNamed[T named](list []T, name string) int {
	return slices.IndexFunc(list, func(x T) bool { return x.instanceName() == name })
}

// Instances is how add and remove reach a kind's named instances in the
// answers, whatever their type.
type Instances struct {
	Noun  string // "consumer"
	Field string // its key in gsgen.yaml: "kafka"
	names func(Answers) []string
	drop  func(a *Answers, name string) // removes the one called name
	clear func(a *Answers)
}

// Names lists the names of the kind's instances in a, in order.
func (in *Instances) Names(a Answers) []string { return in.names(a) }

// InstancesOf is the Instances of a kind whose instances are the list
// list gives, called noun, under key field of gsgen.yaml.
func InstancesOf[T named](noun, field string, list func(*Answers) *[]T) *Instances {
	return &Instances{Noun: noun, Field: field,
		names: func(a Answers) []string {
			var out []string
			for _, x := range *list(&a) {
				out = append(out, x.instanceName())
			}
			return out
		},
		drop: func(a *Answers, name string) {
			*list(a) = slices.DeleteFunc(slices.Clone(*list(a)), func(x T) bool { return x.instanceName() == name })
		},
		clear: func(a *Answers) { *list(a) = nil },
	}
}
