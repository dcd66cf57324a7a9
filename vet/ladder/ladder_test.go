package ladder

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/vet"
)

var loaded sync.Map // service dir -> []*packages.Package

// load loads a service's packages once for all the tests that read it.
func load(t *testing.T, dir string) []*packages.Package {
	t.Helper()
	if pkgs, ok := loaded.Load(dir); ok {
		return pkgs.([]*packages.Package)
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadSyntax | packages.NeedModule, Dir: dir}, "./...")
	if err != nil || packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("load %s: %v", dir, err)
	}
	loaded.Store(dir, pkgs)
	return pkgs
}

// manifestsOf copies dir into a temporary directory, making each
// old -> new replacement in the file named by the pair's old ("file.yaml:old").
func manifestsOf(t *testing.T, dir string, edits ...string) string {
	t.Helper()
	out := t.TempDir()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s", dir)
	}
	data := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data[filepath.Base(f)] = string(b)
	}
	for i := 0; i+1 < len(edits); i += 2 {
		file, old, _ := strings.Cut(edits[i], ":")
		if !strings.Contains(data[file], old) {
			t.Fatalf("%s has no %q", file, old)
		}
		data[file] = strings.Replace(data[file], old, edits[i+1], 1)
	}
	for name, s := range data {
		if err := os.WriteFile(filepath.Join(out, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// lineOf is the line of the first occurrence of s in file.
func lineOf(t *testing.T, file, s string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	before, _, ok := strings.Cut(string(b), s)
	if !ok {
		t.Fatalf("%s has no %q", file, s)
	}
	return strings.Count(before, "\n") + 1
}

// graceInConfigMap is the ConfigMap's grace period, for an edit that
// changes the Deployment's and keeps the two agreeing.
const graceInConfigMap = `configmap.yaml:TERMINATION_GRACE_PERIOD: "60s"`

func TestManifests(t *testing.T) {
	type want struct{ file, at, rule, msg string }
	cases := []struct {
		name    string
		service string   // the code
		deploy  string   // its manifests, under the service
		edits   []string // file.yaml:old, new
		want    []want
	}{
		{
			name: "grace shorter than the ladder: the message of gsgen plan", service: "../../golden/full", deploy: "deploy/k8s",
			edits: []string{"deployment.yaml:terminationGracePeriodSeconds: 60", "terminationGracePeriodSeconds: 30", graceInConfigMap, `TERMINATION_GRACE_PERIOD: "30s"`},
			want: []want{{"deployment.yaml", "terminationGracePeriodSeconds", vet.LadderRule,
				"Deployment orders: timeouts.grace: 30s is shorter than preStop 10s + HTTP drain 25s + close 1s + margin 5s = 41s; use grace 41s or more, or shorten http_shutdown, asynq_shutdown and worker_drain to 14s"}},
		},
		{
			name: "the Deployment's grace alone raised: the service checks itself against the ConfigMap's", service: "../../golden/full", deploy: "deploy/k8s",
			edits: []string{"deployment.yaml:terminationGracePeriodSeconds: 60", "terminationGracePeriodSeconds: 41"},
			want: []want{{"configmap.yaml", "TERMINATION_GRACE_PERIOD", vet.LadderRule,
				`TERMINATION_GRACE_PERIOD: "60s", but Deployment orders's terminationGracePeriodSeconds is 41s: the service checks its shutdown against numbers Kubernetes does not give it; make them the same`}},
		},
		{
			name: "the worker's own grace period disagrees", service: "../../golden/asynq-dedicated", deploy: "deploy/k8s",
			edits: []string{"worker-deployment.yaml:terminationGracePeriodSeconds: 31", "terminationGracePeriodSeconds: 40"},
			want: []want{{"configmap.yaml", "WORKER_TERMINATION_GRACE_PERIOD", vet.LadderRule,
				`WORKER_TERMINATION_GRACE_PERIOD: "31s", but Deployment orders-worker's terminationGracePeriodSeconds is 40s`}},
		},
		{
			name: "the ConfigMap raises the asynq drain: the worker breaks, the HTTP server does not drain asynq", service: "../../golden/asynq-dedicated", deploy: "deploy/k8s",
			edits: []string{"configmap.yaml:ASYNQ_SHUTDOWN_TIMEOUT: \"25s\"", "ASYNQ_SHUTDOWN_TIMEOUT: \"50s\""},
			want: []want{{"worker-deployment.yaml", "terminationGracePeriodSeconds", vet.LadderRule,
				"Deployment orders-worker: timeouts.grace: 31s is shorter than preStop 0s + asynq drain 50s + close 1s + margin 5s = 56s; use grace 56s or more, or shorten asynq_shutdown to 25s"}},
		},
		{
			name: "the ConfigMap raises the gRPC drain: GracefulStop's deadline is on the ladder", service: "../../golden/grpc", deploy: "deploy/k8s",
			edits: []string{"configmap.yaml:GRPC_SHUTDOWN_TIMEOUT: \"25s\"", "GRPC_SHUTDOWN_TIMEOUT: \"50s\""},
			want: []want{{"deployment.yaml", "terminationGracePeriodSeconds", vet.LadderRule,
				"Deployment greeter: timeouts.grace: 60s is shorter than preStop 10s + gRPC drain 50s + close 1s + margin 5s = 66s; use grace 66s or more, or shorten grpc.shutdown_timeout to 44s"}},
		},
		{
			name: "a longer preStop sleep", service: "../../golden/http", deploy: "deploy/k8s",
			edits: []string{"deployment.yaml:seconds: 10", "seconds: 40", "configmap.yaml:PRESTOP_SLEEP: \"10s\"", `PRESTOP_SLEEP: "40s"`},
			want: []want{{"deployment.yaml", "terminationGracePeriodSeconds", vet.LadderRule,
				"Deployment orders: timeouts.grace: 60s is shorter than preStop 40s + HTTP drain 25s + close 1s + margin 5s = 71s; use grace 71s or more, or shorten http_shutdown and worker_drain to 14s"}},
		},
		{
			name: "grace left out: Kubernetes' 30s", service: "../../golden/http", deploy: "deploy/k8s",
			edits: []string{"deployment.yaml:      terminationGracePeriodSeconds: 60\n", "", graceInConfigMap, `TERMINATION_GRACE_PERIOD: "30s"`},
			want: []want{{"deployment.yaml", "        prometheus.io/path: /metrics\n    spec:", vet.LadderRule,
				"terminationGracePeriodSeconds is not set, so Kubernetes gives Deployment orders 30s: timeouts.grace: 30s is shorter than preStop 10s + HTTP drain 25s + close 1s + margin 5s = 41s; use grace 41s or more, or shorten http_shutdown and worker_drain to 14s"}},
		},
		{
			name: "silenced with a reason", service: "../../golden/http", deploy: "deploy/k8s",
			edits: []string{"deployment.yaml:      terminationGracePeriodSeconds: 60", "      # gsgen:ignore ladder requests here never take more than a second\n      terminationGracePeriodSeconds: 30", graceInConfigMap, `TERMINATION_GRACE_PERIOD: "30s"`},
		},
		{
			name: "an ignore without a reason silences nothing", service: "../../golden/http", deploy: "deploy/k8s",
			edits: []string{"deployment.yaml:terminationGracePeriodSeconds: 60", "terminationGracePeriodSeconds: 30 # gsgen:ignore ladder", graceInConfigMap, `TERMINATION_GRACE_PERIOD: "30s"`},
			want: []want{
				{"deployment.yaml", "terminationGracePeriodSeconds", vet.LadderRule, "Deployment orders: timeouts.grace: 30s is shorter than"},
				{"deployment.yaml", "terminationGracePeriodSeconds", vet.Ignore.Name, "gsgen:ignore ladder gives no reason"},
			},
		},
		{
			name: "a ConfigMap value that is not a duration", service: "../../golden/http", deploy: "deploy/k8s",
			edits: []string{"configmap.yaml:HTTP_SHUTDOWN_TIMEOUT: \"25s\"", "HTTP_SHUTDOWN_TIMEOUT: \"25 seconds\""},
			want:  []want{{"configmap.yaml", "HTTP_SHUTDOWN_TIMEOUT", vet.LadderRule, `HTTP_SHUTDOWN_TIMEOUT: "25 seconds" is not a duration`}},
		},
		{
			name: "a hand-written service: the drain is the Shutdown timeout in the code", service: "testdata/seedsvc", deploy: "deploy",
			want: []want{{"deployment.yaml", "  template:\n    spec:", vet.LadderRule,
				"terminationGracePeriodSeconds is not set, so Kubernetes gives Deployment seedsvc 30s: timeouts.grace: 30s is shorter than preStop 10s + HTTP drain 25s + close 1s + margin 5s = 41s; use grace 41s or more, or shorten the Shutdown timeout at main.go:27 to 14s"}},
		},
		{
			name: "a dedicated worker on asynq's default ShutdownTimeout", service: "testdata/seedworker", deploy: "deploy",
			want: []want{{"worker.yaml", "terminationGracePeriodSeconds", vet.LadderRule,
				"Deployment seedworker: timeouts.grace: 10s is shorter than preStop 0s + asynq drain 8s + close 1s + margin 5s = 14s; use grace 14s or more, or shorten ShutdownTimeout (unset, asynq's default) of the asynq.Config at main.go:14 to 4s"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := manifestsOf(t, filepath.Join(c.service, c.deploy), c.edits...)
			findings, err := Check(dir, load(t, c.service))
			if err != nil {
				t.Fatal(err)
			}
			vet.SortFindings(findings)
			if len(findings) != len(c.want) {
				t.Fatalf("got %d findings, want %d:\n%v", len(findings), len(c.want), findings)
			}
			for i, w := range c.want {
				f := findings[i]
				file := filepath.Join(dir, w.file)
				line := lineOf(t, file, w.at) + strings.Count(w.at, "\n")
				if f.Pos.Filename != file || f.Pos.Line != line || f.Rule != w.rule || !strings.HasPrefix(f.Message, w.msg) {
					t.Errorf("finding %d:\n got %s:%d [%s] %s\nwant %s:%d [%s] %s", i, f.Pos.Filename, f.Pos.Line, f.Rule, f.Message, file, line, w.rule, w.msg)
				}
			}
		})
	}
}

// The ladder finding says what gsgen plan says about the same numbers.
func TestManifestMessageIsPlans(t *testing.T) {
	const service = "../../golden/full"
	dir := manifestsOf(t, filepath.Join(service, "deploy/k8s"), "deployment.yaml:terminationGracePeriodSeconds: 60", "terminationGracePeriodSeconds: 35", graceInConfigMap, `TERMINATION_GRACE_PERIOD: "35s"`)
	findings, err := Check(dir, load(t, service))
	if err != nil || len(findings) != 1 {
		t.Fatalf("findings %v, err %v; want one", findings, err)
	}
	data, err := os.ReadFile(filepath.Join(service, "gsgen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := answers.ParseAnswersFile("gsgen.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	a.Timeouts.Grace = answers.Duration(35 * time.Second)
	_, err = generator.NewModel(a.WithDefaults())
	var plan *model.LadderError
	if !errors.As(err, &plan) {
		t.Fatalf("gsgen plan accepts grace 35s: %v", err)
	}
	if want := "Deployment orders: " + plan.Error(); findings[0].Message != want {
		t.Errorf("vet says\n%s\nplan says\n%s", findings[0].Message, want)
	}
}

// Manifests are read as regular files under a cap, never through a link:
// a FIFO would block for ever, a link to /dev/zero would never end, a huge
// file would be read whole.
func TestManifestsThatAreNotFilesAreRefused(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.yaml")
	if err := os.WriteFile(outside, []byte("kind: ConfigMap\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		plant func(p string) error
		want  string
	}{
		"fifo":         {func(p string) error { return syscall.Mkfifo(p, 0o644) }, "is a FIFO, not a regular file"},
		"link to zero": {func(p string) error { return os.Symlink("/dev/zero", p) }, "is a symbolic link"},
		"link out":     {func(p string) error { return os.Symlink(outside, p) }, "is a symbolic link"},
		"100 MB":       {func(p string) error { return os.Truncate(p, 100<<20) }, "is 104857600 bytes; gsgen reads at most 8192 KiB here"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "x.yaml")
			if name == "100 MB" {
				os.WriteFile(p, nil, 0o644)
			}
			if err := c.plant(p); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := Check(dir, nil); done <- err }()
			select {
			case err := <-done:
				var input *problem.InputError
				if !errors.As(err, &input) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("Check = %v, want bad input saying %q", err, c.want)
				}
			case <-time.After(time.Minute): // only catches a hang
				t.Fatal("Check is still reading after a minute")
			}
		})
	}
}
