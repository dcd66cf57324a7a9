-- name: InsertOutboxEvent :one
-- InsertOutboxEvent stores an event. Call it on the transaction that makes
-- the change the event announces. traceparent is NULL unless the service
-- traces (outbox.InsertEvent fills it).
INSERT INTO outbox_event (aggregate_id, topic, payload, traceparent)
VALUES (sqlc.arg(aggregate_id), sqlc.arg(topic), sqlc.arg(payload), sqlc.narg(traceparent))
RETURNING id;

-- name: TryLockOutboxSlots :one
-- TryLockOutboxSlots takes, until the transaction ends and without waiting,
-- the advisory lock of each given slot that no other relay holds, and
-- returns the slots it took. Each relay also holds the relay-wide lock in
-- shared mode: relays of this version share it, while a relay of a version
-- before slots (TryLockOutboxRelay, exclusive) waits for all of them, so a
-- rolling update from one to the other never publishes an aggregate from
-- two places at once. It also keeps the slots it took in the setting
-- outbox.relay_slots, until the transaction ends, for LockOutboxBatch: the
-- relay sends both in one round trip, so the read cannot be handed them.
SELECT set_config('outbox.relay_slots', coalesce(array_agg(s.slot), '{}')::text, true)::integer[] AS slots
FROM unnest(sqlc.arg(slots)::integer[]) AS s (slot)
WHERE pg_try_advisory_xact_lock_shared(hashtextextended(sqlc.arg(lock_name)::text, 0))
  AND pg_try_advisory_xact_lock(hashtext(sqlc.arg(lock_name)::text), s.slot);

-- name: TryLockOutboxRelay :one
-- TryLockOutboxRelay takes the relay-wide advisory lock, exclusive, until the
-- transaction ends, without waiting: what the relay took before the outbox
-- had slots, one replica at a time. False means a relay holds it. Kept for
-- the tests that show such a relay waits for today's.
SELECT pg_try_advisory_xact_lock(hashtextextended(sqlc.arg(lock_name)::text, 0)) AS acquired;

-- name: LockOutboxBatch :many
-- LockOutboxBatch locks the oldest events that are due: not dispatched, not
-- parked, not waiting for their next attempt. When ordered, it also leaves
-- out every event behind an earlier one of its aggregate that waits or is
-- parked, so a failing event holds back its own aggregate and no other,
-- and takes only events of the slots that TryLockOutboxSlots took just
-- before it in the same transaction (an event's slot is a hash of its
-- aggregate id modulo slot_count, outbox.Slots, computed here rather than
-- stored, so that no migration has to rewrite the table to add it; in a
-- transaction that took none, outbox.relay_slots is empty or unset, and
-- the first condition on it, checked once before the scan, reads no row),
-- those whose locks the relay holds. SKIP LOCKED: rows another relay has
-- locked are skipped, not waited for.
SELECT e.id, e.aggregate_id, e.topic, e.payload, e.attempts, e.traceparent
FROM outbox_event AS e
WHERE e.dispatched_at IS NULL
  AND e.parked_at IS NULL
  AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= now())
  AND (NOT sqlc.arg(ordered)::bool OR cardinality(nullif(current_setting('outbox.relay_slots', true), '')::integer[]) > 0)
  AND (NOT sqlc.arg(ordered)::bool OR abs(hashtextextended(e.aggregate_id, 0) % sqlc.arg(slot_count)::integer) IN (
      SELECT unnest(nullif(current_setting('outbox.relay_slots', true), '')::integer[])
  ))
  AND NOT (sqlc.arg(ordered)::bool AND EXISTS (
      SELECT 1
      FROM outbox_event AS held
      WHERE held.aggregate_id = e.aggregate_id
        AND held.dispatched_at IS NULL
        AND (held.parked_at IS NOT NULL OR held.next_attempt_at > now())
        AND (held.created_at, held.id) < (e.created_at, e.id)
  ))
ORDER BY e.created_at, e.id
LIMIT sqlc.arg(batch_size)
FOR UPDATE SKIP LOCKED;

-- name: MarkOutboxDispatched :exec
-- MarkOutboxDispatched marks published events, all ids in one statement.
-- An event Kafka refused before keeps its attempts but no longer its error
-- or its next attempt: it is published.
UPDATE outbox_event
SET dispatched_at = now(), last_error = NULL, next_attempt_at = NULL
WHERE id = ANY(sqlc.arg(ids)::uuid[]);

-- name: RecordOutboxFailures :exec
-- RecordOutboxFailures charges one attempt to each event Kafka refused and
-- keeps its error. An event to park leaves the queue; the others wait
-- retry_after (measured on the database's clock, which the relay's query
-- compares against) before they are tried again.
UPDATE outbox_event AS e
SET attempts        = e.attempts + 1,
    last_error      = f.last_error,
    next_attempt_at = CASE WHEN f.park THEN NULL ELSE now() + f.retry_after END,
    parked_at       = CASE WHEN f.park THEN now() END
FROM (
    -- One row per refused event: set-returning functions side by side in
    -- a select list are read in step.
    SELECT unnest(sqlc.arg(ids)::uuid[]) AS id,
           unnest(sqlc.arg(errors)::text[]) AS last_error,
           unnest(sqlc.arg(retry_after)::interval[]) AS retry_after,
           unnest(sqlc.arg(park)::bool[]) AS park
) AS f
WHERE e.id = f.id;

-- name: ListParkedOutboxEvents :many
-- ListParkedOutboxEvents lists the events the relay gave up on, oldest
-- first, with their last error. README.md shows the same statement.
SELECT id, aggregate_id, topic, attempts, last_error, parked_at
FROM outbox_event
WHERE parked_at IS NOT NULL
ORDER BY created_at, id;

-- name: ReleaseParkedOutboxEvents :execrows
-- ReleaseParkedOutboxEvents puts every parked event back in the queue with
-- its attempts counted from zero again; it returns how many. README.md
-- shows the same statement.
UPDATE outbox_event
SET parked_at = NULL, attempts = 0, next_attempt_at = NULL
WHERE parked_at IS NOT NULL;

-- name: OutboxBacklog :one
-- OutboxBacklog is what /metrics reports of the outbox: events waiting,
-- events parked, and the age of the oldest waiting one in seconds (0 when
-- none waits). It reads only undispatched rows, through the pending index.
SELECT count(*) FILTER (WHERE parked_at IS NULL) AS pending,
       count(*) FILTER (WHERE parked_at IS NOT NULL) AS parked,
       COALESCE(EXTRACT(EPOCH FROM now() - min(created_at) FILTER (WHERE parked_at IS NULL)), 0)::float8 AS oldest_pending_age_seconds
FROM outbox_event
WHERE dispatched_at IS NULL;

-- Code generated by gsgen. DO NOT EDIT.
