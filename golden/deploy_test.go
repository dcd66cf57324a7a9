package golden

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/model"
)

// The deploy tests read each golden service's deploy/k8s and compose.yaml
// and hold them against two other sources: the model built from the
// preset's answers, and the environment variables the service's own
// internal/config/config.go reads.

// kustomization is the part of kustomize's Kustomization the base uses;
// decoding into it strictly fails on any other field.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
}

// manifests is deploy/k8s of one golden service, decoded strictly.
type manifests struct {
	deployments map[string]*appsv1.Deployment // by file name
	services    []*corev1.Service
	configMaps  []*corev1.ConfigMap
	secrets     map[string]*corev1.Secret // by file name
	pdbs        []*policyv1.PodDisruptionBudget
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	kustomize   *kustomization
}

func TestDeployManifests(t *testing.T) {
	for _, p := range presets(t) {
		t.Run(p.name, func(t *testing.T) {
			m := presetModel(t, p)
			k := readManifests(t, filepath.Join(p.tree, "deploy", "k8s"))
			server := k.deployments["deployment.yaml"]
			if server == nil {
				t.Fatal("no deployment.yaml")
			}
			checkServer(t, m, server)
			checkWorker(t, m, k.deployments["worker-deployment.yaml"])
			cm := checkConfigMap(t, m, k, p.tree)
			for _, d := range k.deployments {
				checkPodConfig(t, d, cm, k.secrets)
				checkSecurity(t, d)
			}
			checkServiceAndPDBs(t, m, k)
			checkAutoscaler(t, m, k)
		})
	}
}

// checkAutoscaler: an HTTP service scales on CPU from the replicas a drain
// needs, and its Deployment leaves the replica count to the autoscaler;
// without HTTP, nothing scales on CPU.
func checkAutoscaler(t *testing.T, m *model.Model, k manifests) {
	t.Helper()
	server := k.deployments["deployment.yaml"]
	if !m.HTTP {
		if len(k.hpas) != 0 || server.Spec.Replicas == nil || int(*server.Spec.Replicas) != m.Deploy.Replicas {
			t.Errorf("without HTTP: %d autoscalers and replicas %v, want none and %d", len(k.hpas), server.Spec.Replicas, m.Deploy.Replicas)
		}
		return
	}
	if len(k.hpas) != 1 {
		t.Fatalf("%d HorizontalPodAutoscalers, want 1", len(k.hpas))
	}
	h := k.hpas[0]
	if h.Spec.ScaleTargetRef.Kind != "Deployment" || h.Spec.ScaleTargetRef.Name != server.Name {
		t.Errorf("the autoscaler scales %s %s, want Deployment %s", h.Spec.ScaleTargetRef.Kind, h.Spec.ScaleTargetRef.Name, server.Name)
	}
	if h.Spec.MinReplicas == nil || int(*h.Spec.MinReplicas) != m.Deploy.Replicas || h.Spec.MaxReplicas < *h.Spec.MinReplicas {
		t.Errorf("replicas %v to %d, want from %d", h.Spec.MinReplicas, h.Spec.MaxReplicas, m.Deploy.Replicas)
	}
	if len(h.Spec.Metrics) != 1 || h.Spec.Metrics[0].Resource == nil || h.Spec.Metrics[0].Resource.Name != corev1.ResourceCPU {
		t.Errorf("metrics %+v, want CPU only", h.Spec.Metrics)
	}
	if server.Spec.Replicas != nil {
		t.Errorf("the Deployment sets replicas %d: every kubectl apply would undo the autoscaler", *server.Spec.Replicas)
	}
}

// presetModel builds the model from the preset's answers, as gsgen does.
func presetModel(t *testing.T, p preset) *model.Model {
	t.Helper()
	m, err := generator.NewModel(presetAnswers(t, p))
	if err != nil {
		t.Fatalf("the preset's ladder or answers do not hold: %v", err)
	}
	return m
}

func readManifests(t *testing.T, dir string) manifests {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s: %v", dir, err)
	}
	k := manifests{deployments: map[string]*appsv1.Deployment{}, secrets: map[string]*corev1.Secret{}}
	var applied []string
	for _, f := range files {
		name := filepath.Base(f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var kind struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(data, &kind); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var obj any
		switch kind.APIVersion + " " + kind.Kind {
		case "apps/v1 Deployment":
			obj = put(k.deployments, name)
		case "v1 Service":
			obj = add(&k.services)
		case "v1 ConfigMap":
			obj = add(&k.configMaps)
		case "v1 Secret":
			obj = put(k.secrets, name)
		case "policy/v1 PodDisruptionBudget":
			obj = add(&k.pdbs)
		case "autoscaling/v2 HorizontalPodAutoscaler":
			obj = add(&k.hpas)
		case "kustomize.config.k8s.io/v1beta1 Kustomization":
			k.kustomize = &kustomization{}
			obj = k.kustomize
		default:
			t.Errorf("%s: unexpected kind %q %q", name, kind.APIVersion, kind.Kind)
			continue
		}
		// Strict: an unknown or misspelt field, or one given twice, is an error.
		if err := yaml.UnmarshalStrict(data, obj); err != nil {
			t.Errorf("%s does not decode strictly into %T: %v", name, obj, err)
		}
		if name != "kustomization.yaml" && !strings.HasSuffix(name, ".example.yaml") {
			applied = append(applied, name)
		}
	}
	if k.kustomize == nil {
		t.Fatal("no kustomization.yaml")
	}
	// The examples stay out; everything else is applied.
	if got := slices.Sorted(slices.Values(k.kustomize.Resources)); !slices.Equal(got, applied) {
		t.Errorf("kustomization.yaml lists %v, want every manifest but the examples: %v", got, applied)
	}
	if len(k.configMaps) != 1 {
		t.Fatalf("%d ConfigMaps, want 1", len(k.configMaps))
	}
	return k
}

