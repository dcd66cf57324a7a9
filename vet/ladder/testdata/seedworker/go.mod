module example.com/seedworker

go 1.26

require github.com/hibiken/asynq v0.26.0

// The analyzers' stub of asynq: the checker needs its types, not its code.
replace github.com/hibiken/asynq => ../../../testdata/src/github.com/hibiken/asynq
