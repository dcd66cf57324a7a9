// Package e2e proves by running what the golden files only show: it builds
// services that gsgen generated, runs them as real processes against real
// PostgreSQL and Redis and an in-process Kafka broker (kfake), and stops them
// with SIGTERM and SIGKILL under load. Each scenario asserts what the
// service promises (design §2–§5) and logs the figures it measured.
//
// The tests are skipped with -short. They read GSGEN_TEST_POSTGRES_URL and
// GSGEN_TEST_REDIS_ADDR (local defaults otherwise), skip when a server is
// unreachable, and fail instead when CI is set.
package e2e