// add appends a new T to list and returns it, for decoding into.
func add[T any](list *[]*T) *T {
	v := new(T)
	*list = append(*list, v)
	return v
}

// put stores a new T under name and returns it, for decoding into.
func put[T any](m map[string]*T, name string) *T {
	v := new(T)
	m[name] = v
	return v
}

// TestStrictDecodingRejectsUnknownFields proves the decoder the tests rely on
// is strict.
func TestStrictDecodingRejectsUnknownFields(t *testing.T) {
	bad := []byte("apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      terminationGracePeriod: 60\n")
	if err := yaml.UnmarshalStrict(bad, &appsv1.Deployment{}); err == nil {
		t.Fatal("a misspelt field decoded without an error")
	}
}

func secondsOf(t *testing.T, what string, d time.Duration) int64 {
	t.Helper()
	if d%time.Second != 0 {
		t.Fatalf("%s %v is not whole seconds: NewModel should have refused it", what, d)
	}
	return int64(d / time.Second)
}

func checkServer(t *testing.T, m *model.Model, d *appsv1.Deployment) {
	spec := d.Spec.Template.Spec
	if got, want := ptrValue(spec.TerminationGracePeriodSeconds), secondsOf(t, "grace", m.Timeouts.Grace); got != want {
		t.Errorf("terminationGracePeriodSeconds %d, want the grace answer %d", got, want)
	}
	c := onlyContainer(t, d)
	switch {
	case !m.HTTP:
		// No Service routes to it: a sleep would only slow every rollout.
		if c.Lifecycle != nil {
			t.Error("a service without HTTP has no Service in front of it: it wants no preStop")
		}
	case c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil:
		t.Fatal("no native preStop sleep")
	case c.Lifecycle.PreStop.Exec != nil:
		t.Error("an exec preStop: distroless has no sleep binary")
	default:
		if got, want := c.Lifecycle.PreStop.Sleep.Seconds, secondsOf(t, "prestop", m.Timeouts.PreStop); got != want {
			t.Errorf("preStop sleep %ds, want the prestop answer %ds", got, want)
		}
	}
	checkMemoryLimit(t, d)
	checkMigrations(t, m, d)
	for _, probe := range []struct {
		name string
		p    *corev1.Probe
		path string
	}{{"readiness", c.ReadinessProbe, "/readyz"}, {"liveness", c.LivenessProbe, "/healthz"}} {
		if probe.p == nil || probe.p.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", probe.name)
			continue
		}
		if probe.p.HTTPGet.Path != probe.path {
			t.Errorf("%s probe on %s, want %s", probe.name, probe.p.HTTPGet.Path, probe.path)
		}
		// The admin listener answers until the process exits: the probes
		// never see a draining pod as dead.
		if got := containerPort(t, c, probe.p.HTTPGet.Port); got != int32(m.AdminPort) {
			t.Errorf("%s probe on port %d, want the admin port %d", probe.name, got, m.AdminPort)
		}
	}
}

// checkMigrations: a pod of a service with PostgreSQL applies the pending
// migrations with its own image before its container starts.
func checkMigrations(t *testing.T, m *model.Model, d *appsv1.Deployment) {
	t.Helper()
	inits := d.Spec.Template.Spec.InitContainers
	if !m.UsesPostgres {
		if len(inits) != 0 {
			t.Errorf("%s: init containers %v without a database", d.Name, inits)
		}
		return
	}
	if len(inits) != 1 || inits[0].Image != onlyContainer(t, d).Image || !slices.Equal(inits[0].Args, []string{"migrate", "up"}) || inits[0].Command != nil {
		t.Errorf("%s: init containers %+v, want one running the image's migrate up", d.Name, inits)
	}
}

