// Package timeoutsok keeps its task timeout within ShutdownTimeout, or
// cannot tell.
package timeoutsok

import (
	"time"

	"github.com/hibiken/asynq"
)

const taskTimeout = 20 * time.Second

func Server() *asynq.Server {
	return asynq.NewServer(asynq.RedisClientOpt{Addr: "localhost:6379"}, asynq.Config{Concurrency: 10, ShutdownTimeout: 25 * time.Second})
}

// FromConfig's ShutdownTimeout is not a constant: nothing to compare.
func FromConfig(d time.Duration) *asynq.Server {
	return asynq.NewServer(asynq.RedisClientOpt{}, asynq.Config{ShutdownTimeout: d})
}

func Welcome(d time.Duration) *asynq.Task {
	return asynq.NewTask("email:welcome", nil, asynq.Timeout(taskTimeout), asynq.Timeout(d))
}
