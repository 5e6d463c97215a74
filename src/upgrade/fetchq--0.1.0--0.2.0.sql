-- fetchq 0.1.0 to 0.2.0: generated from src/upgrade, src/schema and src/sql_api; do not edit.
\echo Use "ALTER EXTENSION fetchq UPDATE" to load this file. \quit

-- src/upgrade/0.1.0--0.2.0.before.sql
-- Update from 0.1.0, first part: what the catalog of 0.1.0 lacks or has
-- otherwise, before the objects of 0.2.0 are created or replaced
-- (src/upgrade/README.md). Columns are added at the end, as a fresh
-- install has them; no row of 0.1.0 changes.

-- Settings of 0.2.0 in the queues catalog (src/schema/01_catalog.sql).
ALTER TABLE fetchq.queues
    ADD COLUMN dead_letter_queue CHARACTER VARYING(40)
        CHECK (dead_letter_queue ~ '^[a-z0-9_]{1,40}$'),
    ADD COLUMN retry_delay INTERVAL,
    ADD COLUMN retry_factor DOUBLE PRECISION,
    ADD COLUMN retry_max_delay INTERVAL,
    ADD COLUMN retry_jitter DOUBLE PRECISION,
    ADD COLUMN completed_retention INTERVAL,
    ADD COLUMN killed_retention INTERVAL,
    ADD COLUMN is_topic BOOLEAN NOT NULL DEFAULT false;

-- Functions whose result columns or arguments changed: CREATE OR REPLACE
-- cannot change those.
DROP FUNCTION fetchq.queue_create_temporary();
DROP FUNCTION fetchq.metric_get_common(VARCHAR);
DROP FUNCTION fetchq.metric_get_all();

