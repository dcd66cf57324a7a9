package model

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

func grpcAnswers(comps ...string) answers.Answers {
	return answers.Answers{Name: "svc", Components: comps}
}

func TestGRPCDefaultsAndDrain(t *testing.T) {
	m, err := newModel(grpcAnswers("grpc").WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if m.GRPC == nil || m.GRPC.Port != DefaultGRPCPort || m.GRPC.ShutdownTimeout != defaultGRPCShutdownTimeout || m.GRPC.Reflection {
		t.Fatalf("grpc settings %+v, want port %d, shutdown %v, no reflection", m.GRPC, DefaultGRPCPort, defaultGRPCShutdownTimeout)
	}
	// A Service routes to a gRPC server too: it keeps the preStop sleep.
	if !m.Serves || m.Ladder.PreStop != m.Timeouts.PreStop || m.Deploy.PreStopSeconds == 0 {
		t.Errorf("grpc alone: Serves %v, ladder preStop %v, deploy preStop %ds; want the preStop of the answers", m.Serves, m.Ladder.PreStop, m.Deploy.PreStopSeconds)
	}
	var drain *Drain
	for i, d := range m.Ladder.Drains {
		if d.Part == "grpc" {
			drain = &m.Ladder.Drains[i]
		}
	}
	if drain == nil || drain.Key != grpcShutdownKey || drain.D != defaultGRPCShutdownTimeout {
		t.Errorf("the ladder's drains %+v, want a grpc one of %v under %s", m.Ladder.Drains, defaultGRPCShutdownTimeout, grpcShutdownKey)
	}
	env := map[string]string{}
	for _, v := range m.Deploy.Config {
		env[v.Name] = v.Value
	}
	for name, want := range map[string]string{"GRPC_ADDR": ":50051", "GRPC_SHUTDOWN_TIMEOUT": "25s", "GRPC_REFLECTION": "false"} {
		if env[name] != want {
			t.Errorf("ConfigMap %s = %q, want %q", name, env[name], want)
		}
	}
	if !m.Dependencies().GRPC {
		t.Error("a grpc service's dependencies lack google.golang.org/grpc")
	}
}

// Without grpc, nothing of it: no answers written back, no drain.
func TestNoGRPCWithoutTheComponent(t *testing.T) {
	m, err := newModel(grpcAnswers("http").WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if m.GRPC != nil || m.Answers.GRPC != (answers.GRPCAnswers{}) || m.Dependencies().GRPC {
		t.Errorf("an http service has grpc: model %+v, answers %+v", m.GRPC, m.Answers.GRPC)
	}
}

func TestGRPCBadAnswers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(*answers.Answers)
		field string
		msg   string
	}{
		{"http's port", func(a *answers.Answers) { a.GRPC.Port = 8080 }, "grpc.port", "is the HTTP port too"},
		{"admin's port", func(a *answers.Answers) { a.GRPC.Port = answers.DefaultAdminPort }, "grpc.port", "admin listener"},
		{"not a port", func(a *answers.Answers) { a.GRPC.Port = 70000 }, "grpc.port", "is not a TCP port"},
		{"negative drain", func(a *answers.Answers) { a.GRPC.ShutdownTimeout = answers.Duration(-time.Second) }, grpcShutdownKey, "must not be negative"},
		{"drain past the grace", func(a *answers.Answers) { a.GRPC.ShutdownTimeout = answers.Duration(50 * time.Second) }, "timeouts.grace", "gRPC drain 50s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := grpcAnswers("http", "grpc")
			tc.set(&a)
			_, err := newModel(a.WithDefaults())
			var ie *problem.InputError
			if !errors.As(err, &ie) || ie.Field != tc.field || !strings.Contains(ie.Error(), tc.msg) {
				t.Fatalf("got %v, want an InputError on %s saying %q", err, tc.field, tc.msg)
			}
		})
	}
}

func TestAddAndRemoveGRPC(t *testing.T) {
	a, err := grpcAnswers("http").WithDefaults().AddComponent(GRPC)
	if err != nil {
		t.Fatal(err)
	}
	a = a.WithDefaults()
	if _, err := newModel(a); err != nil {
		t.Fatal(err)
	}
	if a.GRPC.Port != DefaultGRPCPort {
		t.Errorf("after add: grpc answers %+v", a.GRPC)
	}
	if _, err := a.AddComponent(GRPC); err == nil {
		t.Error("adding grpc twice: no error")
	}
	a, err = a.RemoveComponent(GRPC, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(a.Components, ","), "grpc") || a.GRPC != (answers.GRPCAnswers{}) {
		t.Errorf("after remove: components %v, grpc answers %+v; want neither", a.Components, a.GRPC)
	}
}

func TestGRPCFlags(t *testing.T) {
	var a answers.Answers
	for _, x := range [][2]string{{"grpc-port", "7000"}, {"grpc-shutdown", "12s"}, {"grpc-reflection", "true"}} {
		name, v := x[0], x[1]
		f := kindFlag(t, name)
		if err := f.Set(&a, v); err != nil {
			t.Fatal(err)
		}
		if got := f.Value(a); got != v {
			t.Errorf("--%s %s reads back %q", name, v, got)
		}
	}
	for name, bad := range map[string]string{"grpc-port": "0", "grpc-shutdown": "soon", "grpc-reflection": "maybe"} {
		var ie *problem.InputError
		if err := kindFlag(t, name).Set(&a, bad); !errors.As(err, &ie) || ie.Field != "--"+name {
			t.Errorf("--%s %s: %v, want an InputError on --%s", name, bad, err, name)
		}
	}
}

func kindFlag(t *testing.T, name string) KindFlag {
	t.Helper()
	for _, f := range KindFlags() {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no kind flag --%s", name)
	return KindFlag{}
}

// The service's own tests start it with every listener on a free port, and
// point one at a taken port: gRPC's address is among them, after HTTP's.
func TestListenersNameEveryServingKind(t *testing.T) {
	for _, tc := range []struct {
		comps []string
		taken string
		want  []Listener
	}{
		{[]string{"outbox"}, "", []Listener{{"ADMIN_ADDR", false}}},
		{[]string{"grpc"}, "ADMIN_ADDR", []Listener{{"ADMIN_ADDR", true}, {"GRPC_ADDR", false}}},
		{[]string{"grpc", "http"}, "HTTP_ADDR", []Listener{{"ADMIN_ADDR", false}, {"HTTP_ADDR", true}, {"GRPC_ADDR", false}}},
	} {
		m, err := newModel(grpcAnswers(tc.comps...).WithDefaults())
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Listeners(tc.taken); !slices.Equal(got, tc.want) {
			t.Errorf("%v, taken %q: listeners %v, want %v", tc.comps, tc.taken, got, tc.want)
		}
	}
}
