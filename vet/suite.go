package vet

import (
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/sigchanyzer"
	"golang.org/x/tools/go/analysis/passes/waitgroup"
)

// Analyzers are the rules gsgen vet runs on Go code, and the standalone
// gsgen-vet (a go vet -vettool) with them: gsgen's own, and the two go vet
// checks that cover part of the contract (an unbuffered signal.Notify
// channel, wg.Add as the first statement of the goroutine it counts),
// reused rather than written again. Every one honours //gsgen:ignore.
var Analyzers = []*analysis.Analyzer{
	RunLoop,
	CloseOrder,
	AsynqServer,
	ShutdownCtx,
	TxCtx,
	HTTPServer,
	KafkaWriter,
	GRPCStop,
	rule(sigchanyzer.Analyzer),
	rule(waitgroup.Analyzer),
	Ignore,
}

// LadderRule names the findings of the manifest check (package ladder).
const LadderRule = "ladder"

// ladderDoc is the manifest check's Doc, in the shape of an analyzer's.
const ladderDoc = `check the grace period of Kubernetes workloads against the code's drains

With gsgen vet --manifests DIR: each Deployment, StatefulSet, DaemonSet or
Pod must have a terminationGracePeriodSeconds (30s when unset) that holds
its preStop sleep, the longest drain of the binary it runs (HTTP Shutdown,
asynq ShutdownTimeout, the Run loops' drain), the close budget and a
margin. Kubernetes counts the grace period from the start of preStop and
sends SIGKILL when it runs out: a shorter one kills the pod in the middle
of its drain, cutting requests, tasks and batches.`

// Rule is one rule of gsgen vet: the name its findings and //gsgen:ignore
// directives carry, and its Doc (a one-line summary, a blank line, then what
// it reports and what breaks in production).
type Rule struct {
	Name string
	Doc  string
}

// Rules lists every rule gsgen vet can report, in the order of Analyzers,
// then the manifest check.
func Rules() []Rule {
	rules := make([]Rule, 0, len(Analyzers)+1)
	for _, a := range Analyzers {
		rules = append(rules, Rule{a.Name, a.Doc})
	}
	return append(rules, Rule{LadderRule, ladderDoc})
}