// checkMemoryLimit: the pod passes its memory limit to the service (which
// sets the Go runtime's soft limit from it) through the Downward API.
func checkMemoryLimit(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	for _, e := range onlyContainer(t, d).Env {
		if e.Name == "MEMORY_LIMIT" {
			if e.ValueFrom == nil || e.ValueFrom.ResourceFieldRef == nil || e.ValueFrom.ResourceFieldRef.Resource != "limits.memory" {
				t.Errorf("%s: MEMORY_LIMIT %+v, want the container's limits.memory", d.Name, e.ValueFrom)
			}
			return
		}
	}
	t.Errorf("%s: no MEMORY_LIMIT", d.Name)
}

func checkWorker(t *testing.T, m *model.Model, d *appsv1.Deployment) {
	if !m.AsynqWorker {
		if d != nil {
			t.Error("worker-deployment.yaml without a dedicated asynq worker")
		}
		return
	}
	if d == nil {
		t.Fatal("a dedicated asynq worker but no worker-deployment.yaml")
	}
	c := onlyContainer(t, d)
	if want := []string{"/" + m.Name + "-worker"}; !slices.Equal(c.Command, want) {
		t.Errorf("worker command %q, want %q", c.Command, want)
	}
	if c.ReadinessProbe != nil {
		t.Error("no Service routes to the worker: it wants no readiness probe")
	}
	if l := c.LivenessProbe; l == nil || l.HTTPGet == nil || l.HTTPGet.Path != "/healthz" || containerPort(t, c, l.HTTPGet.Port) != int32(m.AdminPort) {
		t.Errorf("worker liveness probe %+v, want /healthz on the admin port %d", l, m.AdminPort)
	}
	checkMemoryLimit(t, d)
	checkMigrations(t, m, d)
	if c.Lifecycle != nil {
		t.Error("the worker has no Service: it wants no preStop")
	}
	t2 := m.Timeouts
	budget := t2.AsynqShutdown + t2.CloseBudget + t2.Margin
	want := int64(budget / time.Second)
	if budget%time.Second != 0 {
		want++
	}
	if got := ptrValue(d.Spec.Template.Spec.TerminationGracePeriodSeconds); got != want {
		t.Errorf("worker terminationGracePeriodSeconds %d, want asynq_shutdown + close_budget + margin = %v, rounded up: %d", got, budget, want)
	}
}

// checkConfigMap holds the ConfigMap against the model and against config.go,
// and returns it.
func checkConfigMap(t *testing.T, m *model.Model, k manifests, tree string) *corev1.ConfigMap {
	cm := k.configMaps[0]
	read := configReads(t, filepath.Join(tree, "internal", "config", "config.go"))
	secret := map[string]bool{}
	for _, d := range k.deployments {
		for _, e := range onlyContainer(t, d).Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				secret[e.Name] = true
			}
		}
	}
	for name := range secret {
		if _, ok := cm.Data[name]; ok {
			t.Errorf("%s is a credential, but the ConfigMap holds it", name)
		}
	}
	// Keys: exactly what config.go reads, less what comes from Secrets.
	got := slices.Sorted(maps.Keys(cm.Data))
	var want []string
	for name := range read {
		if !secret[name] {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ConfigMap keys\n %v\nwant what config.go reads, less the Secrets:\n %v", got, want)
	}
	// Values: config.go's defaults, except the dependencies' in-cluster addresses.
	for name, value := range cm.Data {
		r, ok := read[name]
		if !ok {
			continue
		}
		if name == "REDIS_ADDR" || name == "KAFKA_BROKERS" {
			if _, _, err := net.SplitHostPort(value); err != nil {
				t.Errorf("%s=%q is not a host:port", name, value)
			}
			continue
		}
		if err := r.matches(value); err != nil {
			t.Errorf("ConfigMap %s=%q differs from config.go's default: %v", name, value, err)
		}
	}
	// Values: the model's numbers, name by name.
	for name, want := range modelValues(m) {
		value, ok := cm.Data[name]
		if !ok {
			t.Errorf("the ConfigMap has no %s", name)
			continue
		}
		if err := equalValue(value, want); err != nil {
			t.Errorf("ConfigMap %s=%q, want the model's %v: %v", name, value, want, err)
		}
	}
	return cm
}

