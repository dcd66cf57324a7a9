package model

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// The probes' timings. /readyz and /healthz answer from memory.
const (
	readinessPeriod  = 5 * time.Second
	readinessTimeout = 1 * time.Second
	// Two misses in a row: a single slow answer does not take a pod out of
	// its Service.
	readinessFailures = 2
	livenessPeriod    = 10 * time.Second
	livenessTimeout   = 2 * time.Second
	// Three misses in a row, 30s without an answer: a process that cannot
	// answer from memory for that long is stuck.
	livenessFailures = 3
	// The dedicated worker's /healthz fails while asynq cannot reach Redis,
	// which it checks every 15s: six misses, a minute, before a restart, so a
	// short Redis blip restarts nothing.
	workerLivenessFailures = 6
)

// Values that are not answers: the same as config.go's defaults (a test in
// golden/ reads both) or the in-cluster addresses of the dependencies.
const (
	deployRedisAddr    = "redis:6379"
	deployKafkaBrokers = "kafka:9092"
	deployReplicas     = 2
)

// deployOutboxMaxMessageBytes is the relay's largest event, config.go's
// default: kafka-go's default BatchBytes (1 MiB), just under a broker's
// default message.max.bytes (1048588).
const deployOutboxMaxMessageBytes = 1048576

// deploy derives the deploy values. Kubernetes counts the grace period and a
// preStop sleep in whole seconds, so it refuses either when it is not whole:
// rounding would move SIGTERM or SIGKILL away from the checked ladder.
func (m *Model) deploy() (Deploy, error) {
	// Suggest the whole second that keeps the ladder fitting: more grace, a shorter sleep.
	grace, err := kubernetesSeconds("timeouts.grace", m.Timeouts.Grace, "terminationGracePeriodSeconds", CeilSecond(m.Timeouts.Grace))
	if err != nil {
		return Deploy{}, err
	}
	preStop, err := kubernetesSeconds("timeouts.prestop", m.Timeouts.PreStop, "a preStop sleep", m.Timeouts.PreStop.Truncate(time.Second))
	if err != nil {
		return Deploy{}, err
	}
	if !m.Serves {
		preStop = 0
	}
	d := Deploy{
		Replicas:       deployReplicas,
		GraceSeconds:   grace,
		PreStopSeconds: preStop,
		AdminPort:      m.AdminPort,
		Readiness:      Probe{Path: "/readyz", PeriodSeconds: secondsOf(readinessPeriod), TimeoutSeconds: secondsOf(readinessTimeout), FailureThreshold: readinessFailures},
		// The admin listener answers until the process exits, drain included,
		// so a liveness failure means a stuck process, never a draining one.
		Liveness:         Probe{Path: "/healthz", PeriodSeconds: secondsOf(livenessPeriod), TimeoutSeconds: secondsOf(livenessTimeout), FailureThreshold: livenessFailures},
		Config:           m.configEnv(),
		RedisSecret:      m.redisSecret(),
		PostgresSecret:   m.postgresSecret(),
		KafkaLoginSecret: m.kafkaLoginSecret(),
		RedisAddr:        deployRedisAddr,
		KafkaBrokers:     deployKafkaBrokers,
		Topics:           m.kafkaTopics(),
	}
	for _, s := range []*SecretEnv{d.RedisSecret, d.PostgresSecret} {
		if s != nil {
			d.Secrets = append(d.Secrets, *s)
		}
	}
	for _, k := range m.KindsOn() {
		if k.deploy != nil {
			k.deploy(m, &d)
		}
	}
	return d, nil
}

// kubernetesSeconds is d in whole seconds, or an *InputError for the answer
// field that suggests a whole number of seconds instead.
func kubernetesSeconds(field string, d time.Duration, what string, suggest time.Duration) (int64, error) {
	if d%time.Second != 0 {
		return 0, &problem.InputError{Field: field, Msg: fmt.Sprintf("%v is not a whole number of seconds; Kubernetes counts %s in whole seconds", d, what),
			Fix: "use " + problem.Seconds(max(time.Second, suggest))}
	}
	return secondsOf(d), nil
}

func secondsOf(d time.Duration) int64 { return int64(d / time.Second) }

// workerLadder is the dedicated worker's budget. Nothing routes to it, so
// SIGTERM comes at once (no preStop); asynq's Shutdown is its only drain, and
// its grace period is that drain, closing and the margin, in whole seconds.
func (m *Model) workerLadder() Ladder {
	t := m.Timeouts
	l := Ladder{Close: t.CloseBudget, Margin: t.Margin,
		Drains: []Drain{{Name: "asynq drain", Key: "asynq_shutdown", D: t.AsynqShutdown, Note: "Stop, then Shutdown waits for active tasks", Part: "asynq", Var: asynqShutdownVar}}}
	l.Grace = CeilSecond(l.Worst())
	return l
}

// Where the servers are on a developer's machine: config.go's defaults, so
// that `make run` and the service's tests find the local ones.
const (
	LocalDatabaseURL  = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	LocalRedisAddr    = "127.0.0.1:6379"
	LocalKafkaBrokers = "127.0.0.1:9092"
)

