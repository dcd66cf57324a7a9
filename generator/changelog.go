package generator

import (
	"golang.org/x/mod/semver"
)

// Version is the version of what this gsgen generates: the newest entry of
// Changelog. A service records it in gsgen.base, and gsgen upgrade shows the
// entries between the version a service was written by and this one.
// Bump it, with an entry, whenever the generated code changes in a way a
// service's owner should hear about.
const Version = "v0.30.1"

// BaseSince is the first gsgen that kept gsgen.base and recorded its
// version: a service without one was written by an older gsgen.
const BaseSince = "v0.26.0"

// ChangelogEntry is one change of the generated code: which part, and what
// changed and why, in one line.
type ChangelogEntry struct {
	Version string // the gsgen version that brought it
	Part    string // relay, consumer, main, ...
	Change  string
}

// Changelog is every change of the generated code a service's owner should
// hear about when taking a newer gsgen, oldest first. Services written
// before v0.26.0 recorded no version: they are shown all of it.
var Changelog = []ChangelogEntry{
	{"v0.26.0", "gsgen", "gsgen.base records what gsgen wrote for each file, so gsgen upgrade merges a newer gsgen's files with your edits three ways; gsgen.yaml carries `format: 1`"},
	{"v0.26.0", "relay", "one Kafka writer per relay loop, so an aggregate's order survives a partition leader move"},
	{"v0.26.0", "relay", "the slot is computed by the relay's query: migration 0004 no longer rewrites outbox_event, 0003 builds its indexes CONCURRENTLY; a published row's last_error is cleared"},
	{"v0.26.0", "outbox", "the example locks the aggregate before inserting its events: per-aggregate order needs an aggregate's writers serialised"},
	{"v0.26.0", "consumer", "event ids are marked processed in sorted order, so two members in a handover cannot deadlock"},
	{"v0.26.0", "consumer", "dead letters are recorded in processed_event (migration 0006), so a redelivered poison event is not dead-lettered again; processed_event is kept 14 days"},
	{"v0.26.0", "consumer", "a message whose retries are cut short by shutdown is left for the partition's next owner, never dead-lettered"},
	{"v0.26.0", "consumer", "rebalance timeout 30s (was 3/4 of CLOSE_TIMEOUT), so a paused member does not churn the group; Close stays bounded"},
	{"v0.26.0", "main", "SIGTSTP pauses asynq alone (Stop) and HTTP keeps serving; the asynq drain, the clients' close and the pool's close each have a bound; a second signal ends the shutdown's waits"},
	{"v0.26.0", "main", "readiness stays 503 after a listener failure; the HTTP method label is bounded to the known methods plus other"},
	{"v0.26.0", "asynq", "a task timeout must end 1s before ASYNQ_SHUTDOWN_TIMEOUT; the dedicated worker fails on an admin listener failure, as the service does"},
	{"v0.26.0", "worker", "fleet-scoped workers and cleaners (the default): one run per tick across all replicas, under a lease in PostgreSQL (migration 0010); cron schedules"},
	{"v0.26.0", "ci", "a CI workflow for the service (the ci: answer in gsgen.yaml)"},
	{"v0.26.0", "make", "make deps and make vendor, for rooms with no network"},
	{"v0.27.0", "consumer", "consumers read with franz-go's kgo, a goroutine per assigned partition: a message being retried holds back only its own partition; revoked partitions finish and commit the step in hand; one database connection per consumer as before"},
	{"v0.27.0", "kafkaconn", "ClientOpts gives the kgo client the Dialer's TLS, SASL login and client id"},
	{"v0.27.0", "config", "KAFKA_BROKERS needs a host and a port from 1 to 65535: the consumers' client panicked at start on anything else"},
	{"v0.27.0", "grpc", "a new kind: a gRPC server with the standard health service (NOT_SERVING at shutdown step 1), GracefulStop bounded by GRPC_SHUTDOWN_TIMEOUT then Stop; gsgen add grpc"},
	{"v0.28.0", "consumer", "up to two transactions of a consumer at once (kafka.transactions), each on a connection of its own: a consumer counts 2 in DATABASE_MAX_CONNS, whose default grows by one per consumer; a partition's batches still go one at a time, in order"},
	{"v0.28.0", "consumer", "BEGIN goes with the processed_event insert in one round trip (internal/db/processed_event_batch.go)"},
	{"v0.28.0", "relay", "each loop's Kafka writer sends a batch at once (BatchTimeout 1µs, was 1ms): a loop hands its writer whole batches, so waiting bought nothing"},
	{"v0.28.0", "grpc", "the dashboard shows gRPC calls by method and code and their 99th percentile; alert GRPCErrors; a test that step 1 turns the health service NOT_SERVING before GracefulStop"},
	{"v0.28.0", "gsgen", "gsgen.base is compressed at level 4: written in half the time, 3% larger; any level reads back the same"},
	{"v0.29.0", "consumer", "up to three transactions of a consumer at once (kafka.transactions, was two): about 7% more batches a second; a consumer counts 3 in DATABASE_MAX_CONNS, whose default grows by one per consumer"},
	{"v0.30.0", "relay", "a batch makes two PostgreSQL round trips, not three: the read of the rows goes with BEGIN and the slot locks, and finds the slots taken in the transaction's setting outbox.relay_slots (LockOutboxBatch no longer takes slots); relays of v0.29.0 and of this version can share a fleet during a rollout: they take the same locks"},
	{"v0.30.0", "relay", "a window of slots that came back short is passed by three times while the drain goes on (its empty read walks every pending event of the other slots); an event arriving in it waits three rounds of batches at most"},
	{"v0.30.1", "consumer", "TestConsumerTakesAtMostItsConnections holds the first handler calls until one call more starts or 3s pass, so a consumer that lets each partition take a connection fails it on a busy machine too (it could pass when the calls never happened to overlap)"},
	{"v0.30.1", "grpc", "TestInFlightRPCFinishesDuringShutdownAndANewOneIsRefused releases the call in flight only once Shutdown has reached its connection (it leaves READY), so a Shutdown that calls Stop instead of GracefulStop fails it every time (it could pass when Stop had closed the listener but not yet the connection)"},
	{"v0.30.1", "config", "TestLoadRefusesADrainPastTheGracePeriod raises the longest drain's variable, named by the ladder: a service with gRPC alone, whose longest drain is gRPC's, raised none and failed its own test"},
	{"v0.30.1", "demo", "make demo's Redis calls may take a minute, not go-redis's 3s: a demo paused (Ctrl+Z, a test's SIGSTOP) or starved on a loaded laptop failed its Redis call in flight on resuming with i/o timeout"},
}

// ChangesSince returns the entries newer than version, oldest first; all of
// them when version is "" (a service that recorded none) or not a version.
func ChangesSince(version string) []ChangelogEntry {
	var out []ChangelogEntry
	for _, e := range Changelog {
		if !semver.IsValid(version) || semver.Compare(e.Version, version) > 0 {
			out = append(out, e)
		}
	}
	return out
}
