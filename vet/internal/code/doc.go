// Package code answers questions about Go code from its syntax and types,
// for gsgen vet's rules: which function a call calls, which constant a
// duration is, where a context comes from, what the libraries the rules know
// (pgx, asynq, kafka-go) are called.
package code