// configEnv is the ConfigMap: every variable config.go reads with a default,
// less the secret ones, where the servers are in a cluster instead of on a
// laptop.
func (m *Model) configEnv() []EnvVar {
	var env []EnvVar
	for _, v := range m.localEnv() {
		switch v.Name {
		case "DATABASE_URL": // from a Secret
			continue
		case "REDIS_ADDR":
			v = textVar(v.Name, deployRedisAddr, "not an answer: where Redis is in your cluster")
		case "KAFKA_BROKERS":
			v = textVar(v.Name, deployKafkaBrokers, "not an answer: where Kafka is in your cluster")
		}
		env = append(env, v)
	}
	return env
}

// Default is what the variable config.go reads as name takes when it is
// unset, for the templates: the README's table asks here, config.go's
// constants ask GoDefault and the ConfigMap is configEnv, all from
// localEnv, so they cannot disagree. An error for a variable without a
// default.
func (m *Model) Default(name string) (string, error) {
	for _, v := range m.localEnv() {
		if v.Name == name {
			return v.Value, nil
		}
	}
	return "", fmt.Errorf("config.go reads no variable %s with a default", name)
}

// GoDefault is Default as config.go writes it: a Go constant expression.
func (m *Model) GoDefault(name string) (string, error) {
	for _, v := range m.localEnv() {
		if v.Name == name {
			return v.Go, nil
		}
	}
	return "", fmt.Errorf("config.go reads no variable %s with a default", name)
}

// localEnv lists every variable config.go reads with a default, in its
// order, with that default: the value the model gives it.
func (m *Model) localEnv() []EnvVar {
	t := m.Timeouts
	env := []EnvVar{
		textVar("ADMIN_ADDR", ":"+strconv.Itoa(m.AdminPort), "not an answer: the service's default"),
		boolVar("PPROF", false, "not an answer: turn the profiler on by hand when you need it"),
		durationVar("TERMINATION_GRACE_PERIOD", m.Ladder.Grace, "timeouts.grace: terminationGracePeriodSeconds, for the service to check its budget"),
		durationVar("PRESTOP_SLEEP", m.Ladder.PreStop, preStopFrom(m)),
		durationVar("SHUTDOWN_MARGIN", m.Ladder.Margin, "timeouts.margin"),
		durationVar("CLOSE_TIMEOUT", t.CloseBudget, "timeouts.close_budget"),
		{Name: "LOG_LEVEL", Value: "info", Go: "slog.LevelInfo", From: "not an answer: the service's default"},
		durationVar(workerDrainVar, t.WorkerDrain, "timeouts.worker_drain"),
	}
	if m.Tracing {
		env = append(env, boolVar("OTEL_SDK_DISABLED", false, "not an answer: true turns tracing off"))
	}
	// Where the servers are: the same for every kind that talks to them.
	if m.UsesRedis {
		env = append(env,
			textVar("REDIS_ADDR", LocalRedisAddr, "not an answer: the service's default"),
			countVar("REDIS_DB", 0, "not an answer: the service's default"),
			boolVar("REDIS_TLS", false, "not an answer: true when your Redis wants TLS"))
	}
	if m.UsesPostgres {
		env = append(env,
			textVar("DATABASE_URL", LocalDatabaseURL, "not an answer: the service's default"),
			countVar("DATABASE_MAX_CONNS", m.Pool.Default, "derived: "+m.Pool.String()))
	}
	if m.UsesKafka {
		env = append(env,
			textVar("KAFKA_BROKERS", LocalKafkaBrokers, "not an answer: the service's default"),
			boolVar("KAFKA_TLS", false, "not an answer: true when your Kafka wants TLS"))
	}
	for _, k := range m.KindsOn() {
		if k.env != nil {
			env = append(env, k.env(m)...)
		}
	}
	return env
}

// redisSecret is where REDIS_PASSWORD comes from. Optional: a Redis without
// a password needs no Secret.
func (m *Model) redisSecret() *SecretEnv {
	if m.TaskServer == nil {
		return nil
	}
	return &SecretEnv{Name: "REDIS_PASSWORD", Secret: m.Name + "-redis", Optional: true, Example: "CHANGE-ME"}
}

// kafkaLoginSecret is the Secret Kafka's login comes from, when it wants
// one: the mechanism, user and password together, read whole (envFrom) and
// optional, so a Kafka without SASL needs no Secret.
func (m *Model) kafkaLoginSecret() string {
	if !m.UsesKafka {
		return ""
	}
	return m.Name + "-kafka"
}

// postgresSecret is where DATABASE_URL comes from: a Secret of its own, as a
// database operator or a secret store would provide it.
func (m *Model) postgresSecret() *SecretEnv {
	if !m.UsesPostgres {
		return nil
	}
	return &SecretEnv{Name: "DATABASE_URL", Secret: m.Name + "-postgres", Optional: false,
		Example: "postgres://CHANGE-ME-USER:CHANGE-ME-PASSWORD@postgres.example.invalid:5432/" + m.Name + "?sslmode=require"}
}

// kafkaTopics lists the topics the outbox relay writes, the consumers read
// and dead-letter to, sorted, each once.
func (m *Model) kafkaTopics() []string {
	var out []string
	for _, k := range m.KindsOn() {
		if k.topics != nil {
			out = append(out, k.topics(m)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// preStopFrom says where PRESTOP_SLEEP comes from.
func preStopFrom(m *Model) string {
	if !m.Serves {
		return "no Service routes to the pods: no preStop sleep"
	}
	return "timeouts.prestop: the preStop sleep"
}
