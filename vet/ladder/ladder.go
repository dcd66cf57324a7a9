// Package ladder checks Kubernetes manifests against the shutdown durations
// a Go service's code sets: for every Deployment, StatefulSet, DaemonSet or
// Pod, its terminationGracePeriodSeconds must hold its preStop sleep, the
// longest drain of the binary it runs, the close budget and a margin (the
// ladder of gsgen's design, §6), and a break is reported in the words of
// gsgen plan.
package ladder

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
	"gopkg.in/yaml.v3"

	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/vet"
	"github.com/gsgen-dev/gsgen/vet/internal/ignore"
)

// kubernetesDefaultGrace is terminationGracePeriodSeconds when a pod spec
// leaves it out.
const kubernetesDefaultGrace = 30 * time.Second

// manifest is one YAML file of the manifests directory.
type manifest struct {
	name       string
	docs       []*yaml.Node // each document's top mapping
	directives []directive
}

// directive is one # gsgen:ignore comment of a manifest.
type directive struct {
	line             int // the line it silences
	writtenLine, col int // where it is
	rule, problem    string
}

// envValue is an environment variable's value in a manifest.
type envValue struct {
	value string
	pos   token.Position
}

// workload is a pod spec read from a Deployment, StatefulSet, DaemonSet or Pod.
type workload struct {
	file       *manifest
	kind, name string
	spec       *yaml.Node     // the pod spec
	at         token.Position // where the pod spec starts
	grace      *yaml.Node     // terminationGracePeriodSeconds, or nil
	containers []container
}

type container struct {
	names      []string // what may name its binary: the command's base name, the container's name
	preStop    time.Duration
	configMaps []string
	env        map[string]envValue
}

// Check compares the grace period and preStop sleep of every workload in
// the manifests under dir with the ladder of the binary it runs: the drains
// that binary does (read from the main packages among pkgs), with the
// durations the ConfigMap, the config's defaults or the code's constants
// give them. Broken YAML or an unreadable dir is a *problem.InputError.
func Check(dir string, pkgs []*packages.Package) ([]vet.Finding, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // positions like the Go code's, so that findings sort by file
	}
	files, err := readManifests(dir)
	if err != nil {
		return nil, err
	}
	code := readCode(pkgs)
	configMaps := map[string]map[string]envValue{}
	var workloads []workload
	var findings []vet.Finding
	for _, m := range files {
		for _, d := range m.directives {
			if d.problem != "" {
				findings = append(findings, vet.Finding{Pos: position(m.name, d.writtenLine, d.col), Rule: vet.Ignore.Name, Message: d.problem})
			}
		}
		for _, doc := range m.docs {
			kind, name := scalar(get(doc, "kind")), scalar(get(doc, "metadata", "name"))
			switch kind {
			case "ConfigMap":
				configMaps[name] = entries(m.name, get(doc, "data"))
			case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet":
				workloads = append(workloads, readWorkload(m, kind, name, get(doc, "spec", "template"), "spec"))
			case "Pod":
				workloads = append(workloads, readWorkload(m, kind, name, doc, "spec"))
			}
		}
	}
	for _, w := range workloads {
		for _, f := range code.check(w, configMaps) {
			if !w.file.silenced(f) {
				findings = append(findings, f)
			}
		}
	}
	return findings, nil
}

// MaxManifest is the most gsgen vet reads of one manifest file: far above a
// real one (the API server stores objects of about 1.5 MiB at most).
const MaxManifest = 8 << 20

// readManifests parses every .yaml and .yml file under dir.
func readManifests(dir string) ([]*manifest, error) {
	var files []*manifest
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml") {
			return nil
		}
		// A regular file under a cap, never through a link: a FIFO named
		// x.yaml would block, a link to /dev/zero would never end.
		data, err := servicedir.ReadRegularFile(p, MaxManifest, "--manifests reads only regular .yaml files of at most 8 MiB, never through a link: move it out of the directory")
		if err != nil {
			return err
		}
		m := &manifest{name: p, directives: yamlDirectives(data)}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var doc yaml.Node
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return &problem.InputError{Field: p, Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
			}
			if len(doc.Content) > 0 && doc.Content[0].Kind == yaml.MappingNode {
				m.docs = append(m.docs, doc.Content[0])
			}
		}
		files = append(files, m)
		return nil
	})
	if err != nil {
		if errors.As(err, new(*problem.InputError)) || errors.As(err, new(*problem.IOError)) {
			return nil, err // already names the file
		}
		return nil, &problem.InputError{Field: "--manifests", Msg: err.Error(), Fix: "give a directory of Kubernetes manifests, such as deploy/k8s"}
	}
	if len(files) == 0 {
		return nil, &problem.InputError{Field: "--manifests", Msg: dir + " holds no .yaml files", Fix: "give a directory of Kubernetes manifests, such as deploy/k8s"}
	}
	return files, nil
}