// modelValues is what the model says each configuration variable holds.
func modelValues(m *model.Model) map[string]any {
	t := m.Timeouts
	v := map[string]any{
		"ADMIN_ADDR":    fmt.Sprintf(":%d", m.AdminPort),
		"CLOSE_TIMEOUT": t.CloseBudget,
	}
	if m.HTTP {
		v["HTTP_ADDR"] = fmt.Sprintf(":%d", m.HTTPPort)
		v["HTTP_SHUTDOWN_TIMEOUT"] = t.HTTPShutdown
	}
	if m.UsesPostgres {
		v["DATABASE_MAX_CONNS"] = m.Pool.Default
	}
	if m.HasWorkers {
		v["WORKER_DRAIN_TIMEOUT"] = t.WorkerDrain
	}
	if s := m.TaskServer; s != nil {
		v["ASYNQ_SHUTDOWN_TIMEOUT"] = t.AsynqShutdown
		v["ASYNQ_CONCURRENCY"] = s.Concurrency
	}
	if r := m.Relay; r != nil {
		v["OUTBOX_BATCH_SIZE"] = r.BatchSize
		v["OUTBOX_POLL_INTERVAL"] = r.PollInterval
		v["OUTBOX_BATCH_TIMEOUT"] = r.BatchTimeout
		v["OUTBOX_ORDERED"] = r.Ordered
		v["OUTBOX_MAX_ATTEMPTS"] = r.MaxAttempts
		v["OUTBOX_BACKOFF_MIN"] = r.BackoffMin
		v["OUTBOX_BACKOFF_MAX"] = r.BackoffMax
	}
	for _, c := range m.Consumers {
		v[c.EnvPrefix+"TOPIC"] = c.Topic
		v[c.EnvPrefix+"GROUP"] = c.Group
		v[c.EnvPrefix+"HANDLER_TIMEOUT"] = c.HandlerTimeout
		v[c.EnvPrefix+"COMMIT_TIMEOUT"] = c.CommitTimeout
		v[c.EnvPrefix+"MAX_ATTEMPTS"] = c.MaxAttempts
		v[c.EnvPrefix+"DLQ_TOPIC"] = c.DeadLetterTopic
	}
	for _, c := range m.Cleaners {
		v[c.EnvPrefix+"RETENTION"] = c.Retention
		v[c.EnvPrefix+"INTERVAL"] = c.Interval
		v[c.EnvPrefix+"BATCH_SIZE"] = c.BatchSize
	}
	return v
}

// equalValue parses s as the type of want and compares.
func equalValue(s string, want any) error {
	var got any
	var err error
	switch want.(type) {
	case time.Duration:
		got, err = time.ParseDuration(s)
	case int:
		got, err = strconv.Atoi(s)
	case int64:
		got, err = strconv.ParseInt(s, 10, 64)
	case bool:
		got, err = strconv.ParseBool(s)
	case string:
		got = s
	default:
		return fmt.Errorf("no comparison for %T", want)
	}
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%v is not %v", got, want)
	}
	return nil
}

// configRead is one e.<kind>("NAME", default, ...) call in config.go.
type configRead struct {
	kind string // duration, count, str, ...
	def  any    // the default, evaluated
}

func (r configRead) matches(s string) error {
	switch r.kind {
	case "level":
		// slog's own names: LevelInfo is "info".
		if !strings.EqualFold("Level"+s, r.def.(string)) {
			return fmt.Errorf("level %q is not %s", s, r.def)
		}
		return nil
	case "count", "index":
		return equalValue(s, r.def.(int64))
	}
	return equalValue(s, r.def)
}

// configReads finds every variable config.go reads: the calls e.<kind>(name,
// default, ...) of env's reading methods, with their defaults evaluated.
func configReads(t *testing.T, path string) map[string]configRead {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]ast.Expr{}
	readers := map[string]bool{} // env's methods that read a variable: (key string, def T, ...)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok != token.CONST {
				continue
			}
			for _, s := range d.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					consts[n.Name] = vs.Values[i]
				}
			}
		case *ast.FuncDecl:
			var params []string
			for _, f := range d.Type.Params.List {
				for _, n := range f.Names {
					params = append(params, n.Name)
				}
			}
			if d.Recv != nil && len(params) >= 2 && params[0] == "key" && params[1] == "def" {
				readers[d.Name.Name] = true
			}
		}
	}
	out := map[string]configRead{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) < 2 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !isIdent(sel.X, "e") {
			return true
		}
		if sel.Sel.Name == "tls" {
			// e.tls("X_TLS", "X_TLS_CA_FILE") reads X_TLS as a boolean,
			// false by default; the CA file is optional, off when unset.
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				name, _ := strconv.Unquote(lit.Value)
				out[name] = configRead{"boolean", false}
			}
			return true
		}
		if !readers[sel.Sel.Name] {
			return true
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		name, _ := strconv.Unquote(lit.Value)
		def, err := evalConst(call.Args[1], consts)
		if err != nil {
			t.Errorf("%s: the default of %s: %v", path, name, err)
		}
		out[name] = configRead{sel.Sel.Name, def}
		return true
	})
	if len(out) == 0 {
		t.Fatalf("%s reads no variable through e.<kind>(\"NAME\", ...): has config.go changed shape?", path)
	}
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

var timeUnits = map[string]time.Duration{
	"Nanosecond": time.Nanosecond, "Microsecond": time.Microsecond, "Millisecond": time.Millisecond,
	"Second": time.Second, "Minute": time.Minute, "Hour": time.Hour,
}

