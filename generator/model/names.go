package model

// The checks on the names the model derives from the answers, before
// anything is rendered; the checks on the rendered Go are renderedgo.go's.

import (
	"fmt"
	"slices"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// maxKubernetesName is the length of a DNS-1123 label: the most a
// Kubernetes object, container or label value may have.
const maxKubernetesName = 63

// derived is one name gsgen derives from an answer.
type derived struct {
	kind  string // what the name is: "Go name", "SQL query", "environment variable", "Kafka group"
	name  string
	field string // the answer it comes from: "kafka[1].name"
	value string // what that answer is
}

// checkDerivedNames refuses answers whose derived names collide once
// mapped (consumers events2 and events-2 both become Events2Consumer) and
// Kubernetes names longer than a label allows, naming the answers.
// Environment variables map names one to one (only '-' becomes '_'), so
// distinct names keep them distinct; they are checked all the same, as are
// file paths (by Plan), so that a new template or suffix cannot slip a
// collision in.
func (m *Model) checkDerivedNames() error {
	var names []derived
	for _, k := range m.KindsOn() {
		if k.names != nil {
			names = append(names, k.names(m)...)
		}
	}
	for _, e := range m.Deploy.Config {
		names = append(names, derived{"environment variable", e.Name, e.From, e.Name})
	}
	seen := map[[2]string]derived{}
	for _, n := range names {
		key := [2]string{n.kind, n.name}
		if first, ok := seen[key]; ok {
			return &problem.InputError{Field: n.field, Msg: fmt.Sprintf("%s and %s %s both become the %s %s", problem.Quote(n.value), first.field, problem.Quote(first.value), n.kind, problem.Quote(n.name)),
				Fix: "rename one of them"}
		}
		seen[key] = n
	}
	return m.checkKubernetesNames()
}

// checkKubernetesNames refuses a service name whose Kubernetes names (the
// name with suffixes such as -worker or -postgres) pass 63 characters.
func (m *Model) checkKubernetesNames() error {
	longest := slices.MaxFunc(m.KubernetesNames(), func(a, b string) int { return len(a) - len(b) })
	if len(longest) <= maxKubernetesName {
		return nil
	}
	return &problem.InputError{Field: "name", Msg: fmt.Sprintf("%s gives the Kubernetes name %s, %d characters long; Kubernetes allows %d", problem.Quote(m.Name), problem.Quote(longest), len(longest), maxKubernetesName),
		Fix: fmt.Sprintf("use a name of at most %d characters", maxKubernetesName-(len(longest)-len(m.Name)))}
}

// KubernetesNames lists the names deploy/k8s gives objects, containers and
// label values: the service's name, alone and with its suffixes. A test
// (TestKubernetesNamesAreAllListed) reads every name in the rendered
// manifests against this list.
func (m *Model) KubernetesNames() []string {
	names := []string{m.Name, m.Name + "-config"}
	for _, s := range m.Deploy.Secrets {
		names = append(names, s.Secret)
	}
	if k := m.Deploy.KafkaLoginSecret; k != "" {
		names = append(names, k)
	}
	if w := m.Deploy.Worker; w != nil {
		names = append(names, w.Name)
	}
	return names
}
