package model

import (
	"slices"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
)

func defaultModel(t testing.TB, a answers.Answers) *Model {
	t.Helper()
	m, err := newModel(a.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDeployDefaults(t *testing.T) {
	d := defaultModel(t, answers.Answers{Name: "orders"}).Deploy
	if d.GraceSeconds != 60 || d.PreStopSeconds != 10 {
		t.Errorf("grace %ds, preStop %ds; want the default answers 60s and 10s", d.GraceSeconds, d.PreStopSeconds)
	}
	// The probes answer on the admin listener until the process exits, so
	// liveness needs no more misses than for a stuck process.
	if d.AdminPort != 9090 || d.Liveness.FailureThreshold != 3 {
		t.Errorf("admin port %d, liveness %+v; want 9090, 3 misses", d.AdminPort, d.Liveness)
	}
	if d.Worker != nil || d.Secrets != nil || d.Topics != nil {
		t.Errorf("an HTTP-only service has no worker, Secret or topic: %+v", d)
	}
}

// A service without HTTP has no Service in front of it: no preStop sleep,
// and its ladder does not count one.
func TestNoPreStopWithoutHTTP(t *testing.T) {
	m := defaultModel(t, answers.Answers{Name: "relay", Components: []string{"outbox"}})
	if m.Deploy.PreStopSeconds != 0 || m.Ladder.PreStop != 0 {
		t.Errorf("preStop %ds, ladder preStop %v; want none", m.Deploy.PreStopSeconds, m.Ladder.PreStop)
	}
	// worker drain 20s + close 1s + margin 5s.
	if m.Ladder.Worst() != 26*time.Second {
		t.Errorf("worst case %v, want 26s", m.Ladder.Worst())
	}
}

// The pool fits the parts that can hold a connection at the same time.
func TestPoolSize(t *testing.T) {
	for _, tc := range []struct {
		comps    []string
		mode     string
		relays   int
		min, def int
		worker   int
	}{
		{[]string{"outbox"}, "", 0, 2, 2, 0},                                        // 2 relay loops by default
		{[]string{"outbox"}, "", 5, 5, 5, 0},                                        // outbox.relays 5
		{[]string{"http", "outbox", "kafka", "cleaner"}, "", 0, 9, 12, 0},           // 2 relays, the consumer's 3 transactions, 2 cleaners, their leases' 1, 1 for HTTP; +3 headroom
		{[]string{"http", "outbox", "asynq", "kafka", "cleaner"}, "", 0, 19, 22, 0}, // + 10 asynq handlers
		{[]string{"http", "outbox", "asynq"}, "dedicated", 0, 10, 10, 10},           // the worker's 10 handlers decide
	} {
		a := answers.Answers{Name: "orders", Components: tc.comps, Asynq: answers.AsynqAnswers{Mode: tc.mode}, Outbox: answers.OutboxAnswers{Relays: tc.relays}}
		p := defaultModel(t, a).Pool
		if p.Min != tc.min || p.Default != tc.def || p.WorkerHandlers != tc.worker {
			t.Errorf("%v %s: pool min %d default %d worker %d (%s), want %d %d %d", tc.comps, tc.mode, p.Min, p.Default, p.WorkerHandlers, p, tc.min, tc.def, tc.worker)
		}
	}
	if p := defaultModel(t, answers.Answers{Name: "orders"}).Pool; p.Default != 0 {
		t.Errorf("a service without Postgres has a pool of %d", p.Default)
	}
}

func TestDeployWorkerGrace(t *testing.T) {
	a := answers.Answers{Name: "orders", Components: []string{"http", "asynq"}, Asynq: answers.AsynqAnswers{Mode: "dedicated"},
		Timeouts: answers.TimeoutAnswers{Margin: answers.Duration(5500 * time.Millisecond)}}
	d := defaultModel(t, a).Deploy
	// asynq 25s + close 1s + margin 5.5s = 31.5s, rounded up.
	if d.Worker == nil || d.Worker.GraceSeconds != 32 || d.Worker.Name != "orders-worker" || d.Worker.Liveness.FailureThreshold != 6 {
		t.Fatalf("worker %+v, want orders-worker with 32s", d.Worker)
	}
	if d.Worker.Ladder.PreStop != 0 || d.Worker.Ladder.Check() != nil {
		t.Errorf("worker ladder %+v: no preStop, and it must fit", d.Worker.Ladder)
	}
}

func TestDeploySecretsAndTopics(t *testing.T) {
	a := answers.Answers{Name: "orders", Components: []string{"http", "outbox", "asynq", "kafka"},
		Consumers: []answers.ConsumerAnswers{{Name: "payments", Topic: "payments"}, {Name: "again", Topic: "events"}}}
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
	if want := []string{"events", "events.dlq", "payments", "payments.dlq"}; !slices.Equal(d.Topics, want) {
		t.Errorf("topics %v, want %v (read and dead-lettered to; sorted, each once)", d.Topics, want)
	}
	for _, e := range d.Config {
		if e.Name == "DATABASE_URL" || e.Name == "REDIS_PASSWORD" {
			t.Errorf("the ConfigMap holds the credential %s", e.Name)
		}
	}
}

func TestGantt(t *testing.T) {
	m := defaultModel(t, answers.Answers{Name: "orders", Components: []string{"http", "outbox"}})
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