-- src/schema/01_temporary_queues.sql
-- Temporary queues and the session that owns each (its pid and start time,
-- see queue_create_temporary). The scheduler drops a queue listed here once
-- that session ended, so no role may write it: row security is on with no
-- policy, which leaves it to the table's owner (the role that created the
-- extension) whatever privileges a role was granted on schema fetchq.
-- queue_create_temporary inserts as that owner; the row goes with its queue.
CREATE TABLE fetchq.temporary_queues (
    name CHARACTER VARYING(40) PRIMARY KEY
        REFERENCES fetchq.queues (name) ON DELETE CASCADE,
    session_key BIGINT NOT NULL,
    created_by OID NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    -- dropped also once nothing moved its documents (its counters) for this
    -- long (queue_create_temporary's idle_timeout; NULL: only with its session)
    idle_timeout INTERVAL CHECK (idle_timeout > '0'::interval)
);
ALTER TABLE fetchq.temporary_queues ENABLE ROW LEVEL SECURITY;
SELECT pg_catalog.pg_extension_config_dump('fetchq.temporary_queues', '');

-- src/schema/02_routes.sql
-- Routes (route_create, subscribe): every document that arrives in source
-- and matches selector (NULL: every document) is also pushed into
-- destination, in the pushing transaction, with the rights of owner (the
-- role that created the route), checked at delivery. Only the table's owner
-- (the role that created the extension) writes it: row security is on with
-- a read policy only, and route_create and route_drop insert and delete as
-- that owner once they checked the caller's rights. A route goes with
-- either of its queues (ON DELETE CASCADE); a queue with routes cannot be
-- renamed.
CREATE TABLE fetchq.routes (
    id BIGSERIAL PRIMARY KEY,
    source CHARACTER VARYING(40) NOT NULL
        REFERENCES fetchq.queues (name) ON DELETE CASCADE,
    destination CHARACTER VARYING(40) NOT NULL
        REFERENCES fetchq.queues (name) ON DELETE CASCADE,
    selector JSONPATH,
    owner REGROLE NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    UNIQUE (source, destination),
    CHECK (source <> destination)
);
CREATE INDEX __fetchq_routes_destination_idx ON fetchq.routes (destination);
ALTER TABLE fetchq.routes ENABLE ROW LEVEL SECURITY;
CREATE POLICY routes_read ON fetchq.routes FOR SELECT USING (true);

-- The routes out of topics, as subscriptions: temporary when the receiving
-- queue belongs to a session (subscribe_temporary).
CREATE VIEW fetchq.subscriptions AS
SELECT r.id, r.source AS topic, r.destination AS queue, r.selector,
       d.owner_session IS NOT NULL AS temporary, r.owner, r.created_at
FROM fetchq.routes AS r
JOIN fetchq.queues AS t ON t.name = r.source AND t.is_topic
JOIN fetchq.queues AS d ON d.name = r.destination;

SELECT pg_catalog.pg_extension_config_dump('fetchq.routes', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.routes_id_seq', '');

-- src/schema/03_queue_grants.sql
-- Per-queue privileges (queue_grant, queue_revoke): what `grantee`, and every
-- role that has its privileges, may do with `queue` through fetchq's
-- functions, as a mask of push (1), pick (2), read (4) and manage (8). A
-- queue with no row here keeps the all-or-nothing model: the privileges on
-- its tables decide. Only the table's owner (the role that created the
-- extension) reads or writes it (row security with no policy); the view
-- fetchq.queue_privileges shows each caller the grants of the queues it may
-- read. A grant goes with its queue (ON DELETE CASCADE); a dropped role's
-- grants no longer apply, and the scheduler removes them.
CREATE TABLE fetchq.queue_grants (
    queue CHARACTER VARYING(40) NOT NULL
        REFERENCES fetchq.queues (name) ON DELETE CASCADE,
    grantee REGROLE NOT NULL,
    privileges SMALLINT NOT NULL CHECK (privileges BETWEEN 1 AND 15),
    grantor REGROLE NOT NULL,
    granted_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (queue, grantee)
);
ALTER TABLE fetchq.queue_grants ENABLE ROW LEVEL SECURITY;

SELECT pg_catalog.pg_extension_config_dump('fetchq.queue_grants', '');

-- src/schema/04_streams.sql
-- Streams (stream_create, stream_append, ...): an ordered log per key with
-- gapless offsets in commit order, and per consumer group a committed offset
-- per key. Messages are append-only rows, each payload stored once; an
-- append moves its key's head row (stream_keys.last_offset) and so waits for
-- another append to the key until that one ends. Retention (the scheduler)
-- deletes what every group of a stream committed. The hot tables have no
-- foreign keys (a check per append or commit, and a shared row lock on the
-- stream's row that concurrent appenders turn into multixacts):
-- stream_drop deletes their rows itself. Nor CHECK constraints on the
-- offsets: the executor compiles them again for every statement, and the
-- functions, which alone number messages and move offsets, keep them
-- positive.
CREATE TABLE fetchq.streams (
    id SERIAL PRIMARY KEY,
    name CHARACTER VARYING(40) NOT NULL UNIQUE,
    owner REGROLE NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    -- stream_set_max_age: retention also removes messages older than this,
    -- committed or not; NULL (the default): only what every group committed.
    max_age INTERVAL CHECK (max_age > interval '0')
);

-- One row per key that ever had a message, with its last offset: what
-- appends number from and stream_claim enumerates.
CREATE TABLE fetchq.stream_keys (
    stream_id INTEGER NOT NULL REFERENCES fetchq.streams (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    last_offset BIGINT NOT NULL,
    PRIMARY KEY (stream_id, key)
);

CREATE TABLE fetchq.stream_messages (
    stream_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    "offset" BIGINT NOT NULL,
    payload JSONB,
    appended_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (stream_id, key, "offset")
);

-- The groups of a stream: created by their first use (or stream_group_create).
CREATE TABLE fetchq.stream_groups (
    stream_id INTEGER NOT NULL REFERENCES fetchq.streams (id) ON DELETE CASCADE,
    group_name CHARACTER VARYING(40) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (stream_id, group_name)
);

-- A group's committed offset per key (0 when there is no row).
CREATE TABLE fetchq.stream_offsets (
    stream_id INTEGER NOT NULL,
    group_name CHARACTER VARYING(40) NOT NULL,
    key TEXT NOT NULL,
    committed BIGINT NOT NULL,
    committed_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (stream_id, group_name, key)
);

-- Keys leased to a session (stream_claim) until `until`, or until that
-- session ends.
CREATE TABLE fetchq.stream_leases (
    stream_id INTEGER NOT NULL,
    group_name CHARACTER VARYING(40) NOT NULL,
    key TEXT NOT NULL,
    session BIGINT NOT NULL,
    until TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (stream_id, group_name, key)
);

SELECT pg_catalog.pg_extension_config_dump('fetchq.streams', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.streams_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.stream_keys', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.stream_messages', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.stream_groups', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.stream_offsets', '');

-- src/sql_api/doc_outcome.sql
-- Finishing picked documents (src/sql_api/doc_outcome.cpp)

CREATE OR REPLACE FUNCTION fetchq.doc_complete(queue VARCHAR, subject VARCHAR, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_complete' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_complete(queue VARCHAR, subject VARCHAR, payload JSONB,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_complete' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_complete_many(queue VARCHAR, subjects VARCHAR[])
RETURNS INTEGER
AS 'MODULE_PATHNAME', 'fetchq_doc_complete_many' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_kill(queue VARCHAR, subject VARCHAR, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_kill' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_kill(queue VARCHAR, subject VARCHAR, payload JSONB,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_kill' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_drop(queue VARCHAR, subject VARCHAR, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_drop' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_reschedule(queue VARCHAR, subject VARCHAR,
    next_iteration TIMESTAMP WITH TIME ZONE, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reschedule' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_reschedule(queue VARCHAR, subject VARCHAR,
    next_iteration TIMESTAMP WITH TIME ZONE, payload JSONB, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reschedule' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_reject(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reject' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_reject(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, ref_id VARCHAR, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reject' LANGUAGE C VOLATILE;

-- fetchq: the fenced forms (attempts: act only while the document's attempts
-- still equal it; NULL: no fence), new overloads beside Fetchq 4's.
CREATE OR REPLACE FUNCTION fetchq.doc_complete(queue VARCHAR, subject VARCHAR, payload JSONB,
    attempts INTEGER, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_complete' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_kill(queue VARCHAR, subject VARCHAR, payload JSONB,
    attempts INTEGER, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_kill' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_drop(queue VARCHAR, subject VARCHAR, attempts INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_drop' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_reschedule(queue VARCHAR, subject VARCHAR,
    next_iteration TIMESTAMP WITH TIME ZONE, payload JSONB, attempts INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reschedule' LANGUAGE C VOLATILE;

-- fetchq: doc_reject with a delay (pickable again that long from now instead
-- of when its lock ends) and a fence.
CREATE OR REPLACE FUNCTION fetchq.doc_reject(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, ref_id VARCHAR, delay INTERVAL, attempts INTEGER DEFAULT NULL,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reject' LANGUAGE C VOLATILE;

-- fetchq: the same without ref_id, so that a call may name `delay` alone
-- (`delay => '2 seconds'`). No default anywhere here, nor an attempts
-- argument: either would make this form or Fetchq 4's ambiguous.
CREATE OR REPLACE FUNCTION fetchq.doc_reject(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, delay INTERVAL, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reject_delayed' LANGUAGE C VOLATILE;

-- fetchq: lease extension of an active document.
CREATE OR REPLACE FUNCTION fetchq.doc_extend(queue VARCHAR, subject VARCHAR, duration VARCHAR,
    attempts INTEGER DEFAULT NULL, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_extend' LANGUAGE C VOLATILE;

-- fetchq: a killed document back to pending (or planned at next_iteration),
-- attempts 0; doc_retry_many puts back every killed one, or those whose
-- subject is LIKE the pattern (redrive).
CREATE OR REPLACE FUNCTION fetchq.doc_retry(queue VARCHAR, subject VARCHAR,
    next_iteration TIMESTAMP WITH TIME ZONE DEFAULT NULL, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_retry' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_retry_many(queue VARCHAR, subject_pattern TEXT DEFAULT NULL,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_retry_many' LANGUAGE C VOLATILE;

-- src/sql_api/doc_pick.sql
-- Picking documents (src/sql_api/doc_pick.cpp)

CREATE OR REPLACE FUNCTION fetchq.doc_pick(queue VARCHAR, version INTEGER, "limit" INTEGER,
    duration VARCHAR)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick' LANGUAGE C VOLATILE ROWS 10;

CREATE OR REPLACE FUNCTION fetchq.doc_pick(queue VARCHAR, duration VARCHAR)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick' LANGUAGE C VOLATILE ROWS 1;

CREATE OR REPLACE FUNCTION fetchq.doc_pick(queue VARCHAR)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick' LANGUAGE C VOLATILE ROWS 1;

CREATE OR REPLACE FUNCTION fetchq.doc_pick(queue VARCHAR, "limit" INTEGER)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick' LANGUAGE C VOLATILE ROWS 10;

-- fetchq: with session_bound = true the documents go back to pending as soon as
-- the picking session ends (disconnect, crash, pg_terminate_backend).
CREATE OR REPLACE FUNCTION fetchq.doc_pick(queue VARCHAR, version INTEGER, "limit" INTEGER,
    duration VARCHAR, session_bound BOOLEAN)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick' LANGUAGE C VOLATILE ROWS 10;

-- fetchq: a pick that waits, up to `wait`, for documents, holding no snapshot
-- while it waits (a procedure: CALL it outside a transaction block, passing
-- NULL for docs). docs: what doc_pick returns, as a jsonb array; [] when
-- nothing came within `wait`.
CREATE OR REPLACE PROCEDURE fetchq.doc_pick_wait(queue VARCHAR, version INTEGER, "limit" INTEGER,
    lock INTERVAL, wait INTERVAL, OUT docs JSONB)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick_wait' LANGUAGE C;

-- Internal: in doc_pick's statement, notes where each taken document stood
-- in pick order and whether a pending document not due yet lies before it
-- (so that the next pick starts there) and returns attempts + 1. Called
-- alone it changes nothing.
CREATE OR REPLACE FUNCTION fetchq.doc_pick_position(priority INTEGER,
    next_iteration TIMESTAMP WITH TIME ZONE, attempts INTEGER, waits_before BOOLEAN)
RETURNS INTEGER
AS 'MODULE_PATHNAME', 'fetchq_doc_pick_position' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- src/sql_api/doc_push.sql
-- Pushing documents (src/sql_api/doc_push.cpp)

CREATE OR REPLACE FUNCTION fetchq.doc_push(queue VARCHAR, subject VARCHAR, version INTEGER,
    priority INTEGER, next_iteration TIMESTAMP WITH TIME ZONE, payload JSONB,
    OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push' LANGUAGE C VOLATILE;

-- fetchq: a document that the scheduler deletes if it is still planned or
-- pending at expires_at (NULL: the queue's default_ttl, if any).
CREATE OR REPLACE FUNCTION fetchq.doc_push(queue VARCHAR, subject VARCHAR, version INTEGER,
    priority INTEGER, next_iteration TIMESTAMP WITH TIME ZONE, payload JSONB,
    expires_at TIMESTAMP WITH TIME ZONE, OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_push(queue VARCHAR, subject VARCHAR, OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_push(queue VARCHAR, subject VARCHAR, payload JSONB,
    OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_push(queue VARCHAR, subject VARCHAR, payload JSONB,
    next_iteration TIMESTAMP WITH TIME ZONE, OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push' LANGUAGE C VOLATILE;

-- Fetchq 4's bulk form: data is "('subject', priority, 'payload', {DATA}), ..."
CREATE OR REPLACE FUNCTION fetchq.doc_push(queue VARCHAR, version INTEGER,
    next_iteration TIMESTAMP WITH TIME ZONE, data VARCHAR, OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push_tuples' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_push_many(queue VARCHAR, subjects VARCHAR[],
    payloads JSONB[] DEFAULT NULL, next_iteration TIMESTAMP WITH TIME ZONE DEFAULT now(),
    version INTEGER DEFAULT 0, priority INTEGER DEFAULT 0)
RETURNS INTEGER
AS 'MODULE_PATHNAME', 'fetchq_doc_push_many' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_append(queue VARCHAR, payload JSONB, version INTEGER,
    priority INTEGER, OUT subject VARCHAR)
AS 'MODULE_PATHNAME', 'fetchq_doc_append' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_append(queue VARCHAR, payload JSONB, OUT subject VARCHAR)
AS 'MODULE_PATHNAME', 'fetchq_doc_append' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.doc_upsert(queue VARCHAR, subject VARCHAR, version INTEGER,
    priority INTEGER, next_iteration TIMESTAMP WITH TIME ZONE, payload JSONB,
    OUT queued_docs INTEGER, OUT updated_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_upsert' LANGUAGE C VOLATILE;

-- src/sql_api/doc_take.sql
-- One document by its subject (src/sql_api/doc_take.cpp)

-- Takes the document for processing whatever its place in the queue: a
-- planned or pending one becomes active, as doc_pick makes it; an active,
-- completed, killed or missing one returns no row. Waits for a transaction
-- that holds the row; with nowait => true such a row is no row at once.
CREATE OR REPLACE FUNCTION fetchq.doc_take(queue VARCHAR, subject VARCHAR, duration VARCHAR,
    nowait BOOLEAN DEFAULT false)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_take' LANGUAGE C VOLATILE ROWS 1;

-- The document as it is, changing nothing; no row when there is none.
CREATE OR REPLACE FUNCTION fetchq.doc_peek(queue VARCHAR, subject VARCHAR)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    status INTEGER, attempts INTEGER, iterations BIGINT,
    created_at TIMESTAMP WITH TIME ZONE, last_iteration TIMESTAMP WITH TIME ZONE,
    next_iteration TIMESTAMP WITH TIME ZONE, lock_upgrade TIMESTAMP WITH TIME ZONE,
    expires_at TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_peek' LANGUAGE C STABLE STRICT ROWS 1;

-- src/sql_api/info.sql
-- Housekeeping (src/sql_api/info.cpp)

-- version: the Fetchq API level clients check; extension_version: this
-- extension's own version (pg_extension.extversion).
CREATE OR REPLACE FUNCTION fetchq.info(OUT version VARCHAR, OUT extension_version VARCHAR)
AS 'MODULE_PATHNAME', 'fetchq_info' LANGUAGE C STABLE;

-- Kept for Fetchq clients: CREATE EXTENSION already did the work.
CREATE OR REPLACE FUNCTION fetchq.init(OUT was_initialized BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_init' LANGUAGE C VOLATILE;

-- Drops every queue (tables and catalog rows) and clears fetchq.metrics,
-- fetchq.metrics_writes and the queues' jobs. The extension stays: remove
-- it with DROP EXTENSION fetchq CASCADE.
CREATE OR REPLACE FUNCTION fetchq.destroy_with_terrible_consequences(OUT was_destroyed BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_destroy_with_terrible_consequences' LANGUAGE C VOLATILE;

-- Schema upgrades of Fetchq 3: ALTER EXTENSION fetchq UPDATE does this job.
CREATE OR REPLACE FUNCTION fetchq.upgrade__310__320(OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_upgrade' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.upgrade__320__330(OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_upgrade' LANGUAGE C VOLATILE;

-- src/sql_api/log.sql
-- Error log and trace (src/sql_api/log.cpp)

CREATE OR REPLACE FUNCTION fetchq.log_error(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, OUT queued_logs BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_log_error' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.log_error(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, ref_id VARCHAR, OUT queued_logs BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_log_error' LANGUAGE C VOLATILE;

-- Every queue's document with this subject and its log rows, numbered
-- (queues by id; in a queue the document, then the logs oldest first).
CREATE OR REPLACE FUNCTION fetchq.trace(subject VARCHAR, "order" VARCHAR)
RETURNS TABLE(step INTEGER, created_at TIMESTAMP WITH TIME ZONE, queue VARCHAR,
    type VARCHAR, info VARCHAR, details JSONB)
AS 'MODULE_PATHNAME', 'fetchq_trace' LANGUAGE C STABLE;

CREATE OR REPLACE FUNCTION fetchq.trace(subject VARCHAR)
RETURNS TABLE(step INTEGER, created_at TIMESTAMP WITH TIME ZONE, queue VARCHAR,
    type VARCHAR, info VARCHAR, details JSONB)
AS 'MODULE_PATHNAME', 'fetchq_trace' LANGUAGE C STABLE;

-- src/sql_api/metric_compute.sql
-- Counting documents, resetting counters (src/sql_api/metric_compute.cpp)

CREATE OR REPLACE FUNCTION fetchq.metric_compute(queue VARCHAR, OUT cnt INTEGER, OUT pln INTEGER,
    OUT pnd INTEGER, OUT act INTEGER, OUT kll INTEGER, OUT cpl INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_compute' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_compute_all()
RETURNS TABLE (queue VARCHAR, cnt INTEGER, pln INTEGER, pnd INTEGER, act INTEGER,
    cpl INTEGER, kll INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_compute_all' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_reset(queue VARCHAR, OUT cnt INTEGER, OUT pln INTEGER,
    OUT pnd INTEGER, OUT act INTEGER, OUT cpl INTEGER, OUT kll INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_reset' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_reset_all()
RETURNS TABLE (queue VARCHAR, cnt INTEGER, pln INTEGER, pnd INTEGER, act INTEGER,
    cpl INTEGER, kll INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_reset_all' LANGUAGE C VOLATILE;

-- src/sql_api/metric_log.sql
-- The counter write log (src/sql_api/metric_log.cpp)

CREATE OR REPLACE FUNCTION fetchq.metric_log_set(queue VARCHAR, metric VARCHAR, value INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_log_set' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_log_increment(queue VARCHAR, metric VARCHAR, value INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_log_increment' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_log_decrement(queue VARCHAR, metric VARCHAR, value INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_log_decrement' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_log_pack(OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_log_pack' LANGUAGE C VOLATILE;

-- src/sql_api/metric_read.sql
-- Reading counters (src/sql_api/metric_read.cpp)

CREATE OR REPLACE FUNCTION fetchq.metric_get(queue VARCHAR, metric VARCHAR, OUT current_value INTEGER,
    OUT last_update TIMESTAMP WITH TIME ZONE, OUT does_exists BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_metric_get' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_get(queue VARCHAR)
RETURNS TABLE (metric VARCHAR, current_value BIGINT, last_update TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_metric_get_queue' LANGUAGE C VOLATILE ROWS 20;

CREATE OR REPLACE FUNCTION fetchq.metric_get_total(metric VARCHAR, OUT current_value INTEGER,
    OUT does_exists BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_metric_get_total' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_get_common(queue VARCHAR,
    OUT cnt INTEGER, OUT pnd INTEGER, OUT pln INTEGER, OUT act INTEGER, OUT cpl INTEGER,
    OUT kll INTEGER, OUT ent INTEGER, OUT drp INTEGER, OUT pkd INTEGER, OUT prc INTEGER,
    OUT res INTEGER, OUT rej INTEGER, OUT orp INTEGER, OUT err INTEGER,
    -- fetchq's own: documents deleted because they expired
    OUT exp INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_get_common' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_get_all()
RETURNS TABLE (queue VARCHAR, cnt INTEGER, pnd INTEGER, pln INTEGER, act INTEGER,
    cpl INTEGER, kll INTEGER, ent INTEGER, drp INTEGER, pkd INTEGER, prc INTEGER,
    res INTEGER, rej INTEGER, orp INTEGER, err INTEGER, exp INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_get_all' LANGUAGE C VOLATILE;

-- src/sql_api/metric_snap.sql
-- Counter history (src/sql_api/metric_snap.cpp)

CREATE OR REPLACE FUNCTION fetchq.metric_snap(queue VARCHAR, OUT success BOOLEAN, OUT inserts INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_snap' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_snap(queue VARCHAR, metric VARCHAR, OUT success BOOLEAN,
    OUT inserts INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_snap_metric' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_snap(queue VARCHAR, whitelist JSONB, OUT success BOOLEAN,
    OUT inserts INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_snap_whitelist' LANGUAGE C VOLATILE;

-- src/sql_api/metric_write.sql
-- Direct counter writes (src/sql_api/metric_write.cpp)

CREATE OR REPLACE FUNCTION fetchq.metric_set(queue VARCHAR, metric VARCHAR, value INTEGER,
    OUT current_value INTEGER, OUT was_created BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_metric_set' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.metric_increment(queue VARCHAR, metric VARCHAR, value INTEGER,
    OUT current_value INTEGER, OUT was_created BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_metric_increment' LANGUAGE C VOLATILE;

-- src/sql_api/mnt.sql
-- Document maintenance on demand (src/sql_api/mnt.cpp)

CREATE OR REPLACE FUNCTION fetchq.mnt_make_pending(queue VARCHAR, "limit" INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_make_pending' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.mnt_reschedule_orphans(queue VARCHAR, "limit" INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_reschedule_orphans' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.mnt_mark_dead(queue VARCHAR, "limit" INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_mark_dead' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.mnt_run(queue VARCHAR, "limit" INTEGER,
    OUT activated_count INTEGER, OUT rescheduled_count INTEGER, OUT killed_count INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_run' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.mnt_run_all("limit" INTEGER)
RETURNS TABLE(queue VARCHAR, activated_count INTEGER, rescheduled_count INTEGER,
    killed_count INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_run_all' LANGUAGE C VOLATILE;

-- src/sql_api/mnt_job.sql
-- Maintenance jobs (src/sql_api/mnt_job.cpp)

CREATE OR REPLACE FUNCTION fetchq.mnt_job_pick(lock_duration VARCHAR, "limit" INTEGER)
RETURNS TABLE(id INTEGER, task VARCHAR, queue VARCHAR, attempts INTEGER, iterations BIGINT,
    next_iteration TIMESTAMP WITH TIME ZONE, last_iteration TIMESTAMP WITH TIME ZONE,
    settings JSONB, payload JSONB)
AS 'MODULE_PATHNAME', 'fetchq_mnt_job_pick' LANGUAGE C VOLATILE ROWS 10;

CREATE OR REPLACE FUNCTION fetchq.mnt_job_reschedule(id INTEGER, delay VARCHAR, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_mnt_job_reschedule' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.mnt_job_run(lock_duration VARCHAR, "limit" INTEGER,
    OUT success BOOLEAN, OUT processed INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_job_run' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.mnt_job_run("limit" INTEGER, OUT success BOOLEAN, OUT processed INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_job_run' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.mnt_job_run(OUT success BOOLEAN, OUT processed INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_job_run' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.mnt(lock_duration VARCHAR, OUT processed INTEGER, OUT packed INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.mnt(OUT processed INTEGER, OUT packed INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt' LANGUAGE C VOLATILE;

-- src/sql_api/notify.sql
-- Notifications (src/sql_api/notify.cpp)
-- Channels: fetchq_on_change (changes of fetchq.queues, JSON payload) and,
-- for queues with notify enabled, fetchq__<queue>__<pln|pnd|act|cpl|kll>
-- (payload: the document's subject).

CREATE OR REPLACE FUNCTION fetchq.trigger_notify_as_json() RETURNS TRIGGER
AS 'MODULE_PATHNAME', 'fetchq_trigger_notify_as_json' LANGUAGE C;

CREATE OR REPLACE FUNCTION fetchq.trigger_docs_notify_insert() RETURNS TRIGGER
AS 'MODULE_PATHNAME', 'fetchq_trigger_docs_notify_insert' LANGUAGE C;

CREATE OR REPLACE FUNCTION fetchq.trigger_docs_notify_update() RETURNS TRIGGER
AS 'MODULE_PATHNAME', 'fetchq_trigger_docs_notify_update' LANGUAGE C;

CREATE OR REPLACE FUNCTION fetchq.queue_enable_notify(queue VARCHAR, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_enable_notify' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_disable_notify(queue VARCHAR, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_disable_notify' LANGUAGE C VOLATILE;

-- Fetchq clients reload their queue settings on these notifications.
CREATE OR REPLACE TRIGGER fetchq_trigger_sys_queues_insert AFTER INSERT OR UPDATE OR DELETE
    ON fetchq.queues FOR EACH ROW EXECUTE FUNCTION fetchq.trigger_notify_as_json();

-- src/sql_api/queue_content.sql
-- Looking at and emptying queues (src/sql_api/queue_content.cpp)

CREATE OR REPLACE FUNCTION fetchq.queue_top(queue VARCHAR, version INTEGER, "limit" INTEGER,
    "offset" INTEGER)
RETURNS TABLE (subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_queue_top' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_status()
RETURNS TABLE (id INTEGER, name VARCHAR, is_active BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_status' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_status(queue VARCHAR)
RETURNS TABLE (id INTEGER, name VARCHAR, is_active BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_status' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_truncate(queue VARCHAR, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_truncate' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_truncate(queue VARCHAR, empty BOOLEAN, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_truncate' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_truncate_all(OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_truncate_all' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_truncate_all(empty BOOLEAN, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_truncate_all' LANGUAGE C VOLATILE;

-- src/sql_api/queue_grants.sql
-- Per-queue privileges (src/sql_api/queue_grants.cpp; the table is in
-- src/schema/03_queue_grants.sql)

-- Gives role (by name or regrole) one or more of push, pick, read and manage
-- on the queue (a text such as 'push, pick', a text array, or 'all'). Only
-- the queue's owner, a role with manage on it, or a superuser may grant.
-- Returns the privileges the role holds on the queue now.
CREATE OR REPLACE FUNCTION fetchq.queue_grant(queue VARCHAR, role NAME, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_grant' LANGUAGE C VOLATILE STRICT;
CREATE OR REPLACE FUNCTION fetchq.queue_grant(queue VARCHAR, role NAME, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_grant' LANGUAGE C VOLATILE STRICT;
CREATE OR REPLACE FUNCTION fetchq.queue_grant(queue VARCHAR, role REGROLE, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_grant' LANGUAGE C VOLATILE STRICT;
CREATE OR REPLACE FUNCTION fetchq.queue_grant(queue VARCHAR, role REGROLE, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_grant' LANGUAGE C VOLATILE STRICT;

-- Takes privileges away; returns what the role still holds on the queue.
-- When a queue's last grant goes, the queue is back in the all-or-nothing
-- model, where the privileges on its tables decide.
CREATE OR REPLACE FUNCTION fetchq.queue_revoke(queue VARCHAR, role NAME, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_revoke' LANGUAGE C VOLATILE STRICT;
CREATE OR REPLACE FUNCTION fetchq.queue_revoke(queue VARCHAR, role NAME, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_revoke' LANGUAGE C VOLATILE STRICT;
CREATE OR REPLACE FUNCTION fetchq.queue_revoke(queue VARCHAR, role REGROLE, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_revoke' LANGUAGE C VOLATILE STRICT;
CREATE OR REPLACE FUNCTION fetchq.queue_revoke(queue VARCHAR, role REGROLE, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_revoke' LANGUAGE C VOLATILE STRICT;

-- Whether role (NULL: the current user) holds privilege on the queue: from
-- its grants, or for a queue without grants from the privileges on its
-- tables (push INSERT, pick UPDATE, read SELECT on its documents; manage:
-- the owner's privileges).
CREATE OR REPLACE FUNCTION fetchq.queue_has_privilege(queue VARCHAR, privilege TEXT,
    role REGROLE DEFAULT NULL)
RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_queue_has_privilege' LANGUAGE C STABLE;

-- Empties every backend's cache of queue grants when a change commits.
CREATE OR REPLACE FUNCTION fetchq.queue_grants_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_changed' LANGUAGE C;

CREATE OR REPLACE TRIGGER fetchq_queue_grants_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.queue_grants FOR EACH STATEMENT EXECUTE FUNCTION fetchq.queue_grants_changed();

-- The grants of the queues the caller may read (security_barrier: a
-- caller's own function in a WHERE clause never sees the others).
CREATE OR REPLACE VIEW fetchq.queue_privileges WITH (security_barrier) AS
SELECT g.queue, r.rolname AS role,
       ARRAY(SELECT p.name FROM pg_catalog.unnest(ARRAY['push', 'pick', 'read', 'manage'])
                 WITH ORDINALITY AS p(name, bit)
             WHERE g.privileges & (1 << (p.bit::integer - 1)) <> 0
             ORDER BY p.bit) AS privileges,
       COALESCE(gr.rolname::text, g.grantor::oid::text) AS grantor,
       g.granted_at
FROM fetchq.queue_grants AS g
JOIN pg_catalog.pg_roles AS r ON r.oid = g.grantee
LEFT JOIN pg_catalog.pg_roles AS gr ON gr.oid = g.grantor
WHERE fetchq.queue_has_privilege(g.queue, 'read');

GRANT SELECT ON fetchq.queue_privileges TO PUBLIC;

-- src/sql_api/queue_lifecycle.sql
-- Queue lifecycle (src/sql_api/queue_lifecycle.cpp)

CREATE OR REPLACE FUNCTION fetchq.queue_create(queue VARCHAR, OUT was_created BOOLEAN, OUT queue_id INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_create' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_drop(queue VARCHAR, OUT was_dropped BOOLEAN, OUT queue_id INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_get_id(queue VARCHAR, OUT queue_id BIGINT)
AS 'MODULE_PATHNAME', 'fetchq_queue_get_id' LANGUAGE C VOLATILE;

-- fetchq: a queue owned by the calling session; usable with every doc_*
-- function; dropped by the scheduler within seconds after the session ends,
-- or (with an idle_timeout) once nothing was pushed into or picked from it
-- for that long.
CREATE OR REPLACE FUNCTION fetchq.queue_create_temporary(idle_timeout INTERVAL DEFAULT NULL)
RETURNS VARCHAR
AS 'MODULE_PATHNAME', 'fetchq_queue_create_temporary' LANGUAGE C VOLATILE;

-- src/sql_api/queue_ownership.sql
-- Who may change a queue (src/sql_api/queue_ownership.cpp)
--
-- The catalog rows of a queue (its settings in fetchq.queues, its jobs in
-- fetchq.jobs) steer what the scheduler does to the queue's documents, so
-- only the role that owns the queue's tables may write them, whatever
-- privileges it was granted on the tables of schema fetchq. Reading stays
-- open to every role that may read the tables.

-- fetchq: true when the current role has the privileges of the owner of the
-- queue's tables; false for a name without tables (queue_create makes the
-- tables before the row, so nobody can register a queue for another role).
CREATE OR REPLACE FUNCTION fetchq.queue_is_own(queue VARCHAR) RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_queue_is_own' LANGUAGE C STABLE STRICT PARALLEL SAFE;

ALTER TABLE fetchq.queues ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS queues_read ON fetchq.queues;
CREATE POLICY queues_read ON fetchq.queues FOR SELECT USING (true);
DROP POLICY IF EXISTS queues_insert ON fetchq.queues;
CREATE POLICY queues_insert ON fetchq.queues FOR INSERT
    WITH CHECK (fetchq.queue_is_own(name));
DROP POLICY IF EXISTS queues_update ON fetchq.queues;
CREATE POLICY queues_update ON fetchq.queues FOR UPDATE
    USING (fetchq.queue_is_own(name)) WITH CHECK (fetchq.queue_is_own(name));
DROP POLICY IF EXISTS queues_delete ON fetchq.queues;
CREATE POLICY queues_delete ON fetchq.queues FOR DELETE USING (fetchq.queue_is_own(name));

ALTER TABLE fetchq.jobs ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS jobs_read ON fetchq.jobs;
CREATE POLICY jobs_read ON fetchq.jobs FOR SELECT USING (true);
DROP POLICY IF EXISTS jobs_insert ON fetchq.jobs;
CREATE POLICY jobs_insert ON fetchq.jobs FOR INSERT WITH CHECK (fetchq.queue_is_own(queue));
DROP POLICY IF EXISTS jobs_update ON fetchq.jobs;
CREATE POLICY jobs_update ON fetchq.jobs FOR UPDATE
    USING (fetchq.queue_is_own(queue)) WITH CHECK (fetchq.queue_is_own(queue));
DROP POLICY IF EXISTS jobs_delete ON fetchq.jobs;
CREATE POLICY jobs_delete ON fetchq.jobs FOR DELETE USING (fetchq.queue_is_own(queue));

-- src/sql_api/queue_retention.sql
-- How long a queue keeps its logs and metrics (src/sql_api/queue_retention.cpp)

CREATE OR REPLACE FUNCTION fetchq.queue_set_logs_retention(queue VARCHAR, retention VARCHAR,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_logs_retention' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_set_metrics_retention(queue VARCHAR, retention VARCHAR,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_metrics_retention' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_drop_logs(queue VARCHAR, retention VARCHAR,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_logs' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_drop_logs(queue VARCHAR, retention TIMESTAMP WITH TIME ZONE,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_logs' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_drop_logs(queue VARCHAR, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_logs' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_drop_metrics(queue VARCHAR, config JSONB,
    OUT removed_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_metrics' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_drop_metrics(queue VARCHAR, OUT removed_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_metrics' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.utils_ts_retain(table_name VARCHAR, field_name VARCHAR,
    retain VARCHAR, interval_start TIMESTAMP WITH TIME ZONE,
    interval_end TIMESTAMP WITH TIME ZONE, OUT removed_rows BIGINT)
AS 'MODULE_PATHNAME', 'fetchq_utils_ts_retain' LANGUAGE C VOLATILE;

-- fetchq: default time-to-live of documents pushed without expires_at (NULL: none).
CREATE OR REPLACE FUNCTION fetchq.queue_set_default_ttl(queue VARCHAR, ttl VARCHAR,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_default_ttl' LANGUAGE C VOLATILE;

-- src/sql_api/queue_settings.sql
-- A queue's settings and indexes (src/sql_api/queue_settings.cpp)

CREATE OR REPLACE FUNCTION fetchq.queue_create_indexes(queue VARCHAR, OUT was_created BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_create_indexes' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_create_indexes(queue VARCHAR, version INTEGER, attempts INTEGER,
    OUT was_created BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_create_indexes' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_drop_indexes(queue VARCHAR, OUT was_dropped BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_indexes' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_set_max_attempts(queue VARCHAR, max_attempts INTEGER,
    OUT affected_rows INTEGER, OUT was_reindexed BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_max_attempts' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_set_current_version(queue VARCHAR, version INTEGER,
    OUT affected_rows INTEGER, OUT was_reindexed BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_current_version' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.queue_drop_version(queue VARCHAR, version INTEGER,
    OUT was_dropped BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_version' LANGUAGE C VOLATILE;

-- fetchq: how long completed and killed documents are kept after their last
-- change (NULL: forever); the scheduler deletes the older ones.
CREATE OR REPLACE FUNCTION fetchq.queue_set_retention(queue VARCHAR, completed INTERVAL,
    killed INTERVAL, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_retention' LANGUAGE C VOLATILE;

-- fetchq: the queue that receives a copy of every document this one kills
-- (NULL: none).
CREATE OR REPLACE FUNCTION fetchq.queue_set_dead_letter(queue VARCHAR, dead_letter_queue VARCHAR,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_dead_letter' LANGUAGE C VOLATILE;

-- fetchq: when a rejected document or an orphan is pickable again: after
-- delay * factor^(attempts - 1), at most max_delay, spread by +-jitter (a
-- fraction); delay NULL turns the policy off (Fetchq 4's behaviour).
CREATE OR REPLACE FUNCTION fetchq.queue_set_retry_policy(queue VARCHAR, delay INTERVAL,
    factor DOUBLE PRECISION DEFAULT 2, max_delay INTERVAL DEFAULT NULL,
    jitter DOUBLE PRECISION DEFAULT 0, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_retry_policy' LANGUAGE C VOLATILE;

-- Empties every backend's cache of queue settings (src/ops/catalog_cache.hpp)
-- when a change of fetchq.queues commits, however it was made.
CREATE OR REPLACE FUNCTION fetchq.queues_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_changed' LANGUAGE C;

CREATE OR REPLACE TRIGGER fetchq_queues_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.queues FOR EACH STATEMENT EXECUTE FUNCTION fetchq.queues_changed();

-- src/sql_api/routes.sql
-- Routes, topics and subscriptions (src/sql_api/routes.cpp; the table is in
-- src/schema/02_routes.sql)

-- Every document that arrives in source and matches selector (a SQL/JSON
-- path predicate over the payload; NULL: every document) is also pushed into
-- destination, in the same transaction, with the rights of the route's
-- creator. Returns the route's id.
CREATE OR REPLACE FUNCTION fetchq.route_create(source VARCHAR, destination VARCHAR,
    selector TEXT DEFAULT NULL)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_route_create' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.route_drop(source VARCHAR, destination VARCHAR)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_route_drop' LANGUAGE C VOLATILE STRICT;

-- A queue that keeps nothing and only routes: a push into it returns how
-- many subscriptions queued the document.
CREATE OR REPLACE FUNCTION fetchq.topic_create(name VARCHAR, OUT was_created BOOLEAN,
    OUT queue_id INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_topic_create' LANGUAGE C VOLATILE STRICT;

CREATE OR REPLACE FUNCTION fetchq.subscribe(topic VARCHAR, queue VARCHAR, selector TEXT DEFAULT NULL)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_subscribe' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.unsubscribe(topic VARCHAR, queue VARCHAR)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_unsubscribe' LANGUAGE C VOLATILE STRICT;

-- A temporary queue of the calling session (as queue_create_temporary),
-- subscribed to the topic; the scheduler drops both once the session ends.
CREATE OR REPLACE FUNCTION fetchq.subscribe_temporary(topic VARCHAR, selector TEXT DEFAULT NULL,
    idle_timeout INTERVAL DEFAULT NULL)
RETURNS VARCHAR
AS 'MODULE_PATHNAME', 'fetchq_subscribe_temporary' LANGUAGE C VOLATILE;

-- Empties every backend's cache of routes (src/ops/catalog_cache.hpp) when a
-- change of fetchq.routes commits, however it was made.
CREATE OR REPLACE FUNCTION fetchq.routes_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_changed' LANGUAGE C;

CREATE OR REPLACE TRIGGER fetchq_routes_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.routes FOR EACH STATEMENT EXECUTE FUNCTION fetchq.routes_changed();

-- src/sql_api/stats.sql
-- Queue statistics (src/sql_api/stats.cpp): documents by status, what is
-- ready to pick and since when, and the counters.

CREATE OR REPLACE FUNCTION fetchq.stats(queue VARCHAR,
    OUT queue VARCHAR, OUT planned BIGINT, OUT pending BIGINT, OUT active BIGINT,
    OUT completed BIGINT, OUT killed BIGINT, OUT ready BIGINT,
    OUT oldest_ready_age DOUBLE PRECISION, OUT next_planned_at TIMESTAMP WITH TIME ZONE,
    OUT cnt BIGINT, OUT pln BIGINT, OUT pnd BIGINT, OUT act BIGINT, OUT cpl BIGINT,
    OUT kll BIGINT, OUT ent BIGINT, OUT drp BIGINT, OUT pkd BIGINT, OUT prc BIGINT,
    OUT res BIGINT, OUT rej BIGINT, OUT orp BIGINT, OUT err BIGINT, OUT exp BIGINT, OUT rtn BIGINT)
AS 'MODULE_PATHNAME', 'fetchq_stats' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.stats_all()
RETURNS TABLE (queue VARCHAR, planned BIGINT, pending BIGINT, active BIGINT,
    completed BIGINT, killed BIGINT, ready BIGINT, oldest_ready_age DOUBLE PRECISION,
    next_planned_at TIMESTAMP WITH TIME ZONE,
    cnt BIGINT, pln BIGINT, pnd BIGINT, act BIGINT, cpl BIGINT, kll BIGINT, ent BIGINT,
    drp BIGINT, pkd BIGINT, prc BIGINT, res BIGINT, rej BIGINT, orp BIGINT, err BIGINT,
    exp BIGINT, rtn BIGINT)
AS 'MODULE_PATHNAME', 'fetchq_stats_all' LANGUAGE C VOLATILE ROWS 10;

-- One row per queue whose documents the current role may read.
CREATE OR REPLACE VIEW fetchq.stats AS SELECT * FROM fetchq.stats_all();
-- stats_all() shows each caller the queues it may read.
GRANT SELECT ON fetchq.stats TO PUBLIC;

-- src/sql_api/streams.sql
-- Streams (src/sql_api/streams.cpp; the tables are in src/schema/04_streams.sql)

CREATE OR REPLACE FUNCTION fetchq.stream_create(name VARCHAR, OUT was_created BOOLEAN,
    OUT stream_id INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_stream_create' LANGUAGE C VOLATILE STRICT;

-- Drops the stream with its messages, groups, offsets and leases.
CREATE OR REPLACE FUNCTION fetchq.stream_drop(name VARCHAR) RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_stream_drop' LANGUAGE C VOLATILE STRICT;

-- The message's offset within its key: 1, 2, 3 ... with no gap, in commit
-- order (a second transaction appending to the key waits for the first).
CREATE OR REPLACE FUNCTION fetchq.stream_append(stream VARCHAR, key TEXT, payload JSONB) RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_stream_append' LANGUAGE C VOLATILE;

-- The messages after the group's committed offset of the key, in offset order.
CREATE OR REPLACE FUNCTION fetchq.stream_read(stream VARCHAR, group_name VARCHAR, key TEXT,
    "limit" INTEGER DEFAULT 100)
RETURNS TABLE ("offset" BIGINT, payload JSONB, appended_at TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_stream_read' LANGUAGE C VOLATILE;

-- Moves the group's committed offset of the key forward (a lower or equal
-- offset is ignored); returns the committed offset after the call.
CREATE OR REPLACE FUNCTION fetchq.stream_commit(stream VARCHAR, group_name VARCHAR, key TEXT,
    "offset" BIGINT)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_stream_commit' LANGUAGE C VOLATILE;

-- The next unread message as {"id": offset, "message": payload}, or NULL.
CREATE OR REPLACE FUNCTION fetchq.stream_get(stream VARCHAR, group_name VARCHAR, key TEXT) RETURNS JSONB
AS 'MODULE_PATHNAME', 'fetchq_stream_get' LANGUAGE C VOLATILE;

-- Up to max_keys keys with unread messages for the group, leased to the
-- calling session for `lease` (or until it ends).
CREATE OR REPLACE FUNCTION fetchq.stream_claim(stream VARCHAR, group_name VARCHAR,
    max_keys INTEGER DEFAULT 1, lease INTERVAL DEFAULT '30 seconds')
RETURNS TABLE (key TEXT, lease_until TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_stream_claim' LANGUAGE C VOLATILE;

-- Ends this session's lease of the key (NULL: of every key of the group).
CREATE OR REPLACE FUNCTION fetchq.stream_release(stream VARCHAR, group_name VARCHAR,
    key TEXT DEFAULT NULL)
RETURNS INTEGER
AS 'MODULE_PATHNAME', 'fetchq_stream_release' LANGUAGE C VOLATILE;

-- Registers a group ahead of its first use: from then on retention keeps
-- every message until the group committed it. True when it was created.
CREATE OR REPLACE FUNCTION fetchq.stream_group_create(stream VARCHAR, group_name VARCHAR)
RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_stream_group_create' LANGUAGE C VOLATILE STRICT;

-- Retention also removes messages older than max_age, committed or not
-- (NULL, the default: only what every group committed).
CREATE OR REPLACE FUNCTION fetchq.stream_set_max_age(stream VARCHAR, max_age INTERVAL) RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_stream_set_max_age' LANGUAGE C VOLATILE;

-- {"create": [{"hash", "message"}...], "commit": [{"hash", "id"}...]}: the
-- actions in the order given, all or nothing; returns the offsets given and
-- committed.
CREATE OR REPLACE FUNCTION fetchq.stream_set(stream VARCHAR, group_name VARCHAR, body JSONB) RETURNS JSONB
AS 'MODULE_PATHNAME', 'fetchq_stream_set' LANGUAGE C VOLATILE;

-- Empties every backend's caches of stream ids and groups when fetchq.streams
-- or fetchq.stream_groups changes.
CREATE OR REPLACE FUNCTION fetchq.streams_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_changed' LANGUAGE C;

CREATE OR REPLACE TRIGGER fetchq_streams_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.streams FOR EACH STATEMENT EXECUTE FUNCTION fetchq.streams_changed();

-- Every backend remembers the groups it found registered: a group that goes
-- (a delete, its stream's drop) empties those memories. An insert does not.
CREATE OR REPLACE TRIGGER fetchq_stream_groups_changed AFTER UPDATE OR DELETE OR TRUNCATE
    ON fetchq.stream_groups FOR EACH STATEMENT EXECUTE FUNCTION fetchq.streams_changed();

-- One row per stream.
CREATE OR REPLACE VIEW fetchq.stream_list AS
SELECT s.name AS stream, s.id AS stream_id, s.owner, s.created_at, s.max_age,
       (SELECT count(*) FROM fetchq.stream_keys AS k WHERE k.stream_id = s.id) AS keys,
       (SELECT count(*) FROM fetchq.stream_messages AS m WHERE m.stream_id = s.id) AS messages,
       (SELECT count(*) FROM fetchq.stream_groups AS g WHERE g.stream_id = s.id) AS groups
FROM fetchq.streams AS s;

-- Per stream and group: the messages not yet committed, over every key, and
-- the age of the oldest of them.
CREATE OR REPLACE VIEW fetchq.stream_lag AS
SELECT s.name AS stream, g.group_name,
       COALESCE(sum(k.last_offset - COALESCE(o.committed, 0)), 0)::bigint AS lag,
       pg_catalog.now() - min(u.appended_at) AS oldest_unread_age
FROM fetchq.streams AS s
JOIN fetchq.stream_groups AS g ON g.stream_id = s.id
LEFT JOIN fetchq.stream_keys AS k ON k.stream_id = s.id
LEFT JOIN fetchq.stream_offsets AS o
    ON o.stream_id = s.id AND o.group_name = g.group_name AND o.key = k.key
LEFT JOIN LATERAL (SELECT m.appended_at FROM fetchq.stream_messages AS m
                   WHERE m.stream_id = s.id AND m.key = k.key
                     AND m."offset" > COALESCE(o.committed, 0)
                   ORDER BY m."offset" LIMIT 1) AS u ON true
GROUP BY s.name, g.group_name;

-- src/sql_api/worker_status.sql
-- Background workers (src/sql_api/worker_status.cpp, src/worker/)

CREATE OR REPLACE FUNCTION fetchq.worker_status()
RETURNS TABLE(datname TEXT, pid INTEGER, state TEXT, task TEXT,
    last_run TIMESTAMP WITH TIME ZONE, runs BIGINT, rows_last BIGINT, rows_total BIGINT,
    last_duration_ms DOUBLE PRECISION, errors BIGINT, last_error TEXT,
    next_due TIMESTAMP WITH TIME ZONE, started_at TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_worker_status' LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION fetchq.worker_wake() RETURNS VOID
AS 'MODULE_PATHNAME', 'fetchq_worker_wake' LANGUAGE C VOLATILE;

-- A new fetchq database: have the launcher start its scheduler after commit.
SELECT fetchq.worker_wake();

-- src/upgrade/0.1.0--0.2.0.after.sql
-- Update from 0.1.0, last part: the rows and per-queue objects that 0.2.0
-- keeps otherwise (src/upgrade/README.md).

-- 0.1.0 marked a temporary queue in fetchq.queues.owner_session; 0.2.0's
-- scheduler drops those listed in fetchq.temporary_queues. Their sessions
-- ended with the restart that loaded the new library, so the scheduler drops
-- them at its first round, as 0.1.0's would have.
INSERT INTO fetchq.temporary_queues (name, session_key, created_by)
SELECT q.name, q.owner_session, c.relowner
FROM fetchq.queues AS q
JOIN pg_catalog.pg_class AS c
    ON c.oid = pg_catalog.to_regclass('fetchq_data.' || pg_catalog.quote_ident(q.name || '__docs'))
WHERE q.owner_session IS NOT NULL;

-- Indexes 0.2.0 gives every queue (retention of completed and killed
-- documents), made as each queue's owner, as queue_create_indexes does.
SELECT fetchq.queue_create_indexes(q.name)
FROM fetchq.queues AS q
WHERE pg_catalog.to_regclass('fetchq_data.' || pg_catalog.quote_ident(q.name || '__docs')) IS NOT NULL
ORDER BY q.name;