// yamlDirectives reads the # gsgen:ignore comments of a YAML file.
func yamlDirectives(data []byte) []directive {
	lines := bytes.Split(data, []byte("\n"))
	var ds []directive
	for i, l := range lines {
		at := bytes.IndexByte(l, '#')
		if at < 0 || (at > 0 && l[at-1] != ' ' && l[at-1] != '\t') {
			continue
		}
		rule, problem, ok := ignore.Parse(string(l[at+1:]), true)
		if ok {
			ds = append(ds, directive{line: ignore.Target(lines, i+1, at+1, "#"), writtenLine: i + 1, col: at + 1, rule: rule, problem: problem})
		}
	}
	return ds
}

// silenced reports whether a directive of the file silences f.
func (m *manifest) silenced(f vet.Finding) bool {
	for _, d := range m.directives {
		if d.problem == "" && d.rule == f.Rule && d.line == f.Pos.Line {
			return true
		}
	}
	return false
}

// readWorkload reads the pod spec under key of parent.
func readWorkload(m *manifest, kind, name string, parent *yaml.Node, key string) workload {
	k, spec := lookup(parent, key)
	w := workload{file: m, kind: kind, name: name, spec: spec, grace: get(spec, "terminationGracePeriodSeconds")}
	if k != nil {
		w.at = position(m.name, k.Line, k.Column)
	}
	cs := get(spec, "containers")
	if cs == nil {
		return w
	}
	for _, c := range cs.Content {
		ct := container{env: map[string]envValue{}}
		if cmd := get(c, "command"); cmd != nil && len(cmd.Content) > 0 {
			ct.names = append(ct.names, filepath.Base(cmd.Content[0].Value))
		}
		ct.names = append(ct.names, scalar(get(c, "name")))
		ct.preStop = preStopSleep(get(c, "lifecycle", "preStop"))
		if from := get(c, "envFrom"); from != nil {
			for _, f := range from.Content {
				if ref := scalar(get(f, "configMapRef", "name")); ref != "" {
					ct.configMaps = append(ct.configMaps, ref)
				}
			}
		}
		if env := get(c, "env"); env != nil {
			for _, e := range env.Content {
				if v := get(e, "value"); v != nil {
					ct.env[scalar(get(e, "name"))] = envValue{v.Value, position(m.name, v.Line, v.Column)}
				}
			}
		}
		w.containers = append(w.containers, ct)
	}
	return w
}

// preStopSleep is how long a preStop hook sleeps: the native sleep action,
// or an exec of sleep N.
func preStopSleep(hook *yaml.Node) time.Duration {
	if s := get(hook, "sleep", "seconds"); s != nil {
		n, _ := strconv.ParseInt(s.Value, 10, 64)
		return time.Duration(n) * time.Second
	}
	cmd := get(hook, "exec", "command")
	if cmd == nil {
		return 0
	}
	var words []string
	for _, c := range cmd.Content {
		words = append(words, strings.Fields(c.Value)...)
	}
	for i, w := range words {
		if filepath.Base(w) == "sleep" && i+1 < len(words) {
			if n, err := strconv.ParseFloat(strings.TrimSuffix(words[i+1], "s"), 64); err == nil {
				return time.Duration(n * float64(time.Second))
			}
		}
	}
	return 0
}

// entries reads a ConfigMap's data.
func entries(file string, data *yaml.Node) map[string]envValue {
	out := map[string]envValue{}
	if data == nil || data.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(data.Content); i += 2 {
		v := data.Content[i+1]
		out[data.Content[i].Value] = envValue{v.Value, position(file, v.Line, v.Column)}
	}
	return out
}

