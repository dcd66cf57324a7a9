package model

import (
	"fmt"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// The worker kind: named periodic Run loops calling a function of the
// user's every interval or on a cron schedule.

// Worker is the periodic worker kind: not a component, chosen by listing
// instances of it.
const Worker = answers.Worker

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

var workerKind = &Kind{Name: Worker, What: "a periodic worker: a Run loop calling a function of yours every interval", Dirs: []string{"worker"},
	addFlags: workerFlags, fromFlags: workerFromFlags, AddExample: workerAddExample,
	addQuestions: workerQuestions, newInstance: newWorker,
	NameHelp:  "names its Run loop, your function's file and env vars (WORKER_<NAME>_...); lower case, digits and '-'",
	Instances: answers.InstancesOf("worker", "workers", func(a *answers.Answers) *[]answers.WorkerAnswers { return &a.Workers }),
	defaults:  workerDefaults,
	on:        func(m *Model) bool { return len(m.Workers) > 0 },
	items:     func(m *Model) []Instance { return instances(m.Workers) },
	derive:    workerDerive,
	bounds:    workerBounds, env: workerEnv, settings: workerSettings, panels: workerPanels, alerts: workerAlerts,
	pool: workerPool, periodic: workerPeriodic}

func workerPeriodic(m *Model) []Periodic {
	var out []Periodic
	for _, w := range m.Workers {
		out = append(out, Periodic{Part: "worker " + w.Name, Schedule: w.Schedule(), Scope: w.Scope(), Lease: w.Lease, Timeout: w.Timeout})
	}
	return out
}

// Defaults of a worker: a run a minute, of at most 10s (or the worker
// drain, when it is shorter).
var (
	defaultWorkerInterval = time.Minute
	defaultWorkerTimeout  = 10 * time.Second
)

// workerDefaults fills the workers' answers not given.
func workerDefaults(a *answers.Answers) {
	for i := range a.Workers {
		w := &a.Workers[i]
		if w.Cron == "" {
			answers.SetDefault(&w.Interval, answers.Duration(defaultWorkerInterval))
		} else {
			answers.SetDefault(&w.Timezone, "UTC")
		}
		answers.SetDefault(&w.Timeout, answers.Duration(min(defaultWorkerTimeout, time.Duration(a.Timeouts.WorkerDrain))))
		setLeaseDefaults(&w.Scope, &w.LeaseTTL)
	}
}

// workerPool is a connection each: a worker's function is the user's, it
// gets the pool and holds a connection at most while it runs.
func workerPool(m *Model) []poolShare { return connectionEach("worker", instances(m.Workers)) }

func workerBounds(m *Model) []Bound {
	var out []Bound
	for i, w := range m.Workers {
		b := Bound{Name: "worker " + w.Name + " timeout", Field: fmt.Sprintf("workers[%d].timeout", i), D: w.Timeout}
		b.Why = "the run in hand at SIGTERM could not finish before the pool closes"
		if w.Lease != nil {
			// A fleet worker hands its lease over once its run is done, so
			// that the next replica runs the next tick instead of waiting
			// out the TTL; the release is bounded by CLOSE_TIMEOUT.
			b = Sum([]Term{{Name: b.Name, Field: b.Field, D: b.D}, {Name: "lease release", Field: "timeouts.close_budget", D: m.Timeouts.CloseBudget}})
			b.Why = "the run in hand at SIGTERM could not finish and hand the lease over before the pool closes"
		}
		b.LimitName, b.LimitKey, b.Limit = "worker drain", "worker_drain", m.Timeouts.WorkerDrain
		out = append(out, b)
	}
	return out
}

func workerEnv(m *Model) []EnvVar {
	var env []EnvVar
	for i, w := range m.Workers {
		from := fmt.Sprintf("workers[%d].", i)
		if w.Cron == "" {
			env = append(env, durationVar(w.EnvPrefix+"INTERVAL", w.Interval, from+"interval"))
		} else {
			env = append(env, textVar(w.EnvPrefix+"CRON", w.Cron, from+"cron"), textVar(w.EnvPrefix+"TIMEZONE", w.Timezone, from+"timezone"))
		}
		env = append(env, durationVar(w.EnvPrefix+"TIMEOUT", w.Timeout, from+"timeout"))
		env = append(env, leaseEnv(w.EnvPrefix, w.Lease, from)...)
	}
	return env
}

func workerSettings(a answers.Answers) []setting {
	var s []setting
	for i, w := range a.Workers {
		s = append(s,
			duration(fmt.Sprintf("workers[%d].interval", i), w.Interval, maxRetention),
			duration(fmt.Sprintf("workers[%d].timeout", i), w.Timeout, maxTimeout))
		s = append(s, leaseSetting(fmt.Sprintf("workers[%d].lease_ttl", i), w.LeaseTTL)...)
	}
	return s
}

func workerPanels(m *Model) []Panel {
	return []Panel{
		{"Worker runs per second, by worker", "short", [][2]string{
			{`sum by (worker) (rate(NS_worker_runs_total[5m]))`, "{{worker}} succeeded"},
			{`sum by (worker) (rate(NS_worker_run_failures_total[5m]))`, "{{worker}} failed"}}},
		{"Worker run time, 99th percentile, by worker", "s", [][2]string{
			{`histogram_quantile(0.99, sum by (le, worker) (rate(NS_worker_run_duration_seconds_bucket[5m])))`, "{{worker}}"}}},
		// The fleet's last success is the latest of its replicas'.
		{"Time since a worker last succeeded, by worker", "s", [][2]string{
			{`time() - max by (worker) (NS_worker_last_success_timestamp_seconds)`, "{{worker}}"},
			{`2 * max by (worker) (NS_worker_period_seconds)`, "{{worker}} alert (two periods)"}}},
	}
}

func workerAlerts(m *Model) []Alert {
	// Three in an hour, as for the cleaners: one failed run is retried
	// at the next interval anyway.
	return []Alert{{"WorkerFailing", `sum by (worker) (increase(NS_worker_run_failures_total[1h])) > 3`, "0m", "warning",
		"A worker of NAME keeps failing: its runs end in an error, a panic or their timeout (its log says which)."},
		// Two periods: one late run is a slow one, two missed ones are a
		// worker that no replica runs (the lease stuck, every run failing).
		{"WorkerNotSucceeding", `time() - max by (worker) (NS_worker_last_success_timestamp_seconds) > 2 * max by (worker) (NS_worker_period_seconds)`, "0m", "warning",
			"A worker of NAME has not succeeded in any replica for two of its periods: its runs fail, or no replica holds its lease (the lease holders panel says which)."}}
}

// minWorkerInterval is the shortest pause between a worker's runs gsgen
// takes: below it the ticker, not the work, sets the pace.
const minWorkerInterval = time.Second

// workerDerive validates the workers and derives them.
func workerDerive(m *Model, a answers.Answers) error {
	seen := map[string]bool{}
	for i, w := range a.Workers {
		field := fmt.Sprintf("workers[%d]", i)
		if err := validateInstanceName(field+".name", w.Name, seen); err != nil {
			return err
		}
		job := WorkerJob{Name: w.Name, GoName: goName(w.Name), FileName: snake(w.Name),
			EnvPrefix: envPrefix("WORKER", w.Name), Interval: time.Duration(w.Interval), Period: time.Duration(w.Interval), Timeout: time.Duration(w.Timeout)}
		if err := setSchedule(&job, field, w); err != nil {
			return err
		}
		lease, err := scopeOf(field, w.Scope, w.LeaseTTL, "worker:"+w.Name)
		if err != nil {
			return err
		}
		job.Lease = lease
		m.Workers = append(m.Workers, job)
	}
	return nil
}

// setSchedule checks the worker's interval or cron schedule and derives
// its period into w.
func setSchedule(w *WorkerJob, field string, a answers.WorkerAnswers) error {
	switch {
	case a.Cron != "" && a.Interval != 0:
		return &problem.InputError{Field: field, Msg: "has both an interval and a cron schedule", Fix: "keep one: --interval D runs every D, --cron EXPR at the times it names"}
	case a.Cron == "" && a.Timezone != "":
		return &problem.InputError{Field: field + ".timezone", Msg: "is given without a cron schedule: an interval has no time of day", Fix: "give --cron with it, or leave --timezone out"}
	case a.Cron == "" && time.Duration(a.Interval) < minWorkerInterval:
		return &problem.InputError{Field: field + ".interval", Msg: fmt.Sprintf("%v is shorter than %v: each tick starts a run, with its own timeout, log line and metrics, so a shorter interval is a busy loop", time.Duration(a.Interval), minWorkerInterval),
			Fix: fmt.Sprintf("use %v or more; for work that must follow events, use a Kafka consumer or an asynq task instead", minWorkerInterval)}
	case a.Cron == "":
		return nil
	}
	s, err := parseCron(field, a.Cron)
	if err != nil {
		return err
	}
	loc, err := loadTimezone(field, a.Timezone)
	if err != nil {
		return err
	}
	w.Cron, w.Timezone, w.Period = a.Cron, a.Timezone, cronPeriod(s, loc)
	return nil
}

// workerQuestions are gsgen add's questions of the new worker i.
func workerQuestions(iv Interview, i int, _ *Model) []Question {
	d := iv.Defaults()
	w := d.Workers[i]
	field := fmt.Sprintf("workers[%d]", i)
	cron := func() bool { return iv.Answers().Workers[i].Cron != "" }
	return []Question{
		{Field: field + ".interval", Also: []string{field, field + ".cron"}, Title: "Schedule", Def: w.Interval.String(),
			Help: `an interval between two runs (1h), or a cron schedule ("30 2 * * *", @daily)`,
			Set:  func(a *answers.Answers, s string) error { return parseSchedule(s, &a.Workers[i]) }},
		{Field: field + ".timezone", Title: "Time zone", Def: "UTC", Help: "of the cron schedule, e.g. Europe/Paris",
			When: cron,
			Set:  func(a *answers.Answers, s string) error { a.Workers[i].Timezone = s; return nil }},
		{Field: field + ".timeout", Title: "Timeout", Def: w.Timeout.String(),
			Help: fmt.Sprintf("how long one run may take; at most the worker drain (%v)", d.Timeouts.WorkerDrain),
			Set:  func(a *answers.Answers, s string) error { return answers.ParseDuration(s, &a.Workers[i].Timeout) }},
		{Field: field + ".scope", Title: "Scope", Def: w.Scope,
			Help: answers.ScopeFleet + ": each run in one replica, under a lease in PostgreSQL; " + answers.ScopeReplica + ": in every replica",
			Set:  func(a *answers.Answers, s string) error { a.Workers[i].Scope = s; return nil }},
		{Field: field + ".lease_ttl", Title: "Lease TTL", Def: answers.DefaultLeaseTTL.String(),
			Help: "how long a killed replica's lease keeps the others from running it",
			When: func() bool { return iv.Answers().Workers[i].Scope == answers.ScopeFleet },
			Set:  func(a *answers.Answers, s string) error { return answers.ParseDuration(s, &a.Workers[i].LeaseTTL) }},
	}
}

// parseSchedule sets a worker's schedule from one answer: a duration is
// an interval, anything else a cron schedule (its derivation checks it).
func parseSchedule(s string, w *answers.WorkerAnswers) error {
	s = strings.TrimSpace(s)
	if _, err := time.ParseDuration(s); err == nil {
		w.Cron = ""
		return answers.ParseDuration(s, &w.Interval)
	}
	w.Interval, w.Cron = 0, s
	return nil
}

func newWorker(a answers.Answers, name string) (answers.Answers, error) {
	return a.AddWorker(answers.WorkerAnswers{Name: name})
}

// workerAddExample is a whole gsgen add command of a worker.
const workerAddExample = "gsgen add worker nightly-report --interval 24h"

// workerFlags are gsgen add worker NAME's flags.
var workerFlags = []AddFlag{
	intervalFlag,
	{Name: "cron", Type: "string", Usage: `run at the times of a cron schedule instead of --interval: five fields ("30 2 * * *") or @hourly, @daily, @weekly, @every 90s`},
	{Name: "timezone", Type: "string", Usage: "the time zone of --cron, an IANA name (default UTC)"},
	{Name: "timeout", Type: "duration", Positive: true, Usage: "how long one run may take (default 10s), within --worker-drain"},
	scopeFlag, leaseTTLFlag,
}

func workerFromFlags(a answers.Answers, name string, f AddFlagValues) (answers.Answers, error) {
	if err := checkLeaseFlags(f); err != nil {
		return a, err
	}
	switch {
	case f.Changed("interval") && f.Changed("cron"):
		return a, &AddUsageError{"add worker takes --interval or --cron, not both: --interval D runs every D, --cron EXPR at the times it names"}
	case !f.Changed("interval") && !f.Changed("cron"):
		return a, &AddUsageError{"add worker needs --interval or --cron, when it runs, e.g. " + workerAddExample + ", or --cron @daily"}
	case f.Changed("timezone") && !f.Changed("cron"):
		return a, &AddUsageError{"--timezone is the time zone of --cron: give --cron with it, or leave it out"}
	}
	return a.AddWorker(answers.WorkerAnswers{Name: name, Interval: answers.Duration(f.Duration("interval")), Cron: f.String("cron"), Timezone: f.String("timezone"),
		Timeout: answers.Duration(f.Duration("timeout")), Scope: f.String("scope"), LeaseTTL: answers.Duration(f.Duration("lease-ttl"))})
}
