package doctor

import (
	"context"
	"os"
	"path/filepath"
)

// Target is what the doctor checks for: a generated service, or gsgen's own
// tests.
type Target struct {
	Dir string // where its go.mod is; "" when there is none to read (gsgen's tests outside its checkout)
	// The servers it talks to; nil for one it does not use.
	Postgres, Redis, Kafka *Server
	RedisPassword          string
	// What to do when PostgreSQL or Redis does not answer.
	PostgresFix, RedisFix string
	// Compose says the service has a compose.yaml: make up, and make demo
	// when no server address is set, run the servers in docker.
	Compose bool
	Ports   []Port // the ports the service listens on
	// Demo says the service has make demo, which calls gsgen timeline.
	Demo bool
}

// Port is a port the service listens on.
type Port struct {
	What, Addr, Var string // "HTTP", ":8080", "HTTP_ADDR"
}

// Run runs every check t needs, in order.
func Run(ctx context.Context, t Target) Report {
	var r Report
	if t.Dir != "" {
		r = append(r, GoVersion(ctx, t.Dir))
	}
	serversOK := true
	if s := t.Postgres; s != nil {
		c := Postgres(ctx, *s, t.PostgresFix)
		serversOK = serversOK && c.Status == OK
		r = append(r, c)
	}
	if s := t.Redis; s != nil {
		c := Redis(ctx, *s, t.RedisPassword, t.RedisFix)
		serversOK = serversOK && c.Status == OK
		r = append(r, c)
	}
	if s := t.Kafka; s != nil {
		r = append(r, Kafka(ctx, *s))
	}
	if t.Compose {
		// make demo and make up start the servers in docker; with the
		// servers answering here, only make up still needs it.
		why := "make up runs the service in it; make demo too when DATABASE_URL and REDIS_ADDR are unset"
		r = append(r, Docker(ctx, !serversOK, why))
	}
	if t.Demo {
		r = append(r, OnPath())
	}
	for _, p := range t.Ports {
		r = append(r, FreePort(p.What, p.Addr, p.Var))
	}
	if t.Dir != "" {
		if _, err := os.Stat(filepath.Join(t.Dir, "go.sum")); err == nil {
			r = append(r, ModuleCache(ctx, t.Dir))
		}
	}
	return r
}
