// Package timeouts sets task timeouts that ShutdownTimeout cannot hold.
package timeouts

import (
	"time"

	"github.com/hibiken/asynq"
)

// Server leaves ShutdownTimeout at asynq's default of 8 seconds.
func Server() *asynq.Server {
	return asynq.NewServer(asynq.RedisClientOpt{Addr: "localhost:6379"}, asynq.Config{Concurrency: 10})
}

func Report() *asynq.Task {
	return asynq.NewTask("report:build", nil, asynq.Timeout(10*time.Minute)) // want `asynq.Timeout\(10m0s\) is longer than ShutdownTimeout 8s \(asynq's default, as asynq.Config at tasks.go:12 leaves it unset\)`
}

func Email() *asynq.Task {
	return asynq.NewTask("email:welcome", nil, asynq.Timeout(5*time.Second))
}

func Ping() *asynq.Task {
	return asynq.NewTask("ping", nil, asynq.Timeout(500*time.Millisecond)) // want `asynq.Timeout\(500ms\) is under a second`
}

// Tick runs to ShutdownTimeout itself: no room to return and record its outcome.
func Tick() *asynq.Task {
	return asynq.NewTask("tick", nil, asynq.Timeout(8*time.Second)) // want `asynq.Timeout\(8s\) leaves less than 1s before ShutdownTimeout 8s`
}
