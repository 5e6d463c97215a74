-- Catalog tables, with the columns of Fetchq 4 (clients read and update them
-- directly) plus fetchq's own, which come last.

CREATE SCHEMA fetchq_data;

CREATE TABLE fetchq.queues (
    id SERIAL PRIMARY KEY,
    created_at TIMESTAMP WITH TIME ZONE,
    name CHARACTER VARYING(40) NOT NULL UNIQUE
        CHECK (name ~ '^[a-z0-9_]{1,40}$'),
    is_active BOOLEAN DEFAULT true,
    current_version INTEGER DEFAULT 0,
    max_attempts INTEGER DEFAULT 5,
    logs_retention VARCHAR(25) DEFAULT '24h',
    metrics_retention JSONB DEFAULT '[]',
    config JSONB DEFAULT '{}',
    -- fetchq's own columns:
    -- time-to-live given to documents pushed without an expiry (NULL: none)
    default_ttl INTERVAL,
    -- the session that created a temporary queue (see queue_create_temporary);
    -- informational: the scheduler reads fetchq.temporary_queues instead
    owner_session BIGINT,
    -- the queue that receives a copy of every document this one kills
    -- (queue_set_dead_letter; NULL: none)
    dead_letter_queue CHARACTER VARYING(40)
        CHECK (dead_letter_queue ~ '^[a-z0-9_]{1,40}$'),
    -- the retry policy (queue_set_retry_policy; retry_delay NULL: none): a
    -- rejected document or an orphan is pickable again after
    -- retry_delay * retry_factor^(attempts - 1), at most retry_max_delay,
    -- spread by +-retry_jitter
    retry_delay INTERVAL,
    retry_factor DOUBLE PRECISION,
    retry_max_delay INTERVAL,
    retry_jitter DOUBLE PRECISION,
    -- how long completed and killed documents are kept (queue_set_retention;
    -- NULL: forever): the scheduler deletes them once that long unchanged
    completed_retention INTERVAL,
    killed_retention INTERVAL,
    -- a topic keeps no documents: a push into it only routes (topic_create)
    is_topic BOOLEAN NOT NULL DEFAULT false,
    -- who set dead_letter_queue (queue_set_dead_letter, or the role that
    -- wrote it: trigger fetchq_queues_dead_letter_set_by); every copy into
    -- the dead-letter queue is checked against its rights. NULL with a
    -- dead-letter queue (set before 0.2.1): the queue's owner
    dead_letter_set_by REGROLE,
    -- how the queue's counters are written (queue_set_counters): 'exact', in
    -- each document's transaction, or 'deferred', through shared memory and
    -- folded by the scheduler (src/ops/counters/deferred.hpp)
    counters_mode TEXT NOT NULL DEFAULT 'exact'
        CHECK (counters_mode IN ('exact', 'deferred'))
);

-- Counters. Each counter is striped over up to 64 rows (slot) written by
-- different backends, so concurrent transactions do not queue behind one
-- row; metric_get* sum the stripes.
--
-- The standard counters (cnt, pln, pnd, ..., and v0, the documents pushed
-- with version 0) are columns of fetchq.counters, so a transaction writes
-- one row per queue it touched. NULL: never written in that stripe.
CREATE TABLE fetchq.counters (
    queue CHARACTER VARYING(40) NOT NULL,
    slot SMALLINT NOT NULL,
    cnt BIGINT, pln BIGINT, pnd BIGINT, act BIGINT, cpl BIGINT, kll BIGINT, ent BIGINT,
    drp BIGINT, pkd BIGINT, prc BIGINT, res BIGINT, rej BIGINT, orp BIGINT, err BIGINT,
    v0 BIGINT,
    updated_at TIMESTAMP WITH TIME ZONE,
    PRIMARY KEY (queue, slot)
-- Every transaction updates one of these rows in place: few rows per page
-- keeps the slots of concurrent backends on different pages, and leaves room
-- for HOT updates.
) WITH (fillfactor = 10);

-- Counters with other names (metric_set, metric_increment, ...), one row per
-- (queue, metric, slot).
CREATE TABLE fetchq.custom_counters (
    id SERIAL PRIMARY KEY,
    queue CHARACTER VARYING(40) NOT NULL,
    metric CHARACTER VARYING(40) NOT NULL,
    value BIGINT NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE,
    slot SMALLINT NOT NULL DEFAULT 0,
    UNIQUE (queue, metric, slot)
) WITH (fillfactor = 10);

-- The view fetchq.metrics, every counter row by row, is made in
-- 08_deferred_counters.sql, once the function it reads from exists.

-- The write log of metric_log_*; folded into fetchq.metrics by metric_log_pack.
CREATE TABLE fetchq.metrics_writes (
    id UUID DEFAULT pg_catalog.gen_random_uuid(),
    created_at TIMESTAMP WITH TIME ZONE,
    queue CHARACTER VARYING(40) NOT NULL,
    metric CHARACTER VARYING(40) NOT NULL,
    increment BIGINT,
    reset BIGINT
);
CREATE INDEX __fetchq_metrics_writes_reset_idx ON fetchq.metrics_writes (queue, metric)
    WHERE reset IS NOT NULL;
CREATE INDEX __fetchq_metrics_writes_increment_idx ON fetchq.metrics_writes (queue, metric)
    WHERE increment IS NOT NULL;

-- Maintenance jobs, as in Fetchq 4 (mnt_job_run executes them).
CREATE TABLE fetchq.jobs (
    id SERIAL PRIMARY KEY,
    task CHARACTER VARYING(40) NOT NULL,
    queue CHARACTER VARYING(40) NOT NULL,
    attempts INTEGER DEFAULT 0,
    iterations BIGINT DEFAULT 0,
    next_iteration TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE,
    settings JSONB,
    payload JSONB
);
CREATE UNIQUE INDEX __fetchq_jobs_task_queue_idx ON fetchq.jobs (task, queue);
CREATE INDEX __fetchq_jobs_task_idx ON fetchq.jobs (task, next_iteration, iterations)
    WHERE iterations < 5;

INSERT INTO fetchq.jobs (task, queue, next_iteration, last_iteration, attempts, iterations,
                         settings, payload)
VALUES ('lgp', '*', pg_catalog.now(), NULL, 0, 0, '{"delay":"3s", "duration":"5m"}', '{}');

-- pg_dump keeps the rows of the catalog with the extension.
SELECT pg_catalog.pg_extension_config_dump('fetchq.queues', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.queues_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.counters', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.custom_counters', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.custom_counters_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.metrics_writes', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.jobs', 'WHERE queue <> ''*''');
SELECT pg_catalog.pg_extension_config_dump('fetchq.jobs_id_seq', '');