// evalConst evaluates the constant expressions config.go uses as defaults:
// literals, named constants, time units and products, slog levels.
func evalConst(e ast.Expr, consts map[string]ast.Expr) (any, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		switch e.Kind {
		case token.INT:
			return strconv.ParseInt(e.Value, 0, 64)
		case token.STRING:
			return strconv.Unquote(e.Value)
		}
	case *ast.Ident:
		switch e.Name {
		case "true", "false":
			return e.Name == "true", nil
		}
		if v, ok := consts[e.Name]; ok {
			return evalConst(v, consts)
		}
	case *ast.ParenExpr:
		return evalConst(e.X, consts)
	case *ast.SelectorExpr:
		switch {
		case isIdent(e.X, "time") && timeUnits[e.Sel.Name] != 0:
			return timeUnits[e.Sel.Name], nil
		case isIdent(e.X, "slog") && strings.HasPrefix(e.Sel.Name, "Level"):
			return e.Sel.Name, nil
		}
	case *ast.BinaryExpr:
		if e.Op == token.MUL {
			x, err := evalConst(e.X, consts)
			if err != nil {
				return nil, err
			}
			y, err := evalConst(e.Y, consts)
			if err != nil {
				return nil, err
			}
			n, nOK := x.(int64)
			u, uOK := y.(time.Duration)
			if nOK && uOK {
				return time.Duration(n) * u, nil
			}
		}
	}
	return nil, fmt.Errorf("cannot evaluate %T", e)
}

// checkPodConfig: the pods take the ConfigMap whole, Kafka's login (if any)
// from an optional Secret an example file shows, and each other credential
// from a key of a Secret that an example file shows.
func checkPodConfig(t *testing.T, d *appsv1.Deployment, cm *corev1.ConfigMap, examples map[string]*corev1.Secret) {
	c := onlyContainer(t, d)
	if len(c.EnvFrom) == 0 || c.EnvFrom[0].ConfigMapRef == nil || c.EnvFrom[0].ConfigMapRef.Name != cm.Name {
		t.Errorf("%s: envFrom %+v, want the ConfigMap %s first", d.Name, c.EnvFrom, cm.Name)
	}
	for _, from := range c.EnvFrom[min(1, len(c.EnvFrom)):] {
		ref := from.SecretRef
		if ref == nil || ref.Optional == nil || !*ref.Optional {
			t.Errorf("%s: envFrom %+v, want only optional Secrets after the ConfigMap", d.Name, from)
			continue
		}
		var example *corev1.Secret
		for _, s := range examples {
			if s.Name == ref.Name {
				example = s
			}
		}
		if example == nil {
			t.Errorf("%s: envFrom the Secret %s, which no example shows", d.Name, ref.Name)
			continue
		}
		keys := slices.Sorted(maps.Keys(example.StringData))
		if want := []string{"KAFKA_SASL_MECHANISM", "KAFKA_SASL_PASSWORD", "KAFKA_SASL_USERNAME"}; !slices.Equal(keys, want) {
			t.Errorf("%s: the example of %s holds %v, want %v", d.Name, ref.Name, keys, want)
		}
	}
	for _, e := range c.Env {
		if e.Name == "MEMORY_LIMIT" {
			continue // from the Downward API: checkMemoryLimit
		}
		if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			t.Errorf("%s: %s is not from a Secret", d.Name, e.Name)
			continue
		}
		ref := e.ValueFrom.SecretKeyRef
		found := false
		for file, s := range examples {
			if s.Name == ref.Name {
				_, found = s.StringData[ref.Key]
				if !strings.Contains(s.StringData[ref.Key], "CHANGE-ME") {
					t.Errorf("%s: %s does not look like a placeholder", file, ref.Key)
				}
			}
		}
		if !found {
			t.Errorf("%s: %s comes from %s/%s, which no example Secret shows", d.Name, e.Name, ref.Name, ref.Key)
		}
	}
}

func checkSecurity(t *testing.T, d *appsv1.Deployment) {
	pod := d.Spec.Template.Spec.SecurityContext
	c := onlyContainer(t, d).SecurityContext
	switch {
	case pod == nil || c == nil:
		t.Errorf("%s: no security context", d.Name)
	case !ptrValue(pod.RunAsNonRoot) || ptrValue(pod.RunAsUser) == 0:
		t.Errorf("%s: not a numeric non-root user", d.Name)
	case pod.SeccompProfile == nil || pod.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("%s: seccomp is not RuntimeDefault", d.Name)
	case !ptrValue(c.ReadOnlyRootFilesystem) || ptrValue(c.AllowPrivilegeEscalation):
		t.Errorf("%s: root filesystem writable or privilege escalation allowed", d.Name)
	case c.Capabilities == nil || !slices.Equal(c.Capabilities.Drop, []corev1.Capability{"ALL"}):
		t.Errorf("%s: capabilities not all dropped", d.Name)
	}
}

