// Package vet holds gsgen vet's rules: analyzers on golang.org/x/tools/go/analysis
// that check a Go service against the shutdown contract of gsgen's design
// (Run loops, close order, asynq, contexts, HTTP servers, Kafka writers), one
// file per rule, each with a Doc that says what breaks in production.
//
// Analyzers lists them in the order gsgen vet and gsgen-vet run them. Every
// one is wrapped by rule, which drops the findings a //gsgen:ignore
// directive silences, so the directives work the same under gsgen vet and
// go vet -vettool; the Ignore analyzer reports the directives that silence
// nothing. The manifest check (terminationGracePeriodSeconds and preStop
// against the durations in the code) is package ladder.
//
// To add a rule: write NAME.go with its analyzer wrapped in rule(...), add
// it to Analyzers and its name to ignore.Rules, and give it a package under
// testdata/src with // want cases it must report and cases it must not.
// The stubs under testdata/src/github.com stand in for pgx, asynq and
// kafka-go: extend them with the real signatures a rule needs.
package vet
