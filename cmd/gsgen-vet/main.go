// Command gsgen-vet runs the analyzers of gsgen vet as a go vet tool:
//
//	go install github.com/gsgen-dev/gsgen/cmd/gsgen-vet@latest
//	go vet -vettool=$(which gsgen-vet) ./...
//
// or on its own, as gsgen-vet ./... (gsgen-vet help lists the rules, and
// -NAME=false turns one off). The manifest check, gsgen vet --manifests,
// reads files outside the Go packages and the whole program at once, so it
// runs in gsgen vet only, as do --format json and sarif; the generated CI
// workflow runs gsgen vet for both. The same analyzers are a golangci-lint
// plugin in package vet/golangci.
package main

import (
	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/gsgen-dev/gsgen/vet"
)

func main() { multichecker.Main(vet.Analyzers...) }
