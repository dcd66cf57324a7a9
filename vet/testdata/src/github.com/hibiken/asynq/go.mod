// The stub is also a module, so that a test module can replace asynq with it
// (vet/ladder/testdata/seedworker); analysistest reads it in GOPATH mode,
// where this file does not count.
module github.com/hibiken/asynq

go 1.26