// check builds the ladder of one workload and reports where it breaks.
func (c *shutdownCode) check(w workload, configMaps map[string]map[string]envValue) []vet.Finding {
	ct, bin := c.binaryOf(w)
	env := map[string]envValue{}
	for _, ref := range ct.configMaps {
		maps.Copy(env, configMaps[ref])
	}
	maps.Copy(env, ct.env)

	var findings []vet.Finding
	value := func(v drainVar) (setting, bool) {
		key := v.env
		if c.answers != nil {
			key = v.answer
		}
		if e, ok := env[v.env]; ok {
			d, err := time.ParseDuration(e.value)
			if err == nil {
				return setting{d: d, pos: e.pos, key: key}, true
			}
			findings = append(findings, vet.Finding{Pos: e.pos, Rule: vet.LadderRule, Message: fmt.Sprintf("%s: %q is not a duration, so the service refuses to start; use Go syntax such as 25s", v.env, e.value)})
		}
		if s, ok := c.defaults[v.env]; ok {
			s.key = key
			return s, true
		}
		s, ok := bin.constant[v]
		return s, ok
	}

	l := model.Ladder{PreStop: ct.preStop, Margin: defaultMargin, Close: defaultClose, Grace: kubernetesDefaultGrace}
	if c.answers != nil {
		l.Margin, l.Close = time.Duration(c.answers.Timeouts.Margin), time.Duration(c.answers.Timeouts.CloseBudget)
	}
	if s, ok := value(closeBudget); ok {
		l.Close = s.d
	}
	for _, v := range bin.drains {
		if s, ok := value(v); ok {
			l.Drains = append(l.Drains, model.Drain{Name: v.name, Key: s.key, D: s.d})
		}
	}
	pos, prefix := w.at, "terminationGracePeriodSeconds is not set, so Kubernetes gives "+w.kind+" "+w.name+" 30s: "
	if w.grace != nil {
		n, err := strconv.ParseInt(w.grace.Value, 10, 64)
		if err != nil {
			return append(findings, vet.Finding{Pos: position(w.file.name, w.grace.Line, w.grace.Column), Rule: vet.LadderRule, Message: fmt.Sprintf("terminationGracePeriodSeconds: %q is not a whole number of seconds", w.grace.Value)})
		}
		l.Grace = time.Duration(n) * time.Second
		pos, prefix = position(w.file.name, w.grace.Line, w.grace.Column), w.kind+" "+w.name+": "
	}
	var broken *model.LadderError
	if errors.As(l.Check(), &broken) {
		findings = append(findings, vet.Finding{Pos: pos, Rule: vet.LadderRule, Message: prefix + broken.Error()})
	}
	// The service checks its own ladder at start against the grace period
	// and preStop sleep its environment says: they must be what Kubernetes
	// really does, or the check passes on numbers the pod never gets.
	told := []struct {
		env, what string
		real      time.Duration
	}{
		{"TERMINATION_GRACE_PERIOD", "terminationGracePeriodSeconds", l.Grace},
		{"PRESTOP_SLEEP", "preStop sleep", ct.preStop},
	}
	if _, ok := env["WORKER_TERMINATION_GRACE_PERIOD"]; ok && slices.ContainsFunc(ct.names, func(n string) bool { return strings.HasSuffix(n, "-worker") }) {
		// gsgen's dedicated asynq worker (cmd/<name>-worker): nothing routes
		// to it, and it checks its own grace period, not the main binary's.
		told = told[:1]
		told[0].env = "WORKER_TERMINATION_GRACE_PERIOD"
	}
	for _, told := range told {
		e, ok := env[told.env]
		if d, err := time.ParseDuration(e.value); ok && err == nil && d != told.real {
			findings = append(findings, vet.Finding{Pos: e.pos, Rule: vet.LadderRule, Message: fmt.Sprintf(
				"%s: %q, but %s %s's %s is %s: the service checks its shutdown against numbers Kubernetes does not give it; make them the same",
				told.env, e.value, w.kind, w.name, told.what, problem.Seconds(told.real))})
		}
	}
	return findings
}

// binaryOf picks the container whose binary the code builds, and what that
// binary drains. When no container's command or name matches a main
// package, one main package is taken to be it; with several, or none
// loaded, the ladder holds every drain the code has.
func (c *shutdownCode) binaryOf(w workload) (container, *binary) {
	for _, ct := range w.containers {
		for _, n := range ct.names {
			if b, ok := c.binaries[n]; ok {
				return ct, b
			}
		}
	}
	var ct container
	if len(w.containers) > 0 {
		ct = w.containers[0]
	}
	if len(c.binaries) == 1 {
		for _, b := range c.binaries {
			return ct, b
		}
	}
	all := &binary{drains: drainVars, constant: map[drainVar]setting{}}
	for _, b := range c.binaries {
		maps.Copy(all.constant, b.constant)
	}
	return ct, all
}

// get walks a mapping node along keys; nil when a key is missing.
func get(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		_, n = lookup(n, k)
	}
	return n
}

// lookup is the key node and the value node of key in a mapping node.
func lookup(n *yaml.Node, key string) (k, v *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

func position(file string, line, col int) token.Position {
	return token.Position{Filename: file, Line: line, Column: col}
}
