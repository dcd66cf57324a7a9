package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/version"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	"golang.org/x/mod/modfile"
)

// dialTimeout bounds each attempt to reach a server: long enough for a slow
// laptop, short enough that an address nothing answers on (a firewall that
// drops) does not hang the doctor. A closed port is refused at once.
const dialTimeout = 5 * time.Second

// offline is the environment of the go commands the doctor runs: the local
// toolchain only and no module proxy, so a check never touches the network
// and says what this machine has, not what it could download.
func offline() []string {
	return append(os.Environ(), "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=")
}

// GoVersion checks that the go command on PATH is at least the version
// dir's go.mod asks for (its go line; its toolchain line when newer).
func GoVersion(ctx context.Context, dir string) Check {
	c := Check{Name: "Go"}
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return Check{Name: "Go", Status: Missing, Detail: fmt.Sprintf("cannot read %s: %v", filepath.Join(dir, "go.mod"), err),
			Fix: "run the doctor on the directory of a service gsgen generated"}
	}
	f, err := modfile.Parse("go.mod", b, nil)
	if err != nil || f.Go == nil {
		return Check{Name: "Go", Status: Missing, Detail: fmt.Sprintf("%s has no go line: %v", filepath.Join(dir, "go.mod"), err),
			Fix: "regenerate the service (gsgen regen) or add the go line go mod init writes"}
	}
	want := "go" + f.Go.Version
	if f.Toolchain != nil && version.Compare(f.Toolchain.Name, want) > 0 {
		want = f.Toolchain.Name
	}
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Dir, cmd.Env = dir, offline()
	out, err := cmd.Output()
	if err != nil {
		c.Status, c.Detail = Missing, "no go command: "+commandError(err)
		c.Fix = "install Go " + strings.TrimPrefix(want, "go") + " or newer (https://go.dev/dl/) and put its bin directory on PATH"
		return c
	}
	have := strings.TrimSpace(string(out))
	if !version.IsValid(have) || version.Compare(have, want) < 0 {
		c.Status, c.Detail = Missing, fmt.Sprintf("%s on PATH, but go.mod asks for %s: offline, the build stops (online, go downloads %s first)", have, want, want)
		c.Fix = "install Go " + strings.TrimPrefix(want, "go") + " or newer (https://go.dev/dl/)"
		return c
	}
	c.Detail = fmt.Sprintf("%s (go.mod asks for %s)", have, want)
	return c
}

// Server says where a server is and how the service learns it.
type Server struct {
	Addr string // the address: a URL for PostgreSQL, host:port otherwise, comma-separated for Kafka
	Var  string // the variable the address comes from
	Set  bool   // the variable is set; false: Addr is the service's default
}

// from says where the address came from, for the report.
func (s Server) from() string {
	if s.Set {
		return s.Var
	}
	return s.Var + " unset: its default"
}

// Postgres connects to the PostgreSQL at s.Addr (a URL), logging in as the
// service would.
func Postgres(ctx context.Context, s Server, fix string) Check {
	cfg, err := pgx.ParseConfig(s.Addr)
	if err != nil {
		return Check{Name: "PostgreSQL", Status: Missing, Detail: fmt.Sprintf("%s is not a PostgreSQL URL: %s", s.Var, firstLine(err.Error())),
			Fix: "set " + s.Var + " to a URL such as postgres://user@host:5432/db?sslmode=disable"}
	}
	c := Check{Name: fmt.Sprintf("PostgreSQL at %s", net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port)))}
	cfg.ConnectTimeout = dialTimeout
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		c.Status, c.Detail, c.Fix = Missing, fmt.Sprintf("%s (%s)", firstLine(err.Error()), s.from()), fix
		return c
	}
	defer conn.Close(context.WithoutCancel(ctx))
	c.Detail = fmt.Sprintf("database %s answers (%s)", cfg.Database, s.from())
	return c
}

// Redis sends PING to the Redis at s.Addr.
func Redis(ctx context.Context, s Server, password, fix string) Check {
	c := Check{Name: "Redis at " + s.Addr}
	client := redis.NewClient(&redis.Options{Addr: s.Addr, Password: password, DialTimeout: dialTimeout,
		MaxRetries: -1, DisableIdentity: true})
	defer client.Close()
	if err := client.Ping(ctx).Err(); err != nil {
		c.Status, c.Detail, c.Fix = Missing, fmt.Sprintf("%s (%s)", firstLine(err.Error()), s.from()), fix
		return c
	}
	c.Detail = "PING answered (" + s.from() + ")"
	return c
}