// checkServiceAndPDBs: a Service for the HTTP API only, routing to the
// server's pods and port; each Deployment has a PodDisruptionBudget of its own.
func checkServiceAndPDBs(t *testing.T, m *model.Model, k manifests) {
	server := k.deployments["deployment.yaml"]
	podLabels := labels.Set(server.Spec.Template.Labels)
	for _, d := range k.deployments {
		if sel := labels.SelectorFromSet(d.Spec.Selector.MatchLabels); !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Errorf("%s: its selector does not match its pods", d.Name)
		}
		n := 0
		for _, pdb := range k.pdbs {
			if labels.SelectorFromSet(pdb.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d PodDisruptionBudgets select its pods, want 1", d.Name, n)
		}
	}
	if !m.Serves {
		if len(k.services) > 0 {
			t.Error("a Service, but the service has no HTTP or gRPC API")
		}
		return
	}
	if len(k.services) != 1 {
		t.Fatalf("%d Services, want 1", len(k.services))
	}
	s := k.services[0]
	if !labels.SelectorFromSet(s.Spec.Selector).Matches(podLabels) {
		t.Error("the Service does not select the server's pods")
	}
	for _, d := range k.deployments {
		if d != server && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Errorf("the Service also selects %s", d.Name)
		}
	}
	// One port per server, each routed to that server's container port.
	want := map[string]int32{}
	if m.HTTP {
		want["http"] = int32(m.HTTPPort)
	}
	if m.GRPC != nil {
		want["grpc"] = int32(m.GRPC.Port)
	}
	if len(s.Spec.Ports) != len(want) {
		t.Errorf("the Service has ports %+v, want one for each of %v", s.Spec.Ports, want)
	}
	for _, p := range s.Spec.Ports {
		if got := containerPort(t, onlyContainer(t, server), p.TargetPort); got != want[p.Name] {
			t.Errorf("the Service's port %s routes to container port %d, want %d", p.Name, got, want[p.Name])
		}
	}
}

func onlyContainer(t *testing.T, d *appsv1.Deployment) *corev1.Container {
	t.Helper()
	if n := len(d.Spec.Template.Spec.Containers); n != 1 {
		t.Fatalf("%s: %d containers, want 1", d.Name, n)
	}
	return &d.Spec.Template.Spec.Containers[0]
}

// containerPort resolves a port by number or by name.
func containerPort(t *testing.T, c *corev1.Container, p intstr.IntOrString) int32 {
	t.Helper()
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort
		}
	}
	t.Errorf("container %s has no port named %q", c.Name, p.StrVal)
	return 0
}

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// composeImages are the images compose.yaml may name: tags that exist
// upstream (checked by hand when one changes; no network at test time).
var composeImages = []string{"postgres:17", "redis:7", "apache/kafka:3.9.1"}

type composeService struct {
	Image           string   `json:"image"`
	Build           string   `json:"build"`
	Entrypoint      []string `json:"entrypoint"`
	Command         []string `json:"command"`
	StopGracePeriod string   `json:"stop_grace_period"`
}

