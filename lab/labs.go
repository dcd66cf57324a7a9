package lab

// The files every lab's service has (the answers are orders.yaml).
const (
	mainGo     = "cmd/orders/main.go"
	relayGo    = "internal/outbox/relay.go"
	consumerGo = "internal/consumer/consumer.go"
	tasksGo    = "internal/tasks/server.go"
	configGo   = "internal/config/config.go"
	deployment = "deploy/k8s/deployment.yaml"
	queriesGo  = "internal/db/outbox.sql.go"
	queriesSQL = "db/queries/outbox.sql"
)

// Labs is the catalogue, in increasing difficulty. Each plants exactly one
// mistake from the design's rules (docs: /design.md, the seed articles).
var Labs = []Lab{
	{
		Number: 1, Difficulty: Easy,
		Title: "Every deploy gives clients a burst of 502s",
		Symptom: `During every rolling update the load balancer's error rate jumps: clients
get 502 and "connection refused" for a few seconds from pods that are going
away. Pods that are not being replaced serve fine, and the service's log
says every shutdown completed cleanly.`,
		Hints: []string{
			"The errors come from pods that already got SIGTERM. What tells the load balancer to stop sending a pod new requests?",
			"Kubernetes stops routing to a pod once its readiness probe fails. Read step 1 of the shutdown in cmd/orders/main.go.",
			"Step 1 must make /readyz answer 503 before the HTTP server stops accepting connections: ready.Set(false).",
		},
		Edits: []Edit{{File: mainGo,
			From: `sd.step(1, "readiness", func() { ready.Set(false) })`,
			To:   `sd.step(1, "readiness", func() { ready.Set(true) })`}},
		Tests: []Test{{Pkg: "./cmd/orders", Run: []string{"TestReadinessTurns503WhileHealthzStays200"}}},
	},
	{
		Number: 2, Difficulty: Easy,
		Title: "Long requests fail on every deploy",
		Symptom: `Uploads and reports that take a few seconds fail with "connection reset" or an
empty reply whenever a pod is replaced, although HTTP_SHUTDOWN_TIMEOUT is 25s.
The log shows the HTTP drain finishing within a millisecond of SIGTERM.`,
		Hints: []string{
			"http.Server.Shutdown waits for in-flight requests until its context ends. When does that context end here?",
			"Look at the context Shutdown gets in step 3 of cmd/orders/main.go, and at what happened to ctx in step 2.",
			"ctx was cancelled in step 2 (stopIntake), so a deadline derived from it is already over: derive the shutdown deadline from context.Background().",
		},
		Edits: []Edit{{File: mainGo,
			From: "// Shutdown closes the listener and idle connections, then waits\n" +
				"\t\t\t\t\t// for in-flight requests. Its deadline starts now, from a fresh\n" +
				"\t\t\t\t\t// context: ctx, cancelled in step 2, would make it give up at once.\n" +
				"\t\t\t\t\tshutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.HTTPShutdownTimeout)",
			To: "// Shutdown closes the listener and idle connections, then waits\n" +
				"\t\t\t\t\t// for in-flight requests, up to HTTP_SHUTDOWN_TIMEOUT.\n" +
				"\t\t\t\t\tshutdownCtx, cancel := context.WithTimeout(ctx, cfg.HTTPShutdownTimeout)"}},
		Tests: []Test{{Pkg: "./cmd/orders", Run: []string{"TestInFlightRequestFinishesAfterSignal"}}},
		Vet:   true,
	},
	{
		Number: 3, Difficulty: Easy,
		Title: "Now and then an outbox batch is cut off at shutdown",
		Symptom: `Now and then, when a pod stops while the outbox relay is busy with a
backlog, its last batch is published again by the next pod. The old pod's
log says the workers drained at once, although the relay was in the middle
of a batch, and the close step that followed sometimes ran over
CLOSE_TIMEOUT. Most shutdowns are fine.`,
		Hints: []string{
			"Step 3 waits for the background loops with wg.Wait(). When does the relay tell it that it is done?",
			"Read (*Relay).Run in internal/outbox/relay.go: when does it return (and so call wg.Done), and where are its loops then?",
			"Run must wait for the loops it starts before it returns: start them with loops.Go on a sync.WaitGroup of its own and call loops.Wait() at the end.",
		},
		Edits: []Edit{{File: relayGo,
			From: "// Run publishes batches with Config.Relays loops until ctx is cancelled,\n" +
				"// and returns when every loop has. A cancelled ctx stops the next batch\n" +
				"// from starting; it never cuts the current one in half.\n",
			To: "// Run publishes batches with Config.Relays loops until ctx is cancelled.\n" +
				"// A cancelled ctx stops the next batch from starting; it never cuts the\n" +
				"// current one in half.\n"},
			{File: relayGo,
				From: "\tvar loops sync.WaitGroup\n\tfor i := range relays {\n",
				To:   "\tfor i := range relays {\n"},
			{File: relayGo,
				From: "\t\tloops.Go(func() { r.loop(ctx, w, newSweep(start, i, relays)) })\n\t}\n\tloops.Wait()\n}\n",
				To:   "\t\tgo r.loop(ctx, w, newSweep(start, i, relays))\n\t}\n}\n"},
		},
		Files: map[string]string{"internal/outbox/lab_test.go": "relayreturn_lab_test.go.txt"},
		Tests: []Test{{Pkg: "./internal/outbox", Run: []string{"TestLabRunReturnsAfterTheBatchInFlight"}}},
	},
	{
		Number: 4, Difficulty: Medium,
		Title: "asynq tasks are cut off while HTTP still drains",
		Symptom: `On every deploy a few welcome e-mails are sent twice. The asynq log says the
server shut down right at SIGTERM, seconds before the service's own shutdown
reached its drain step, and ASYNQ_SHUTDOWN_TIMEOUT seems to be ignored.`,
		Hints: []string{
			"Who handles SIGTERM in this process? Count the signal handlers.",
			"Read how the task server is started in cmd/orders/main.go, and what asynq's documentation says that method does with signals.",
			"(*asynq.Server).Run installs its own SIGTERM handler and shuts down at once: beside HTTP use Start, and let main call Stop and Shutdown in order.",
		},
		Edits: []Edit{
			{File: mainGo,
				From: "\t// The task server runs here, beside HTTP. Start, never Run: Run installs\n\t// a signal handler of its own, and this process stops its parts in the\n\t// order below.\n",
				To:   "\t// The task server runs here, beside HTTP.\n"},
			{File: mainGo,
				From: "\t} else if err := taskSrv.Start(tasks.NewMux(&tasks.Handlers{Logger: logger, Pool: pool})); err != nil {\n\t\tfail(\"asynq\", err)\n\t}\n",
				To:   "\t} else {\n\t\tgo func() {\n\t\t\tif err := taskSrv.Run(tasks.NewMux(&tasks.Handlers{Logger: logger, Pool: pool})); err != nil {\n\t\t\t\tfail(\"asynq\", err)\n\t\t\t}\n\t\t}()\n\t}\n"},
		},
		Files: map[string]string{"cmd/orders/lab_test.go": "asynqsignal_lab_test.go.txt"},
		Tests: []Test{{Pkg: "./cmd/orders", Run: []string{"TestLabOnlyRunActsOnSIGTERM"}}},
		Vet:   true,
	},
	{
		Number: 5, Difficulty: Medium,
		Title: `"closed pool" errors at every shutdown`,
		Symptom: `Every shutdown logs a few errors from the cleaners and the outbox relay:
"closed pool". Sometimes a batch of outbox events is published and then
published again by the next pod.`,
		Hints: []string{
			"Which parts still use the database after SIGTERM, and until when?",
			"Follow pool.Close() through the shutdown steps in cmd/orders/main.go.",
			"The pool must close last, strictly after step 3 has waited for the loops (wg.Wait): not in step 2.",
		},
		Edits: []Edit{{File: mainGo,
			From: "\t\tsd.step(2, \"stop intake\", func() {\n\t\t\tstopIntake()\n",
			To:   "\t\tsd.step(2, \"stop intake\", func() {\n\t\t\tstopIntake()\n\t\t\t// Nothing new starts now: give the database connections back.\n\t\t\tpool.Close()\n"}},
		Files: map[string]string{"cmd/orders/lab_test.go": "pool_lab_test.go.txt"},
		Tests: []Test{{Pkg: "./cmd/orders", Run: []string{"TestLabRequestInFlightCanStillQuery"}}},
		Vet:   true,
	},
	{
		Number: 6, Difficulty: Medium,
		Title: "Events marked dispatched never reach consumers",
		Symptom: `After a broker restart, some events the outbox marked dispatched were never
seen by any consumer. On a quiet day the relay also publishes only about one
event per second per partition, however big the backlog.`,
		Hints: []string{
			"The relay marks rows dispatched when WriteMessages returns nil. What does nil promise with this writer?",
			"Read outbox.NewWriter in internal/outbox/relay.go against kafka-go's Writer defaults (RequiredAcks, BatchTimeout).",
			"Set RequiredAcks: kafka.RequireAll (nil then means every in-sync replica has the batch), and BatchSize/BatchTimeout so a batch is sent at once.",
		},
		Edits: []Edit{{File: relayGo,
			From: "\t\t// A nil write means every in-sync replica has the batch: only then\n\t\t// may the rows be marked dispatched.\n\t\tRequiredAcks: kafka.RequireAll,\n" +
				"\t\t// The key is the aggregate id: one aggregate, one partition, one order.\n\t\tBalancer: &kafka.Hash{},\n" +
				"\t\t// Each loop hands its writer a whole batch in one call, and no other\n\t\t// loop calls it, so nothing can join the batch by waiting: flush at\n\t\t// once (zero would be kafka-go's default, a second). A call's\n\t\t// messages for one partition go into the open batch under that\n\t\t// partition's lock, which the flush takes too, so they still leave\n\t\t// as one record batch; BatchSize never splits the relay's batch.\n\t\tBatchSize:    cfg.BatchSize,\n\t\tBatchTimeout: time.Microsecond,\n",
			To: "\t\t// The key is the aggregate id: one aggregate, one partition, one order.\n\t\tBalancer: &kafka.Hash{},\n"}},
		Files: map[string]string{"internal/outbox/lab_test.go": "acks_lab_test.go.txt"},
		Tests: []Test{{Pkg: "./internal/outbox", Run: []string{"TestLabDispatchedEventsAreInKafka"}}},
		Vet:   true,
	},
	{
		Number: 7, Difficulty: Medium,
		Title: "Orders are lost when a consumer pod crashes",
		Symptom: `After a consumer pod was OOM-killed, a few order events were never handled,
though they are in the topic. Nothing was dead-lettered and nothing was logged
for them.`,
		Hints: []string{
			"When is a message's offset committed, relative to handling it?",
			"Read handleBatch in internal/consumer/consumer.go in the order it runs.",
			"Commit only after the handler succeeded (or the message was dead-lettered): a commit before handling loses the message when the pod dies in between.",
		},
		Edits: []Edit{{File: consumerGo,
			From: "failed, err := c.runTx(ctx, msgs)",
			To:   "c.commit(ctx, msgs...)\n\t\tfailed, err := c.runTx(ctx, msgs)"}},
		Tests: []Test{{Pkg: "./internal/consumer"}},
	},
	{
		Number: 8, Difficulty: Hard,
		Title: "Some events are published twice after every deploy",
		Symptom: `Consumers see duplicates of events published in the second before a pod
stopped: the same event id, once from the old pod and once from the new one.
The relay log of the old pod ends with "context canceled".`,
		Hints: []string{
			"A batch is: lock rows, publish, mark dispatched, commit. What happens if it stops between publish and commit?",
			"Look at the context publishBatch in internal/outbox/relay.go runs its transaction on.",
			"The batch must not be cancelled by shutdown: context.WithTimeout(context.WithoutCancel(ctx), budget) keeps its deadline but not the signal.",
		},
		Edits: []Edit{{File: relayGo,
			From: "\t// The batch must not stop half-way when shutdown cancels ctx: rows that\n" +
				"\t// were published but not marked would be published again by the next\n" +
				"\t// replica. So it runs on a context that shutdown does not cancel, with a\n" +
				"\t// deadline of its own, so a hung broker cannot hold the transaction (and\n" +
				"\t// with it pool.Close at the end of shutdown) forever. A tenth of the\n" +
				"\t// budget is kept for the rollback, so that it too ends within BatchTimeout.\n" +
				"\trollbackBudget := r.cfg.BatchTimeout / 10\n" +
				"\tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.BatchTimeout-rollbackBudget)\n",
			To: "\t// A hung broker must not hold the transaction forever: the batch has a\n" +
				"\t// deadline. A tenth of the budget is kept for the rollback, so that it\n" +
				"\t// too ends within BatchTimeout.\n" +
				"\trollbackBudget := r.cfg.BatchTimeout / 10\n" +
				"\tctx, cancel := context.WithTimeout(ctx, r.cfg.BatchTimeout-rollbackBudget)\n"}},
		Tests: []Test{{Pkg: "./internal/outbox", Run: []string{"TestRelayFinishesTheBatchInFlightWhenCancelled"}}},
		Vet:   true,
	},
	{
		Number: 9, Difficulty: Hard,
		Title: "New pods exit at start after a task got more time",
		Symptom: `Since the last deploy, new pods exit with code 2 right after they start and
the rollout is stuck; the old pods keep serving. The change in that deploy
let the welcome-email task wait longer for a slow e-mail provider.`,
		Hints: []string{
			"Read the pod's last log line: the service checked something about its timeouts before starting anything.",
			"On SIGTERM asynq waits ASYNQ_SHUTDOWN_TIMEOUT for running tasks, then pushes them back to run again. Compare it with how long a task may now run (internal/tasks/server.go, internal/config/config.go).",
			"The ladder: task timeout + a 1s margin <= ASYNQ_SHUTDOWN_TIMEOUT <= what the grace period leaves (the margin: a task cut by its own timeout must still return before the drain cuts it). Either keep the task within 24s, or raise ASYNQ_SHUTDOWN_TIMEOUT (and check the grace period still fits: gsgen plan).",
		},
		Edits: []Edit{
			{File: tasksGo,
				From: "const TaskTimeout = 20 * time.Second",
				To:   "const TaskTimeout = 40 * time.Second"},
			{File: configGo,
				From: "taskTimeout               = 20 * time.Second",
				To:   "taskTimeout               = 40 * time.Second"},
		},
		Tests: []Test{{Pkg: "./internal/config"}},
	},
	{
		Number: 10, Difficulty: Hard,
		Title: "Pods are SIGKILLed during deploys",
		Symptom: `Some pods end with exit code 137 during rolling updates, and their last log
line is a drain step, never "shutdown complete". Outbox batches and tasks of
those pods are repeated by the next pod.`,
		Hints: []string{
			"Exit code 137 is SIGKILL. When does Kubernetes send it?",
			"Add up preStop, the longest drain, the close budget and the margin, and compare with deploy/k8s/deployment.yaml.",
			"terminationGracePeriodSeconds (counted from the start of preStop) must be at least preStop + max drain + close + margin, 41s here; and the ConfigMap's TERMINATION_GRACE_PERIOD, which the service checks its shutdown against, must say the same (gsgen.yaml's grace is 60s).",
		},
		Edits: []Edit{{File: deployment,
			From: "      # SIGKILL comes this long after preStop starts (grace): preStop 10s +\n      # HTTP drain 25s + close 1s + margin 5s = 41s fit inside.\n      terminationGracePeriodSeconds: 60\n",
			To:   "      # SIGKILL comes this long after preStop starts.\n      terminationGracePeriodSeconds: 30\n"}},
		Files: map[string]string{"internal/config/lab_test.go": "grace_lab_test.go.txt"},
		Tests: []Test{{Pkg: "./internal/config", Run: []string{"TestLabManifestsGiveTheShutdownItsTime"}}},
		Vet:   true,
	},
	{
		Number: 11, Difficulty: Hard, Unordered: true,
		Title: "Events arrive twice while two versions run side by side",
		Symptom: `During every rolling update, consumers see some events twice: the same event
id published by the old pod and by the new one within milliseconds, though
no pod crashed and no batch failed. Outside rollouts (one replica) it never
happens. The relay runs unordered (outbox.unordered in gsgen.yaml), for
throughput.`,
		Hints: []string{
			"Unordered, nothing stops two relays from running batches at the same time. What keeps them from taking the same rows?",
			"Read the LockOutboxBatch query (db/queries/outbox.sql and internal/db/outbox.sql.go): what does it lock, and what happens to rows another transaction holds?",
			"SELECT ... FOR UPDATE SKIP LOCKED: each replica locks its batch, and the other skips those rows instead of taking them (or waiting for them). Change the query in both files.",
		},
		Edits: []Edit{
			{File: queriesGo,
				From: "// those whose locks the relay holds. SKIP LOCKED: rows another relay has\n// locked are skipped, not waited for.\nfunc (q *Queries) LockOutboxBatch(",
				To:   "// those whose locks the relay holds.\nfunc (q *Queries) LockOutboxBatch("},
			{File: queriesGo,
				From: "LIMIT $3\nFOR UPDATE SKIP LOCKED\n`",
				To:   "LIMIT $3\n`"},
			{File: queriesSQL,
				From: "-- those whose locks the relay holds. SKIP LOCKED: rows another relay has\n-- locked are skipped, not waited for.\nSELECT e.id",
				To:   "-- those whose locks the relay holds.\nSELECT e.id"},
			{File: queriesSQL,
				From: "LIMIT sqlc.arg(batch_size)\nFOR UPDATE SKIP LOCKED;",
				To:   "LIMIT sqlc.arg(batch_size);"},
		},
		Files: map[string]string{"internal/outbox/lab_test.go": "skiplocked_lab_test.go.txt"},
		Tests: []Test{{Pkg: "./internal/outbox", Run: []string{"TestLabTwoReplicasNeverTakeTheSameRows"}}},
	},
}
