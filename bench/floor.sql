-- The floor: the same work as fetchq's document operations, written by hand
-- in plain SQL on a table with the extension's columns and partial indexes.
-- No counters, no function call, no argument checks: what PostgreSQL allows.
--
-- bench/driver.py splits this file at the "-- @name" lines: "setup", "reset",
-- "counts" and "maintain" run through psql; every other section is a pgbench
-- script (pgbench -M prepared: :vars become bound parameters). The same
-- sections exist in extension.sql, reference.sql and pgq.sql.

-- @setup
CREATE TABLE floor_docs (
    subject CHARACTER VARYING(50) NOT NULL PRIMARY KEY,
    version INTEGER DEFAULT 0,
    priority INTEGER DEFAULT 0,
    status INTEGER DEFAULT 0,
    attempts INTEGER DEFAULT 0,
    iterations BIGINT DEFAULT 0,
    next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE,
    created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE,
    payload JSONB,
    expires_at TIMESTAMP WITH TIME ZONE,
    lock_session BIGINT);
-- The extension's indexes on a queue's documents (src/ops/queues/queue_tables.cpp),
-- the retention indexes of completed and killed documents included.
CREATE INDEX floor_docs_pick_idx ON floor_docs (version, priority DESC, next_iteration, attempts)
    WHERE status = 1 AND lock_upgrade IS NULL;
CREATE INDEX floor_docs_planned_idx ON floor_docs (next_iteration)
    WHERE status = 0 AND lock_upgrade IS NULL;
CREATE INDEX floor_docs_active_idx ON floor_docs (next_iteration)
    WHERE status = 2 AND lock_upgrade IS NULL;
CREATE INDEX floor_docs_expiry_idx ON floor_docs (expires_at)
    WHERE expires_at IS NOT NULL AND status IN (0, 1);
CREATE INDEX floor_docs_completed_idx ON floor_docs (last_iteration) WHERE status = 3;
CREATE INDEX floor_docs_killed_idx ON floor_docs (last_iteration) WHERE status = -1;
CREATE INDEX floor_docs_session_idx ON floor_docs (lock_session) WHERE lock_session IS NOT NULL;

-- @reset
-- :backlog pending documents, identical on every system (see driver.py).
TRUNCATE floor_docs;
INSERT INTO floor_docs (subject, version, priority, status, next_iteration, payload, created_at)
SELECT 'b' || g, 0, 0, 1, now() - interval '1 hour' + g * interval '1 millisecond',
       '{"bench": 1}', now()
FROM generate_series(1, :backlog) AS g;
VACUUM ANALYZE floor_docs;

-- @counts
-- pending, active, completed, total: the driver checks the work done.
SELECT count(*) FILTER (WHERE status = 1), count(*) FILTER (WHERE status = 2),
       count(*) FILTER (WHERE status = 3), count(*)
FROM floor_docs;

-- @push_1
\set s random(1, 9000000000000000000)
INSERT INTO floor_docs (subject, version, priority, status, next_iteration, payload, created_at)
VALUES (:s, 0, 0, 1, now(), '{"bench": 1}', now())
ON CONFLICT (subject) DO NOTHING;

-- @push_100
\set s random(1, 9000000000000000000)
INSERT INTO floor_docs (subject, version, priority, status, next_iteration, payload, created_at)
SELECT :s || '_' || g, 0, 0, 1, now(), '{"bench": 1}', now()
FROM generate_series(1, 100) AS g
ON CONFLICT (subject) DO NOTHING;

-- @pick_1
-- Two transactions, as a worker does: take one document, then complete it.
UPDATE floor_docs AS d
SET status = 2, next_iteration = now() + interval '5 minutes', attempts = d.attempts + 1
WHERE d.subject = (
    SELECT subject FROM floor_docs
    WHERE status = 1 AND lock_upgrade IS NULL AND version = 0 AND next_iteration <= now()
    ORDER BY priority DESC, next_iteration, attempts
    LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING d.subject, d.payload \gset
UPDATE floor_docs
SET status = 3, attempts = 0, iterations = iterations + 1, last_iteration = now(),
    next_iteration = '2970-01-01 00:00:00+00'
WHERE subject = :subject AND status = 2;

-- @pick_100
WITH picked AS (
    UPDATE floor_docs AS d
    SET status = 2, next_iteration = now() + interval '5 minutes', attempts = d.attempts + 1
    WHERE d.subject = ANY (ARRAY(
        SELECT subject FROM floor_docs
        WHERE status = 1 AND lock_upgrade IS NULL AND version = 0 AND next_iteration <= now()
        ORDER BY priority DESC, next_iteration, attempts
        LIMIT 100 FOR UPDATE SKIP LOCKED))
    RETURNING d.subject, d.payload)
SELECT array_agg(subject) AS subjects FROM picked \gset
UPDATE floor_docs
SET status = 3, attempts = 0, iterations = iterations + 1, last_iteration = now(),
    next_iteration = '2970-01-01 00:00:00+00'
WHERE subject = ANY (:subjects::varchar[]) AND status = 2;

-- @pick_1_limit_param
-- pick_1 with the LIMIT as a bound parameter, as the extension prepares its
-- pick statement (bench/run.sh --profile runs it with plan_cache_mode auto
-- and force_generic_plan: not part of the table).
\set lim 1
UPDATE floor_docs AS d
SET status = 2, next_iteration = now() + interval '5 minutes', attempts = d.attempts + 1
WHERE d.subject = ANY (ARRAY(
    SELECT subject FROM floor_docs
    WHERE status = 1 AND lock_upgrade IS NULL AND version = 0 AND next_iteration <= now()
    ORDER BY priority DESC, next_iteration, attempts
    LIMIT :lim FOR UPDATE SKIP LOCKED))
RETURNING d.subject, d.payload \gset
UPDATE floor_docs
SET status = 3, attempts = 0, iterations = iterations + 1, last_iteration = now(),
    next_iteration = '2970-01-01 00:00:00+00'
WHERE subject = :subject AND status = 2;
