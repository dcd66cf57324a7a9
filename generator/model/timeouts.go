package model

import "time"

// Timeouts is the shutdown budget as durations.
type Timeouts struct {
	PreStop, Grace, HTTPShutdown, WorkerDrain, AsynqShutdown, TaskTimeout, CloseBudget, Margin time.Duration
}
