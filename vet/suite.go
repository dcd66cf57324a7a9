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
	rule(sigchanyzer.Analyzer),
	rule(waitgroup.Analyzer),
	Ignore,
}

// ladderRule names the findings of the manifest check (gsgen vet --manifests).
const ladderRule = "ladder"

// ruleNames are the rules a //gsgen:ignore directive may name: the
// analyzers above (but ignore itself) and the manifest check. A test keeps
// the list in step with Analyzers.
var ruleNames = []string{"runloop", "closeorder", "asynqserver", "shutdownctx", "txctx", "httpserver", "kafkawriter", "sigchanyzer", "waitgroup", ladderRule}
