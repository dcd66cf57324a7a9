package generator

import "fmt"

// The cleaner kind: named cleaners deleting expired rows in small
// batches, Run loops drained with the workers.

var cleanerKind = &Kind{Name: Cleaner, Chosen: true, What: "cleaners deleting expired rows in small batches", Dirs: []string{"cleaner"},
	Needs:     []Need{NeedsPostgres},
	Instances: instancesOf("cleaner", "cleaners", func(a *Answers) *[]CleanerAnswers { return &a.Cleaners }),
	on:        func(m *Model) bool { return m.Cleaner },
	items:     func(m *Model) []Instance { return instances(m.Cleaners) },
	env:       cleanerEnv, settings: cleanerSettings, panels: cleanerPanels, alerts: cleanerAlerts,
	pool: cleanerPool, names: cleanerNames, periodic: cleanerPeriodic}

func cleanerPeriodic(m *Model) []Periodic {
	var out []Periodic
	for _, c := range m.Cleaners {
		// No timeout of its own: a cleaner's delete is cut at shutdown.
		out = append(out, Periodic{"cleaner " + c.Name, "every " + Seconds(c.Interval), scopeOfLease(c.Lease), c.Lease, 0})
	}
	return out
}

func cleanerNames(m *Model) []derived {
	var names []derived
	for i, c := range m.Cleaners {
		from := fmt.Sprintf("cleaners[%d].name", i)
		names = append(names, derived{"Go name", c.GoName + "Cleaner", from, c.Name}, derived{"SQL query", c.QueryName, from, c.Name})
	}
	return names
}

// cleanerPool is a connection each: a cleaner's batch is one transaction.
func cleanerPool(m *Model) []poolShare {
	var out []poolShare
	for _, c := range m.Cleaners {
		out = append(out, poolShare{PoolPart: PoolPart{"cleaner " + c.Name, 1}, loop: true})
	}
	return out
}

func cleanerEnv(m *Model) []EnvVar {
	var env []EnvVar
	for i, c := range m.Cleaners {
		from := fmt.Sprintf("cleaners[%d].", i)
		env = append(env,
			durationVar(c.EnvPrefix+"RETENTION", c.Retention, from+"retention"),
			durationVar(c.EnvPrefix+"INTERVAL", c.Interval, from+"interval"),
			countVar(c.EnvPrefix+"BATCH_SIZE", c.BatchSize, from+"batch_size"),
		)
		env = append(env, leaseEnv(c.EnvPrefix, c.Lease, from)...)
	}
	return env
}

func cleanerSettings(a Answers) []setting {
	var s []setting
	for i, c := range a.Cleaners {
		s = append(s,
			duration(fmt.Sprintf("cleaners[%d].retention", i), c.Retention, maxRetention),
			duration(fmt.Sprintf("cleaners[%d].interval", i), c.Interval, maxRetention),
			count(fmt.Sprintf("cleaners[%d].batch_size", i), c.BatchSize, limits.CleanerBatchSize))
		s = append(s, leaseSetting(fmt.Sprintf("cleaners[%d].lease_ttl", i), c.LeaseTTL)...)
	}
	return s
}

func cleanerPanels(m *Model) []panel {
	return []panel{
		{"Rows deleted per second, by cleaner", "short", [][2]string{
			{`sum by (cleaner) (rate(NS_cleaner_rows_deleted_total[5m]))`, "{{cleaner}}"}}},
		{"Cleaner runs failed, by cleaner", "short", [][2]string{
			{`sum by (cleaner) (increase(NS_cleaner_run_failures_total[1h]))`, "{{cleaner}}"}}},
	}
}

func cleanerAlerts(m *Model) []alert {
	return []alert{{"CleanerFailing", `sum by (cleaner) (increase(NS_cleaner_run_failures_total[1h])) > 3`, "0m", "warning",
		"A cleaner of NAME keeps failing: its table grows."}}
}
