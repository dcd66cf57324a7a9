package answers

// Component is one part a service can have.
type Component string

// The components, in the order they appear everywhere (flags, gsgen.yaml, main.go).
const (
	HTTP    Component = "http"
	Outbox  Component = "outbox"
	Asynq   Component = "asynq"
	Kafka   Component = "kafka"
	Cleaner Component = "cleaner"
	// GRPC is the gRPC server kind.
	GRPC Component = "grpc"
	// Worker is the periodic worker kind: not a component, chosen by
	// listing instances of it.
	Worker Component = "worker"
	// Task is the asynq task type kind: not a component, chosen by listing
	// instances of it.
	Task Component = "task"
)
