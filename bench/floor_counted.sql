-- extends: floor
-- The floor with counters: the floor's document work plus what the extension
-- adds to every transaction, the queue's counters kept exactly, written by
-- hand: in the same statement, one row per (queue, slot) with a column per
-- counter, the client's slot (:client_id % 64) as a backend's slot. What
-- PostgreSQL allows for the work the extension does.
--
-- driver.py reads floor.sql first: "setup" and "reset" below run after the
-- floor's, the other sections replace the floor's.

-- @setup
CREATE TABLE floor_counters (
    queue VARCHAR(40) NOT NULL, slot SMALLINT NOT NULL,
    cnt BIGINT, pln BIGINT, pnd BIGINT, act BIGINT, cpl BIGINT, kll BIGINT, ent BIGINT,
    drp BIGINT, pkd BIGINT, prc BIGINT, res BIGINT, rej BIGINT, orp BIGINT, err BIGINT,
    v0 BIGINT, updated_at TIMESTAMPTZ, PRIMARY KEY (queue, slot)
) WITH (fillfactor = 10);

-- @reset
TRUNCATE floor_counters;
INSERT INTO floor_counters (queue, slot, cnt, pln, pnd, act, cpl, ent, pkd, prc, v0, updated_at)
SELECT 'bq', s, 0, 0, 0, 0, 0, 0, 0, 0, 0, now() FROM generate_series(0, 63) AS s;
VACUUM ANALYZE floor_counters;

-- @push_1
\set s random(1, 9000000000000000000)
\set slot :client_id % 64
WITH d AS (
    INSERT INTO floor_docs (subject, version, priority, status, next_iteration, payload, created_at)
    VALUES (:s, 0, 0, 1, now(), '{"bench": 1}', now())
    ON CONFLICT (subject) DO NOTHING RETURNING 1)
UPDATE floor_counters
SET cnt = cnt + k.n, pnd = pnd + k.n, ent = ent + k.n, v0 = v0 + k.n, updated_at = now()
FROM (SELECT count(*) AS n FROM d) AS k
WHERE queue = 'bq' AND slot = :slot;

-- @push_100
\set s random(1, 9000000000000000000)
\set slot :client_id % 64
WITH d AS (
    INSERT INTO floor_docs (subject, version, priority, status, next_iteration, payload, created_at)
    SELECT :s || '_' || g, 0, 0, 1, now(), '{"bench": 1}', now()
    FROM generate_series(1, 100) AS g
    ON CONFLICT (subject) DO NOTHING RETURNING 1)
UPDATE floor_counters
SET cnt = cnt + k.n, pnd = pnd + k.n, ent = ent + k.n, v0 = v0 + k.n, updated_at = now()
FROM (SELECT count(*) AS n FROM d) AS k
WHERE queue = 'bq' AND slot = :slot;

-- @pick_1
\set slot :client_id % 64
WITH picked AS (
    UPDATE floor_docs AS d
    SET status = 2, next_iteration = now() + interval '5 minutes', attempts = d.attempts + 1
    WHERE d.subject = (
        SELECT subject FROM floor_docs
        WHERE status = 1 AND lock_upgrade IS NULL AND version = 0 AND next_iteration <= now()
        ORDER BY priority DESC, next_iteration, attempts
        LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING d.subject, d.payload),
counted AS (
    UPDATE floor_counters
    SET pnd = pnd - k.n, act = act + k.n, pkd = pkd + k.n, updated_at = now()
    FROM (SELECT count(*) AS n FROM picked) AS k
    WHERE queue = 'bq' AND slot = :slot)
SELECT subject, payload FROM picked \gset
WITH done AS (
    UPDATE floor_docs
    SET status = 3, attempts = 0, iterations = iterations + 1, last_iteration = now(),
        next_iteration = '2970-01-01 00:00:00+00'
    WHERE subject = :subject AND status = 2 RETURNING 1)
UPDATE floor_counters
SET act = act - k.n, cpl = cpl + k.n, prc = prc + k.n, updated_at = now()
FROM (SELECT count(*) AS n FROM done) AS k
WHERE queue = 'bq' AND slot = :slot;

-- @pick_100
\set slot :client_id % 64
WITH picked AS (
    UPDATE floor_docs AS d
    SET status = 2, next_iteration = now() + interval '5 minutes', attempts = d.attempts + 1
    WHERE d.subject = ANY (ARRAY(
        SELECT subject FROM floor_docs
        WHERE status = 1 AND lock_upgrade IS NULL AND version = 0 AND next_iteration <= now()
        ORDER BY priority DESC, next_iteration, attempts
        LIMIT 100 FOR UPDATE SKIP LOCKED))
    RETURNING d.subject, d.payload),
counted AS (
    UPDATE floor_counters
    SET pnd = pnd - k.n, act = act + k.n, pkd = pkd + k.n, updated_at = now()
    FROM (SELECT count(*) AS n FROM picked) AS k
    WHERE queue = 'bq' AND slot = :slot)
SELECT array_agg(subject) AS subjects FROM picked \gset
WITH done AS (
    UPDATE floor_docs
    SET status = 3, attempts = 0, iterations = iterations + 1, last_iteration = now(),
        next_iteration = '2970-01-01 00:00:00+00'
    WHERE subject = ANY (:subjects::varchar[]) AND status = 2 RETURNING 1)
UPDATE floor_counters
SET act = act - k.n, cpl = cpl + k.n, prc = prc + k.n, updated_at = now()
FROM (SELECT count(*) AS n FROM done) AS k
WHERE queue = 'bq' AND slot = :slot;