// Kafka opens a TCP connection to each broker of s.Addr. The service's
// tests and make demo run Kafka in-process, so only make run needs one: an
// unreachable Kafka is a note, not a missing piece.
func Kafka(ctx context.Context, s Server) Check {
	c := Check{Name: "Kafka at " + s.Addr}
	d := net.Dialer{Timeout: dialTimeout}
	for _, b := range strings.Split(s.Addr, ",") {
		conn, err := d.DialContext(ctx, "tcp", strings.TrimSpace(b))
		if err != nil {
			c.Status = Note
			c.Detail = fmt.Sprintf("%s (%s); only make run needs a Kafka: the service's tests and make demo run one in-process (kfake)", firstLine(err.Error()), s.from())
			c.Fix = "for make run, start the Kafka of compose.yaml (make up) or set " + s.Var + " to yours"
			return c
		}
		conn.Close()
	}
	c.Detail = "every broker accepts a connection (" + s.from() + "); the tests do not need it: they run Kafka in-process"
	return c
}

// Docker runs docker info: the daemon answers. need is false when the plan
// can do without docker (the servers run on this machine): then a missing
// docker is a note.
func Docker(ctx context.Context, need bool, why string) Check {
	c := Check{Name: "docker"}
	cmd := exec.CommandContext(ctx, "docker", "info", "--format", "{{.ServerVersion}}")
	out, err := cmd.Output()
	if err == nil {
		c.Detail = "daemon " + strings.TrimSpace(string(out)) + " answers; " + why
		return c
	}
	c.Status, c.Detail = Note, "docker info failed: "+commandError(err)+"; "+why
	if need {
		c.Status = Missing
	}
	c.Fix = "install and start docker (docker info must answer), or run the servers on this machine"
	return c
}

// OnPath checks that gsgen is on PATH: make demo draws its timeline with
// it, and does without (a note) when it is not.
func OnPath() Check {
	c := Check{Name: "gsgen on PATH"}
	path, err := exec.LookPath("gsgen")
	if err != nil {
		c.Status, c.Detail = Note, "not found: make demo runs, but draws no timeline"
		c.Fix = "go install ./cmd/gsgen in gsgen's checkout, with $(go env GOPATH)/bin on PATH"
		return c
	}
	c.Detail = path + " (make demo draws its timeline with it)"
	return c
}

// FreePort checks that nothing listens on addr yet, by listening on it.
func FreePort(what, addr, variable string) Check {
	c := Check{Name: fmt.Sprintf("port %s (%s)", addr, what)}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		_, port, _ := net.SplitHostPort(addr)
		c.Status, c.Detail = Missing, firstLine(err.Error())
		c.Fix = fmt.Sprintf("stop what listens there (ss -ltnp 'sport = :%s' names it), or set %s to a free one", port, variable)
		return c
	}
	l.Close()
	c.Detail = "free (" + variable + ")"
	return c
}

// ModuleCache checks, without the network, that every module dir's build
// needs is in the module cache (go mod download with GOPROXY=off), or in
// its vendor directory.
func ModuleCache(ctx context.Context, dir string) Check {
	c := Check{Name: "module cache"}
	if _, err := os.Stat(filepath.Join(dir, "vendor", "modules.txt")); err == nil {
		c.Detail = "vendor/ holds the modules: build with GOFLAGS=-mod=vendor, no cache or network needed"
		return c
	}
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json")
	cmd.Dir, cmd.Env = dir, offline()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	all, missing := 0, []string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m struct{ Path, Version, Error string }
		if dec.Decode(&m) != nil {
			break
		}
		all++
		if m.Error != "" {
			missing = append(missing, m.Path+"@"+m.Version)
		}
	}
	if err == nil && len(missing) == 0 {
		c.Detail = fmt.Sprintf("all %d modules are there (checked with GOPROXY=off)", all)
		return c
	}
	c.Status = Missing
	switch {
	case len(missing) > 0:
		c.Detail = fmt.Sprintf("%d of %d modules are not, e.g. %s", len(missing), all, missing[0])
	case stderr.Len() > 0:
		c.Detail = "not warm: " + firstLine(stderr.String())
	default:
		c.Detail = "go mod download failed: " + commandError(err)
	}
	c.Fix = "online: make deps in the service (or go mod download); offline: GOPROXY=file://<a warm cache>/cache/download go mod download, or a vendor/ copied from a warm machine (docs/prework.md)"
	return c
}

// commandError is what a command that failed said, on one line.
func commandError(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return firstLine(string(exit.Stderr))
	}
	return firstLine(err.Error())
}
