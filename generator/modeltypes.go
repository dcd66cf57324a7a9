package generator

import (
	"time"

	// Imported by another name: the package's tests have a helper named model.
	gmodel "github.com/gsgen-dev/gsgen/generator/model"
)

// The value types generator/model holds, under the names generator's
// callers and the templates know; generator derives them (NewLadder,
// Dependencies, poolSize, deploy) as before.
type (
	// The shutdown ladder (NewLadder).
	Ladder      = gmodel.Ladder
	Drain       = gmodel.Drain
	Bound       = gmodel.Bound
	Term        = gmodel.Term
	Phase       = gmodel.Phase
	LadderError = gmodel.LadderError
	// The modules a service imports (Dependencies); go.mod and go.sum are
	// written from them in gomod.go.
	DependencySet = gmodel.DependencySet
	Module        = gmodel.Module
	// The pool's size (poolSize).
	PoolSize = gmodel.PoolSize
	PoolPart = gmodel.PoolPart
	// The deploy values (deploy).
	Deploy       = gmodel.Deploy
	Probe        = gmodel.Probe
	EnvVar       = gmodel.EnvVar
	SecretEnv    = gmodel.SecretEnv
	WorkerDeploy = gmodel.WorkerDeploy
	// The outbox relay's and the Kafka consumers' settings (outboxDerive,
	// consumerDerive).
	Relay            = gmodel.Relay
	Consumer         = gmodel.Consumer
	DeadLetterHeader = gmodel.DeadLetterHeader
	// The cleaners, the workers and the user's asynq tasks (cleanerDerive,
	// deriveWorkers), the leases of the fleet-scoped ones (scopeOf) and the
	// periodic parts for gsgen plan (Model.Periodic).
	CleanerJob = gmodel.CleanerJob
	WorkerJob  = gmodel.WorkerJob
	TaskType   = gmodel.TaskType
	Queue      = gmodel.Queue
	Lease      = gmodel.Lease
	Periodic   = gmodel.Periodic
	// The shutdown budget (newModel), the gRPC and asynq servers' settings
	// (grpcDerive, asynqDerive), the CI workflow's (Model.ciWorkflow) and the
	// largest counts config.go accepts (limits).
	Timeouts   = gmodel.Timeouts
	GRPCServer = gmodel.GRPCServer
	TaskServer = gmodel.TaskServer
	CIWorkflow = gmodel.CIWorkflow
	Limits     = gmodel.Limits
)

// sum is a Bound of timeouts that run one after the other (model.Sum).
func sum(terms []Term) Bound { return gmodel.Sum(terms) }

// ceilSecond rounds d up to a whole second (model.CeilSecond).
func ceilSecond(d time.Duration) time.Duration { return gmodel.CeilSecond(d) }

// allDependencySets lists every set the flags can make (model.AllDependencySets).
func allDependencySets() []DependencySet { return gmodel.AllDependencySets() }

// scopeOfLease is where a part with lease l runs (model.ScopeOf).
func scopeOfLease(l *Lease) string { return gmodel.ScopeOf(l) }
