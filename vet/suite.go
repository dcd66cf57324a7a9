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

// LadderRule names the findings of the manifest check (package ladder).
const LadderRule = "ladder"
