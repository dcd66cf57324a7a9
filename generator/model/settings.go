package model

import "time"

// Timeouts is the shutdown budget as durations.
type Timeouts struct {
	PreStop, Grace, HTTPShutdown, WorkerDrain, AsynqShutdown, TaskTimeout, CloseBudget, Margin time.Duration
}

// GRPCServer is the grpc kind's settings on the model.
type GRPCServer struct {
	Port            int
	ShutdownTimeout time.Duration
	Reflection      bool
}

// TaskServer is the asynq server's settings (design §4).
type TaskServer struct {
	Dedicated         bool // its own binary, cmd/<name>-worker, with srv.Run
	Concurrency       int
	TaskCheckInterval time.Duration
	AllowRequeue      bool   // task timeout may exceed ShutdownTimeout: handlers are idempotent
	ExampleType       string // the example task's type (ExampleTaskType)
}

// CIWorkflow is what .github/workflows/ci.yml says, computed once.
type CIWorkflow struct {
	// GsgenVet is the package go run builds gsgen vet from, at a version:
	// the release of the gsgen that wrote the workflow, so a newer gsgen
	// with a new rule fails no build until regen brings it in (a diff of
	// this line in review). A gsgen built from a checkout has no release to
	// name and writes @latest.
	GsgenVet string
	// The addresses the tests reach the service containers at, in the
	// variables internal/testenv reads; empty when the service has no such
	// server.
	DatabaseURL, RedisAddr string
	// Servers names them for the workflow's comment: "PostgreSQL and Redis".
	Servers string
}
