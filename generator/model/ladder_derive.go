package model

// workerDrainVar is the variable of the worker drain's timeout, which every
// service has.
const workerDrainVar = "WORKER_DRAIN_TIMEOUT"

// NewLadder derives the ladder for the chosen components.
func NewLadder(m *Model) Ladder {
	t := m.Timeouts
	l := Ladder{PreStop: t.PreStop, Close: t.CloseBudget, Margin: t.Margin, Grace: t.Grace}
	if !m.Serves {
		// No Service routes to it: nothing to wait for before SIGTERM, and a
		// sleep would only slow every rollout (the Deployment has none).
		l.PreStop = 0
	}
	for _, k := range m.KindsOn() {
		if k.drains != nil {
			l.Drains = append(l.Drains, k.drains(m)...)
		}
		if k.bounds != nil {
			l.Inner = append(l.Inner, k.bounds(m)...)
		}
	}
	// The Run loops and the user's parts (internal/parts), which every
	// service can start: one WaitGroup, one drain.
	l.Drains = append(l.Drains, Drain{Name: "worker drain", Key: "worker_drain", D: t.WorkerDrain, Note: "wg.Wait for the Run loops and your parts", Part: "workers", Var: workerDrainVar})
	return l
}
