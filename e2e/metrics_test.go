package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
)

// Every graph of the full preset's dashboard and every alert of its rules
// (deploy/monitoring) reads metrics the running service exports, once each
// part has done some work: an HTTP request, an outbox event published, a
// cleaner run, a task. (The alert on exit codes reads kube-state-metrics.)
func TestDashboardReadsExportedMetrics(t *testing.T) {
	e2eOnly(t)
	rig := newFullRig(t, fullService)
	m := presetModel(t, "full")
	extra := map[string]string{}
	for _, c := range m.Cleaners {
		extra[c.EnvPrefix+"INTERVAL"] = "50ms"
	}
	svc := rig.start("full, metrics", extra)

	if r := get(&http.Client{Timeout: hang}, "http://"+svc.httpAddr()+"/hello/metrics"); r.status != http.StatusOK {
		t.Fatalf("GET /hello/metrics: %+v", r)
	}
	if _, err := rig.pool.Exec(context.Background(), "INSERT INTO outbox_event (aggregate_id, topic, payload) VALUES ('agg-1', $1, '')", outboxTopic); err != nil {
		t.Fatal(err)
	}
	client := asynq.NewClientFromRedisClient(rig.rdb)
	if _, err := client.Enqueue(asynq.NewTask("email:welcome", []byte(`{"user_id":1,"email":"a@example.com"}`)), asynq.Timeout(time.Minute)); err != nil {
		t.Fatal(err)
	}
	queries := append(m.DashboardQueries(), m.AlertQueries()...)
	waitExported(t, svc, "metrics the dashboard reads, exported", queries)
	svc.stop()
	t.Logf("dashboard and alerts: %d queries, every metric they read is exported", len(queries))
}

// The grpc preset's dashboard and alerts read metrics its running service
// exports too: the gRPC calls' histogram once a call has been served (a
// health check here), the HTTP one once a request has.
func TestGRPCDashboardReadsExportedMetrics(t *testing.T) {
	e2eOnly(t)
	_, bin := grpcService.build(t)
	svc := start(t, "grpc, metrics", bin, map[string]string{"GRPC_ADDR": "127.0.0.1:0"})
	if r := get(&http.Client{Timeout: hang}, "http://"+svc.httpAddr()+"/hello/metrics"); r.status != http.StatusOK {
		t.Fatalf("GET /hello/metrics: %+v", r)
	}
	addr := svc.waitLog(msgIs("grpc server listening")).str("addr")
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	if _, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatalf("health check: %v", err)
	}
	m := presetModel(t, "grpc")
	queries := append(m.DashboardQueries(), m.AlertQueries()...)
	if !slices.ContainsFunc(queries, func(q string) bool { return strings.Contains(q, "_grpc_request_duration_seconds") }) {
		t.Fatal("the grpc preset's dashboard reads no gRPC metric: this test checks nothing of grpc's")
	}
	waitExported(t, svc, "metrics the grpc preset's dashboard reads, exported", queries)
	svc.stop()
	t.Logf("dashboard and alerts: %d queries, every metric they read is exported", len(queries))
}

// waitExported waits until svc exports every metric the queries read.
func waitExported(t *testing.T, svc *service, what string, queries []string) {
	t.Helper()
	names, last := len(missingMetrics(queries, "")), ""
	waitCount(t, what, names, func() int {
		missing := missingMetrics(queries, scrape(t, svc))
		if now := fmt.Sprint(missing); now != last && len(missing) > 0 {
			t.Logf("not exported yet: %s", now) // each change once: on a failure, what stayed missing
			last = now
		}
		return names - len(missing)
	})
}

// metricName matches the names of metrics in a query: the service's own
// and the Go runtime's and process's.
var metricName = regexp.MustCompile(`\b([a-z][a-z0-9_]*_(?:[a-z0-9_]+)|go_goroutines)\b`)

// missingMetrics lists the metrics the queries read that scraped lacks.
func missingMetrics(queries []string, scraped string) []string {
	var missing []string
	for _, q := range queries {
		for _, name := range metricName.FindAllString(q, -1) {
			if isPromQLWord(name) || strings.HasPrefix(name, "kube_") {
				continue
			}
			if !strings.Contains(scraped, "\n"+name+" ") && !strings.Contains(scraped, "\n"+name+"{") {
				missing = append(missing, name)
			}
		}
	}
	return missing
}

// isPromQLWord reports whether a name in a query is PromQL's own, not a metric.
func isPromQLWord(name string) bool {
	switch name {
	case "histogram_quantile":
		return true
	}
	return false
}

func scrape(t *testing.T, svc *service) string {
	t.Helper()
	resp, err := (&http.Client{Timeout: hang}).Get("http://" + svc.admin + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return "\n" + string(body)
}

// presetModel is the model of golden/<preset>.yaml, as gsgen builds it.
func presetModel(t *testing.T, preset string) *model.Model {
	t.Helper()
	return variantModel(t, &variant{preset: preset})
}

// variantModel is gsgen's model of a variant's service: its preset's
// answers, changed as the variant changes them.
func variantModel(t *testing.T, v *variant) *model.Model {
	t.Helper()
	name := filepath.Join("..", "golden", v.preset+".yaml")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	a, err := answers.ParseAnswersFile(name, data)
	if err != nil {
		t.Fatal(err)
	}
	if v.answers != nil {
		v.answers(&a)
	}
	m, err := generator.NewModel(a.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return m
}
