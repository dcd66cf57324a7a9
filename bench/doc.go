// Package bench holds gsgen's speed measurements. Nothing here asserts a
// time: each benchmark prints figures, and docs/benchmarks.md records them
// with the commands that reproduce them.
//
//   - scaffold.sh times `gsgen new` of the full preset against floor/, a
//     program that only writes the very files gsgen wrote (from a tar) to
//     disk; wall and CPU time, and with -before REV an older gsgen alike.
//   - BenchmarkGenerate (generate_test.go) is the in-process part of
//     `gsgen new`, to profile with -cpuprofile:
//     go test ./bench -run '^$' -bench Generate -cpuprofile cpu.out
//   - The generated service's figures (outbox relay throughput, idle
//     shutdown, idle RSS) come from golden/bench_test.go:
//     go test ./golden -run TestBench -v -bench-services
package bench