func TestCompose(t *testing.T) {
	for _, p := range presets(t) {
		t.Run(p.name, func(t *testing.T) {
			m := presetModel(t, p)
			data, err := os.ReadFile(filepath.Join(p.tree, "compose.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var compose struct {
				Name     string                    `json:"name"`
				Services map[string]composeService `json:"services"`
			}
			if err := yaml.Unmarshal(data, &compose); err != nil {
				t.Fatalf("compose.yaml does not parse: %v", err)
			}
			var want []string
			for name, s := range compose.Services {
				switch {
				case s.Image == "" && s.Build != ".":
					t.Errorf("service %s neither builds this directory nor names an image", name)
				case s.Image != "" && !slices.Contains(composeImages, s.Image):
					t.Errorf("service %s runs %s, not one of %v", name, s.Image, composeImages)
				}
				if s.Image != "" {
					want = append(want, name)
				}
			}
			var deps []string
			if m.UsesPostgres {
				deps = append(deps, "postgres")
			}
			if m.UsesRedis {
				deps = append(deps, "redis")
			}
			if m.UsesKafka {
				deps = append(deps, "kafka", "kafka-topics")
			}
			slices.Sort(want)
			slices.Sort(deps)
			if !slices.Equal(want, deps) {
				t.Errorf("compose runs %v, want what the components need: %v", want, deps)
			}

			svc, ok := compose.Services[m.Name]
			if !ok {
				t.Fatalf("no service %s", m.Name)
			}
			checkStopGrace(t, m.Name, svc.StopGracePeriod, m.Timeouts.Grace)
			if m.AsynqWorker {
				w := compose.Services[m.Name+"-worker"]
				if !slices.Equal(w.Entrypoint, []string{"/" + m.Name + "-worker"}) {
					t.Errorf("worker entrypoint %q", w.Entrypoint)
				}
				budget := m.Timeouts.AsynqShutdown + m.Timeouts.CloseBudget + m.Timeouts.Margin
				checkStopGrace(t, m.Name+"-worker", w.StopGracePeriod, (budget + time.Second - 1).Truncate(time.Second))
			}
			if m.UsesKafka {
				script := strings.Join(compose.Services["kafka-topics"].Command, "\n")
				for _, c := range m.Consumers {
					if !strings.Contains(script, "--topic "+c.Topic+" ") {
						t.Errorf("kafka-topics does not create %s", c.Topic)
					}
				}
				if m.Relay != nil && !strings.Contains(script, "--topic "+m.Relay.Topic+" ") {
					t.Errorf("kafka-topics does not create %s", m.Relay.Topic)
				}
			}
			if m.UsesPostgres {
				mig, ok := compose.Services["migrate"]
				if !ok || strings.Join(mig.Command, " ") != "migrate up" {
					t.Errorf("compose has no migrate service running \"migrate up\" (got %+v)", mig)
				}
			}
		})
	}
}

func checkStopGrace(t *testing.T, name, got string, want time.Duration) {
	t.Helper()
	d, err := time.ParseDuration(got)
	if err != nil || d != want {
		t.Errorf("%s: stop_grace_period %q, want the grace period %v", name, got, want)
	}
}

// TestMonitoring reads deploy/monitoring of each golden service: the
// PodMonitor scrapes the admin port of every Deployment's pods, the
// kustomization applies the rules and loads the dashboard, and the
// dashboard and rules are well-formed. (e2e's
// TestDashboardReadsExportedMetrics checks the metric names they read
// against a running service.)
func TestMonitoring(t *testing.T) {
	for _, p := range presets(t) {
		t.Run(p.name, func(t *testing.T) {
			m := presetModel(t, p)
			dir := filepath.Join(p.tree, "deploy", "monitoring")
			read := func(name string, v any) {
				t.Helper()
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if err := yaml.UnmarshalStrict(data, v); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			var k struct {
				APIVersion         string   `json:"apiVersion"`
				Kind               string   `json:"kind"`
				Resources          []string `json:"resources"`
				ConfigMapGenerator []struct {
					Name    string   `json:"name"`
					Files   []string `json:"files"`
					Options struct {
						DisableNameSuffixHash bool              `json:"disableNameSuffixHash"`
						Labels                map[string]string `json:"labels"`
					} `json:"options"`
				} `json:"configMapGenerator"`
			}
			read("kustomization.yaml", &k)
			if !slices.Equal(k.Resources, []string{"podmonitor.yaml", "prometheusrule.yaml"}) || len(k.ConfigMapGenerator) != 1 ||
				!slices.Equal(k.ConfigMapGenerator[0].Files, []string{"dashboard.json"}) || k.ConfigMapGenerator[0].Options.Labels["grafana_dashboard"] != "1" {
				t.Errorf("kustomization %+v: want the PodMonitor, the rules and the dashboard for Grafana", k)
			}
			var pm struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct {
					Name   string            `json:"name"`
					Labels map[string]string `json:"labels"`
				} `json:"metadata"`
				Spec struct {
					Selector            struct{ MatchLabels map[string]string } `json:"selector"`
					PodMetricsEndpoints []struct {
						Port, Path, Interval string
					} `json:"podMetricsEndpoints"`
				} `json:"spec"`
			}
			read("podmonitor.yaml", &pm)
			if pm.Kind != "PodMonitor" || len(pm.Spec.PodMetricsEndpoints) != 1 || pm.Spec.PodMetricsEndpoints[0].Port != "admin" || pm.Spec.PodMetricsEndpoints[0].Path != "/metrics" {
				t.Errorf("PodMonitor %+v: want /metrics on the port named admin", pm)
			}
			selector := labels.SelectorFromSet(pm.Spec.Selector.MatchLabels)
			for name, d := range readManifests(t, filepath.Join(p.tree, "deploy", "k8s")).deployments {
				if !selector.Matches(labels.Set(d.Spec.Template.Labels)) {
					t.Errorf("the PodMonitor does not select the pods of %s", name)
				}
				if containerPort(t, onlyContainer(t, d), intstr.FromString("admin")) != int32(m.AdminPort) {
					t.Errorf("%s: no admin port %d to scrape", name, m.AdminPort)
				}
			}
			var rules struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct {
					Name   string            `json:"name"`
					Labels map[string]string `json:"labels"`
				} `json:"metadata"`
				Spec struct {
					Groups []struct {
						Name  string `json:"name"`
						Rules []struct {
							Alert       string            `json:"alert"`
							Expr        string            `json:"expr"`
							For         string            `json:"for"`
							Labels      map[string]string `json:"labels"`
							Annotations map[string]string `json:"annotations"`
						} `json:"rules"`
					} `json:"groups"`
				} `json:"spec"`
			}
			read("prometheusrule.yaml", &rules)
			if rules.Kind != "PrometheusRule" || len(rules.Spec.Groups) != 1 || len(rules.Spec.Groups[0].Rules) != len(m.AlertQueries()) {
				t.Errorf("rules %+v: want one group with the model's %d alerts", rules, len(m.AlertQueries()))
			}
			var dashboard struct {
				Panels []struct {
					Title   string
					Targets []struct{ Expr string }
				}
			}
			data, err := os.ReadFile(filepath.Join(dir, "dashboard.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &dashboard); err != nil {
				t.Fatalf("dashboard.json: %v", err)
			}
			var exprs []string
			for _, panel := range dashboard.Panels {
				for _, target := range panel.Targets {
					exprs = append(exprs, target.Expr)
				}
			}
			if !slices.Equal(exprs, m.DashboardQueries()) {
				t.Errorf("dashboard queries %q, want the model's %q", exprs, m.DashboardQueries())
			}
		})
	}
}

// envKey is a variable name as config.go passes it to its readers.
var envKey = regexp.MustCompile(`e\.[a-z]+\(((?:"[A-Z][A-Z0-9_]*",?\s*)+)`)

// Every variable config.go reads is in the README's Configuration table,
// with its name in backticks in the first column: a setting a user cannot
// find is a setting they cannot use.
func TestReadmeDocumentsEveryVariable(t *testing.T) {
	for _, p := range presets(t) {
		t.Run(p.name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(p.tree, "internal", "config", "config.go"))
			if err != nil {
				t.Fatal(err)
			}
			readme, err := os.ReadFile(filepath.Join(p.tree, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			var rows []string
			for _, line := range strings.Split(string(readme), "\n") {
				if strings.HasPrefix(line, "| `") {
					first, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
					rows = append(rows, first)
				}
			}
			var keys []string
			for _, m := range envKey.FindAllStringSubmatch(string(src), -1) {
				for _, q := range regexp.MustCompile(`"([A-Z0-9_]+)"`).FindAllStringSubmatch(m[1], -1) {
					keys = append(keys, q[1])
				}
			}
			if len(keys) < 5 {
				t.Fatalf("found only %v in config.go: has its shape changed?", keys)
			}
			for _, k := range keys {
				if !slices.ContainsFunc(rows, func(r string) bool { return strings.Contains(r, "`"+k+"`") }) {
					t.Errorf("README.md has no row for %s, which config.go reads", k)
				}
			}
		})
	}
}

// TestReadmeDefaultsAreConfigGos holds the README's variable table to
// config.go, value by value: each default the table gives is the default
// config.go reads (checkConfigMap holds the ConfigMap to the same), a row
// saying "unset" or "empty" is a variable config.go reads without one, and
// the table lists no variable config.go does not read.
func TestReadmeDefaultsAreConfigGos(t *testing.T) {
	for _, p := range presets(t) {
		t.Run(p.name, func(t *testing.T) {
			configGo := filepath.Join(p.tree, "internal", "config", "config.go")
			read := configReads(t, configGo)
			src, err := os.ReadFile(configGo)
			if err != nil {
				t.Fatal(err)
			}
			readAtAll := map[string]bool{}
			for name := range read {
				readAtAll[name] = true
			}
			for _, m := range envKey.FindAllStringSubmatch(string(src), -1) {
				for _, q := range regexp.MustCompile(`"([A-Z0-9_]+)"`).FindAllStringSubmatch(m[1], -1) {
					readAtAll[q[1]] = true
				}
			}
			rows := configTable(t, filepath.Join(p.tree, "README.md"))
			checked := 0
			for _, r := range rows {
				if !readAtAll[r.name] {
					t.Errorf("README.md documents %s, which config.go does not read", r.name)
					continue
				}
				def, hasDefault := read[r.name]
				switch {
				case r.value == "unset" || r.value == "empty":
					if hasDefault {
						t.Errorf("README.md says %s is %s; config.go's default is %v", r.name, r.value, def.def)
					}
				case !hasDefault:
					t.Errorf("README.md gives %s the default %q; config.go reads it without one", r.name, r.value)
				default:
					value, ok := strings.CutPrefix(r.value, "`")
					value, ok2 := strings.CutSuffix(value, "`")
					if !ok || !ok2 {
						t.Errorf("README.md's default of %s is %q, not one `value`", r.name, r.value)
						continue
					}
					if err := def.matches(value); err != nil {
						t.Errorf("README.md says %s defaults to %q; config.go's default differs: %v", r.name, value, err)
					}
					checked++
				}
			}
			if checked < len(read)-1 { // the tracing table's OTEL_SDK_DISABLED aside, every default is in the table
				t.Errorf("compared %d defaults of the %d config.go has", checked, len(read))
			}
		})
	}
}

// configRow is one row of the README's tables of variables that names one
// variable.
type configRow struct{ name, value string }

// configTable reads the rows of the README's section "Configuration" (its
// tracing table too) that name one variable.
func configTable(t *testing.T, path string) []configRow {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Configuration\n")
	if !ok {
		t.Fatalf("%s has no section Configuration", path)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([A-Z][A-Z0-9_]*)` \\| ([^|]+) \\|")
	var out []configRow
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		out = append(out, configRow{m[1], strings.TrimSpace(m[2])})
	}
	if len(out) < 5 {
		t.Fatalf("%s: only %d rows in its Configuration tables: has their shape changed?", path, len(out))
	}
	return out
}
