package model

// Deploy is what the deploy artifacts say (deploy/k8s, compose.yaml and the
// README's deploy section), derived from the model, so that every number in a
// manifest is a number of the Go config (design §7).
type Deploy struct {
	Replicas     int   // pods of the service: two, so one serves while the other drains
	GraceSeconds int64 // terminationGracePeriodSeconds: the grace answer
	// PreStopSeconds is lifecycle.preStop.sleep.seconds, the prestop answer;
	// zero, and no preStop hook, for a service without HTTP: no Service
	// routes to it, so a sleep would only slow every rollout.
	PreStopSeconds int64
	AdminPort      int   // the admin listener's port: the probes
	Readiness      Probe // on /readyz
	Liveness       Probe // on /healthz

	Config  []EnvVar    // the ConfigMap: every variable config.go reads, except the secret ones
	Secrets []SecretEnv // the variables that come from a Secret, one Secret per dependency
	// The same Secrets by dependency, for their example files; nil when the
	// service does not use it.
	RedisSecret, PostgresSecret *SecretEnv
	// KafkaLoginSecret names the optional Secret whose keys (KAFKA_SASL_*)
	// become variables when Kafka wants a login; "" without Kafka.
	KafkaLoginSecret string

	RedisAddr    string   // in-cluster address of Redis; compose's service is named so
	KafkaBrokers string   // in-cluster address of Kafka; compose's service is named so
	Topics       []string // the Kafka topics the service writes or reads, sorted: compose creates them

	Worker *WorkerDeploy // the dedicated asynq worker's Deployment; nil without one
}

// Probe is an HTTP probe of the service's pods.
type Probe struct {
	Path                                            string
	PeriodSeconds, TimeoutSeconds, FailureThreshold int64
}

// EnvVar is an environment variable config.go reads, with its default: a
// ConfigMap entry, a constant of config.go, a row of the README's table.
type EnvVar struct {
	Name, Value string // Value as the environment spells it: "25s", "19"
	From        string // where the value comes from, for a comment beside it
	Go          string // Value as a Go constant expression, for config.go: 25 * time.Second
}

// SecretEnv is an environment variable taken from a key of a Secret.
type SecretEnv struct {
	Name     string // the variable, and the key in the Secret
	Secret   string // the Secret's name
	Optional bool   // the pod starts without it
	Example  string // an obviously fake value for the example Secret
}

// WorkerDeploy is the dedicated asynq worker's Deployment. It has no Service,
// so it needs no preStop sleep and no readiness probe; its grace period
// covers asynq's shutdown, closing and the margin.
type WorkerDeploy struct {
	Name         string // binary and Deployment: <name>-worker
	GraceSeconds int64
	Ladder       Ladder // its own budget: no preStop, one drain
	Liveness     Probe  // on its admin listener's /healthz, which follows asynq's Redis check
}
