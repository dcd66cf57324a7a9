package model

import (
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// WorkerJob is one periodic worker: gsgen's Run loop calls the user's
// function every Interval, each call bounded by Timeout.
type WorkerJob struct {
	Name      string        // "nightly-report"
	GoName    string        // "NightlyReport"
	FileName  string        // "nightly_report"
	EnvPrefix string        // "WORKER_NIGHTLY_REPORT_"
	Interval  time.Duration // zero for a cron worker
	Cron      string        // its cron schedule, or empty
	Timezone  string        // of Cron: "UTC" unless given
	// Period is the longest time between two ticks: Interval, or the cron
	// schedule's longest gap; the alert fires after two of them without a success.
	Period  time.Duration
	Timeout time.Duration
	Lease   *Lease // fleet scope; nil for replica scope
}

// Schedule says when the worker runs, for gsgen plan and the README:
// "every 24h", "cron 30 2 * * * (Europe/Paris)".
func (w WorkerJob) Schedule() string {
	if w.Cron == "" {
		return "every " + problem.Seconds(w.Interval)
	}
	return "cron " + w.Cron + " (" + w.Timezone + ")"
}

// Scope is answers.ScopeFleet or answers.ScopeReplica.
func (w WorkerJob) Scope() string {
	return ScopeOf(w.Lease)
}

// TaskType is one asynq task type of the user's: their handler and payload
// in a file of theirs, gsgen's registration and enqueue helper.
type TaskType struct {
	Type     string // its name in Redis: "report:build"
	GoName   string // "ReportBuild"
	FileName string // "report_build"
	Timeout  time.Duration
	Queue    string
	MaxRetry int
}

// Queue is one asynq queue and how often the server takes from it.
type Queue struct {
	Name     string
	Priority int
}
