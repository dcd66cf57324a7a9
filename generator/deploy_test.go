package generator

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func defaultModel(t *testing.T, a Answers) *Model {
	t.Helper()
	m, err := NewModel(a.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDeployDefaults(t *testing.T) {
	d := defaultModel(t, Answers{Name: "orders"}).Deploy
	if d.GraceSeconds != 60 || d.PreStopSeconds != 10 {
		t.Errorf("grace %ds, preStop %ds; want the default answers 60s and 10s", d.GraceSeconds, d.PreStopSeconds)
	}
	// HTTP drain 25s + close 1s: the listener may stay closed for 26s, so
	// liveness needs four misses 10s apart (30s) before a restart.
	if d.ListenerClosed != 26*time.Second || d.Liveness.FailureThreshold != 4 || d.LivenessOutlasts != 30*time.Second {
		t.Errorf("listener closed %v, liveness %+v outlasting %v; want 26s, 4 misses, 30s", d.ListenerClosed, d.Liveness, d.LivenessOutlasts)
	}
	if d.Worker != nil || d.Secrets != nil || d.Topics != nil {
		t.Errorf("an HTTP-only service has no worker, Secret or topic: %+v", d)
	}
}

// TestLivenessOutlastsShutdown: whatever the drains, the liveness probe fails
// often enough to restart the container only after the process would have
// exited, even with the listener closed from SIGTERM on.
func TestLivenessOutlastsShutdown(t *testing.T) {
	for _, drain := range []time.Duration{time.Second, 9 * time.Second, 19 * time.Second, 25 * time.Second, 29 * time.Second, 2 * time.Minute} {
		a := Answers{Name: "orders", Timeouts: TimeoutAnswers{HTTPShutdown: Duration(drain), Grace: Duration(drain + 20*time.Second)}}
		d := defaultModel(t, a).Deploy
		if d.LivenessOutlasts <= d.ListenerClosed {
			t.Errorf("drain %v: liveness restarts after %v, listener closed up to %v", drain, d.LivenessOutlasts, d.ListenerClosed)
		}
		if d.LivenessOutlasts > d.ListenerClosed+2*livenessPeriod {
			t.Errorf("drain %v: liveness waits %v, more than needed for %v", drain, d.LivenessOutlasts, d.ListenerClosed)
		}
	}
}

func TestDeployWorkerGrace(t *testing.T) {
	a := Answers{Name: "orders", Components: []string{"http", "asynq"}, Asynq: AsynqAnswers{Mode: "dedicated"},
		Timeouts: TimeoutAnswers{Margin: Duration(5500 * time.Millisecond)}}
	d := defaultModel(t, a).Deploy
	// asynq 25s + close 1s + margin 5.5s = 31.5s, rounded up.
	if d.Worker == nil || d.Worker.GraceSeconds != 32 || d.Worker.Name != "orders-worker" {
		t.Fatalf("worker %+v, want orders-worker with 32s", d.Worker)
	}
	if d.Worker.Ladder.PreStop != 0 || d.Worker.Ladder.Check() != nil {
		t.Errorf("worker ladder %+v: no preStop, and it must fit", d.Worker.Ladder)
	}
}

func TestDeploySecretsAndTopics(t *testing.T) {
	a := Answers{Name: "orders", Components: []string{"http", "outbox", "asynq", "kafka"},
		Consumers: []ConsumerAnswers{{Name: "payments", Topic: "payments"}, {Name: "again", Topic: "events"}}}
	d := defaultModel(t, a).Deploy
	var names []string
	for _, s := range d.Secrets {
		names = append(names, s.Secret+"/"+s.Name)
	}
	if want := []string{"orders-redis/REDIS_PASSWORD", "orders-postgres/DATABASE_URL"}; !slices.Equal(names, want) {
		t.Errorf("secrets %v, want %v", names, want)
	}
	if !d.RedisSecret.Optional || d.PostgresSecret.Optional {
		t.Error("REDIS_PASSWORD is optional (a Redis may have none), DATABASE_URL is not")
	}
	if want := []string{"events", "payments"}; !slices.Equal(d.Topics, want) {
		t.Errorf("topics %v, want %v (sorted, each once)", d.Topics, want)
	}
	for _, e := range d.Config {
		if e.Name == "DATABASE_URL" || e.Name == "REDIS_PASSWORD" {
			t.Errorf("the ConfigMap holds the credential %s", e.Name)
		}
	}
}

// TestNothingRendersWithoutWholeSeconds: Kubernetes counts the grace period
// and the preStop sleep in whole seconds; gsgen refuses other values, through
// the whole pipeline, with the field and a value that keeps the ladder fitting.
func TestNothingRendersWithoutWholeSeconds(t *testing.T) {
	for _, c := range []struct {
		timeouts TimeoutAnswers
		field    string
		fix      string
	}{
		{TimeoutAnswers{Grace: Duration(60500 * time.Millisecond)}, "timeouts.grace", "use 61s"},
		{TimeoutAnswers{PreStop: Duration(10500 * time.Millisecond)}, "timeouts.prestop", "use 10s"},
		{TimeoutAnswers{PreStop: Duration(500 * time.Millisecond)}, "timeouts.prestop", "use 1s"},
	} {
		_, files, err := Generate(Answers{Name: "orders", Timeouts: c.timeouts}.WithDefaults())
		var input *InputError
		if !errors.As(err, &input) || input.Field != c.field || input.Fix != c.fix {
			t.Errorf("%+v: got %v, want an InputError on %s saying %q", c.timeouts, err, c.field, c.fix)
		}
		if files != nil {
			t.Errorf("%+v: files rendered", c.timeouts)
		}
	}
}

// TestBrokenLadderNeverReachesAManifest: a grace period too short for the
// budget stops the pipeline before anything renders.
func TestBrokenLadderNeverReachesAManifest(t *testing.T) {
	_, files, err := Generate(Answers{Name: "orders", Timeouts: TimeoutAnswers{Grace: Duration(30 * time.Second)}}.WithDefaults())
	var ladder *LadderError
	if !errors.As(err, &ladder) || ladder.Err.Field != "timeouts.grace" {
		t.Fatalf("got %v, want a LadderError on timeouts.grace", err)
	}
	if files != nil {
		t.Error("files rendered for a broken ladder")
	}
}

func TestGantt(t *testing.T) {
	m := defaultModel(t, Answers{Name: "orders", Components: []string{"http", "outbox"}})
	want := "```mermaid\n" + `gantt
    title orders: worst case 41s of 60s grace
    dateFormat x
    axisFormat %ss
    todayMarker off
    section before SIGTERM
    preStop 10s :0, 10000
    section drains, in parallel
    HTTP drain 25s :crit, 10000, 35000
    worker drain 20s :10000, 30000
    section after the drains
    close 1s :35000, 36000
    margin 5s :36000, 41000
    slack 19s :done, 41000, 60000
    section signals
    SIGTERM :milestone, 10000, 10000
    SIGKILL :milestone, 60000, 60000
` + "```\n"
	if got := m.Ladder.Gantt(m.Name); got != want {
		t.Errorf("Gantt:\n%s\nwant:\n%s", got, want)
	}
}

// Every name the manifests give an object, a container, or the app label is
// one kubernetesNames lists, so the 63-character check sees them all.
func TestKubernetesNamesAreAllListed(t *testing.T) {
	a := Answers{Name: "orders", Components: []string{"http", "outbox", "asynq"}, Asynq: AsynqAnswers{Mode: "dedicated"}}.WithDefaults()
	m, files, err := Generate(a)
	if err != nil {
		t.Fatal(err)
	}
	listed := m.kubernetesNames()
	var found []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch s, isString := x.(string); {
				case isString && k == "name" && slices.Contains([]string{"metadata", "containers", "configMapRef", "secretKeyRef"}, key):
					found = append(found, s)
				case isString && k == "app.kubernetes.io/name":
					found = append(found, s)
				default:
					walk(k, x)
				}
			}
		case []any:
			for _, x := range v {
				walk(key, x)
			}
		}
	}
	for _, f := range files {
		if !strings.HasPrefix(f.Path, "deploy/k8s/") {
			continue
		}
		dec := yaml.NewDecoder(bytes.NewReader(f.Content))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				break
			}
			walk("", doc)
		}
	}
	if len(found) < 10 {
		t.Fatalf("found only %v", found)
	}
	for _, n := range found {
		if !slices.Contains(listed, n) {
			t.Errorf("the manifests use the name %q, which kubernetesNames does not list (%v)", n, listed)
		}
	}
}
