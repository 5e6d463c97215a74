-- Queue administration: indexes, settings, retention, top, status, truncate.
-- Timestamps are never printed; UTC keeps date_trunc buckets free of DST.
SET timezone = 'UTC';

-- queue_truncate recounts through fetchq.metric_reset (the metrics family).
-- Until that exists, a no-op stand-in lets this file run on its own.
SELECT pg_catalog.to_regprocedure('fetchq.metric_reset(character varying)') IS NULL
    AS queue_admin_stub \gset
\if :queue_admin_stub
CREATE FUNCTION fetchq.metric_reset(queue VARCHAR, OUT cnt INTEGER, OUT pln INTEGER,
    OUT pnd INTEGER, OUT act INTEGER, OUT cpl INTEGER, OUT kll INTEGER)
LANGUAGE sql AS $$ SELECT 0, 0, 0, 0, 0, 0 $$;
\endif

SELECT was_created FROM fetchq.queue_create('queue_admin_a');
SELECT was_created FROM fetchq.queue_create('queue_admin_b');

CREATE VIEW queue_admin_indexes AS
SELECT tablename, indexname FROM pg_indexes
WHERE schemaname = 'fetchq_data' AND tablename LIKE 'queue\_admin\_a\_\_%'
ORDER BY tablename, indexname;

--
-- queue_create_indexes / queue_drop_indexes
--
SELECT * FROM queue_admin_indexes;
SELECT * FROM fetchq.queue_drop_indexes('queue_admin_a');
SELECT * FROM queue_admin_indexes;
-- dropping again finds nothing to drop, quietly
SELECT * FROM fetchq.queue_drop_indexes('queue_admin_a');
SELECT * FROM fetchq.queue_create_indexes('queue_admin_a');
SELECT * FROM queue_admin_indexes;
-- existing indexes are left alone, without notices
SELECT * FROM fetchq.queue_create_indexes('queue_admin_a');
SELECT * FROM fetchq.queue_drop_indexes('queue_admin_a');
-- version and attempts are accepted; our indexes serve every value
SELECT * FROM fetchq.queue_create_indexes('queue_admin_a', 7, 2);
SELECT * FROM queue_admin_indexes;
SELECT * FROM fetchq.queue_create_indexes('queue_admin_nope');
SELECT * FROM fetchq.queue_create_indexes('queue_admin_nope', 0, 5);
SELECT * FROM fetchq.queue_create_indexes('Queue_Admin');
SELECT * FROM fetchq.queue_create_indexes(NULL);
SELECT * FROM fetchq.queue_create_indexes('queue_admin_a', NULL, 5);
SELECT * FROM fetchq.queue_create_indexes('queue_admin_a', 0, NULL);
SELECT * FROM fetchq.queue_drop_indexes('queue_admin_nope');
SELECT * FROM fetchq.queue_drop_indexes('queue admin');
SELECT * FROM fetchq.queue_drop_indexes(NULL);

--
-- queue_set_max_attempts / queue_set_current_version / queue_drop_version
--
SELECT * FROM fetchq.queue_set_max_attempts('queue_admin_a', 3);
SELECT * FROM fetchq.queue_set_current_version('queue_admin_a', 2);
SELECT name, current_version, max_attempts FROM fetchq.queues
WHERE name LIKE 'queue\_admin\_%' ORDER BY name;
-- the indexes are still all there
SELECT count(*) FROM queue_admin_indexes;
SELECT * FROM fetchq.queue_set_max_attempts('queue_admin_a', 1);
SELECT * FROM fetchq.queue_set_max_attempts('queue_admin_a', 0);
SELECT * FROM fetchq.queue_set_max_attempts('queue_admin_a', -5);
SELECT * FROM fetchq.queue_set_max_attempts('queue_admin_a', NULL);
SELECT * FROM fetchq.queue_set_max_attempts('queue_admin_nope', 3);
SELECT * FROM fetchq.queue_set_max_attempts('queue_admin_é', 3);
SELECT * FROM fetchq.queue_set_max_attempts(NULL, 3);
-- versions are labels: negative ones are fine
SELECT * FROM fetchq.queue_set_current_version('queue_admin_b', -1);
SELECT * FROM fetchq.queue_set_current_version('queue_admin_b', NULL);
SELECT * FROM fetchq.queue_set_current_version('queue_admin_nope', 1);
SELECT * FROM fetchq.queue_set_current_version('', 1);
SELECT name, current_version, max_attempts FROM fetchq.queues
WHERE name LIKE 'queue\_admin\_%' ORDER BY name;
SELECT * FROM fetchq.queue_drop_version('queue_admin_a', 1);
SELECT * FROM fetchq.queue_drop_version('queue_admin_b', 0);
SELECT * FROM fetchq.queue_drop_version('queue_admin_a', 2);
SELECT * FROM fetchq.queue_drop_version('queue_admin_b', -1);
SELECT * FROM fetchq.queue_drop_version('queue_admin_a', NULL);
SELECT * FROM fetchq.queue_drop_version('queue_admin_nope', 1);
SELECT * FROM fetchq.queue_drop_version(NULL, 1);
SELECT * FROM fetchq.queue_set_current_version('queue_admin_a', 0);

--
-- queue_set_logs_retention / queue_set_metrics_retention
--
SELECT * FROM fetchq.queue_set_logs_retention('queue_admin_a', '7 days');
SELECT * FROM fetchq.queue_set_logs_retention('queue_admin_b', '36h');
SELECT name, logs_retention FROM fetchq.queues WHERE name LIKE 'queue\_admin\_%' ORDER BY name;
SELECT * FROM fetchq.queue_set_logs_retention('queue_admin_a', 'forever');
SELECT * FROM fetchq.queue_set_logs_retention('queue_admin_a', '-1h');
SELECT * FROM fetchq.queue_set_logs_retention('queue_admin_a', '1 day 2 hours 3 minutes 4 seconds');
SELECT * FROM fetchq.queue_set_logs_retention('queue_admin_a', '');
SELECT * FROM fetchq.queue_set_logs_retention('queue_admin_a', NULL);
SELECT * FROM fetchq.queue_set_logs_retention('queue_admin_nope', '1h');
SELECT * FROM fetchq.queue_set_logs_retention('a-b', '1h');
SELECT * FROM fetchq.queue_set_logs_retention(NULL, '1h');
SELECT name, logs_retention FROM fetchq.queues WHERE name LIKE 'queue\_admin\_%' ORDER BY name;

SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a',
    '[{"from": "30 days", "to": "1d", "retain": "hour"}, {"from": "1y", "to": "30d", "retain": "Day"}]');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_b', '[]');
SELECT name, metrics_retention FROM fetchq.queues WHERE name LIKE 'queue\_admin\_%' ORDER BY name;
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', '[{"from": "1d", "to": "0s"');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', '{"from": "1d", "to": "0s", "retain": "hour"}');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', 'null');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', '["1d"]');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', '[{"from": "1d", "to": "0s"}]');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', '[{"from": "1d", "to": 0, "retain": "hour"}]');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', '[{"from": "1d", "to": "0s", "retain": null}]');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', '[{"from": "1d", "to": "0s", "retain": "hour", "keep": "all", "Retain": "x"}]');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', '[{"from": "1d", "to": "0s", "retain": "hour"}, {"from": "soon", "to": "0s", "retain": "hour"}]');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', '[{"from": "1d", "to": "-1d", "retain": "hour"}]');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', '[{"from": "1d", "to": "0s", "retain": "fortnight"}]');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', '[{"from": "1d", "to": "0s", "retain": "it''s \\ é"}]');
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_a', NULL);
SELECT * FROM fetchq.queue_set_metrics_retention('queue_admin_nope', '[]');
SELECT * FROM fetchq.queue_set_metrics_retention(NULL, '[]');
SELECT name, metrics_retention FROM fetchq.queues WHERE name LIKE 'queue\_admin\_%' ORDER BY name;

--
-- queue_status
--
SELECT name, is_active FROM fetchq.queue_status() WHERE name LIKE 'queue\_admin\_%';
SELECT s.name, s.is_active, s.id = q.id AS same_id
FROM fetchq.queue_status('queue_admin_b') s JOIN fetchq.queues q ON q.name = s.name;
UPDATE fetchq.queues SET is_active = false WHERE name = 'queue_admin_b';
SELECT name, is_active FROM fetchq.queue_status('queue_admin_b');
SELECT * FROM fetchq.queue_status('queue_admin_nope');
SELECT * FROM fetchq.queue_status('queue_admin_A');
SELECT * FROM fetchq.queue_status(NULL);

--
-- queue_top
--
SELECT * FROM fetchq.doc_push('queue_admin_a', 'plain', 0, 0, '2000-01-01', '{"n": 1}');
SELECT * FROM fetchq.doc_push('queue_admin_a', 'it''s "quoted"', 0, 5, '2000-01-01', '{"s": "it''s"}');
SELECT * FROM fetchq.doc_push('queue_admin_a', 'back\slash', 0, 5, '2000-01-02', '{"s": "a\\b"}');
SELECT * FROM fetchq.doc_push('queue_admin_a', 'ünïcødé ✓', 0, 5, '2000-01-01', '{"s": "日本語"}');
SELECT * FROM fetchq.doc_push('queue_admin_a', 'later', 0, 9, '2999-01-01', NULL);
SELECT * FROM fetchq.doc_push('queue_admin_a', 'other version', 1, 0, '2000-01-01', '{}');
SELECT subject, payload, version, priority, attempts, iterations
FROM fetchq.queue_top('queue_admin_a', 0, 10, 0);
SELECT subject FROM fetchq.queue_top('queue_admin_a', 0, 2, 0);
SELECT subject FROM fetchq.queue_top('queue_admin_a', 0, 2, 2);
SELECT subject FROM fetchq.queue_top('queue_admin_a', 0, 2, 4);
SELECT subject FROM fetchq.queue_top('queue_admin_a', 0, 0, 0);
SELECT subject, version FROM fetchq.queue_top('queue_admin_a', 1, 10, 0);
SELECT count(*) FROM fetchq.queue_top('queue_admin_a', 2, 10, 0);
SELECT count(*) FROM fetchq.queue_top('queue_admin_b', 0, 10, 0);
SELECT * FROM fetchq.queue_top('queue_admin_a', 0, -1, 0);
SELECT * FROM fetchq.queue_top('queue_admin_a', 0, 10, -1);
SELECT * FROM fetchq.queue_top('queue_admin_a', NULL, 10, 0);
SELECT * FROM fetchq.queue_top('queue_admin_a', 0, NULL, 0);
SELECT * FROM fetchq.queue_top('queue_admin_a', 0, 10, NULL);
SELECT * FROM fetchq.queue_top('queue_admin_nope', 0, 10, 0);
SELECT * FROM fetchq.queue_top('queue_admin_a;', 0, 10, 0);

--
-- queue_drop_logs
--
INSERT INTO fetchq_data.queue_admin_a__logs (created_at, subject, message, details)
VALUES (now() - interval '10 days', 'it''s', 'ten days', '{"q": "it''s \\ ✓"}'),
       (now() - interval '3 days', 'back\slash', 'three days', NULL),
       (now() - interval '2 hours', 'ünï', 'two hours ✓', NULL),
       (now() - interval '1 minute', 'plain', 'one minute', NULL);
-- the queue's logs_retention (7 days)
SELECT * FROM fetchq.queue_drop_logs('queue_admin_a');
SELECT message FROM fetchq_data.queue_admin_a__logs ORDER BY created_at;
SELECT * FROM fetchq.queue_drop_logs('queue_admin_a', '1 day');
SELECT message FROM fetchq_data.queue_admin_a__logs ORDER BY created_at;
SELECT * FROM fetchq.queue_drop_logs('queue_admin_a', now() - interval '1 hour');
SELECT message FROM fetchq_data.queue_admin_a__logs ORDER BY created_at;
SELECT * FROM fetchq.queue_drop_logs('queue_admin_a', '1h');
-- no logs_retention: 24h
UPDATE fetchq.queues SET logs_retention = NULL WHERE name = 'queue_admin_b';
INSERT INTO fetchq_data.queue_admin_b__logs (created_at, subject, message)
VALUES (now() - interval '25 hours', 's', 'old'), (now() - interval '23 hours', 's', 'young');
SELECT * FROM fetchq.queue_drop_logs('queue_admin_b');
SELECT message FROM fetchq_data.queue_admin_b__logs;
-- a bad value written straight into the catalog
UPDATE fetchq.queues SET logs_retention = 'a while' WHERE name = 'queue_admin_b';
SELECT * FROM fetchq.queue_drop_logs('queue_admin_b');
SELECT * FROM fetchq.queue_drop_logs('queue_admin_a', 'later');
SELECT * FROM fetchq.queue_drop_logs('queue_admin_a', '-2 days');
SELECT * FROM fetchq.queue_drop_logs('queue_admin_a', NULL::VARCHAR);
SELECT * FROM fetchq.queue_drop_logs('queue_admin_a', NULL::TIMESTAMPTZ);
SELECT * FROM fetchq.queue_drop_logs('queue_admin_nope');
SELECT * FROM fetchq.queue_drop_logs('queue_admin_nope', '1h');
SELECT * FROM fetchq.queue_drop_logs('queue_admin_nope', now());
SELECT * FROM fetchq.queue_drop_logs('x"y', '1h');
SELECT * FROM fetchq.queue_drop_logs(NULL);

--
-- queue_drop_metrics: keep the latest row per metric and retain unit
--
-- minutes since midnight three days ago; NULL for recent rows
CREATE TEMP VIEW queue_admin_metrics AS
SELECT metric, CASE WHEN created_at < now() - interval '1 day' THEN
       (extract(epoch FROM created_at - (date_trunc('day', now()) - interval '3 days')) / 60)::integer
       END AS minute, value
FROM fetchq_data.queue_admin_a__metrics ORDER BY metric, minute;
-- three days ago: every 10 minutes from midnight to 02:30, for two metrics
INSERT INTO fetchq_data.queue_admin_a__metrics (created_at, metric, value)
SELECT date_trunc('day', now()) - interval '3 days' + i * interval '1 minute', m, i
FROM generate_series(0, 150, 10) AS i, unnest(ARRAY['cnt', 'pnd']) AS m;
-- and one recent row, outside every window
INSERT INTO fetchq_data.queue_admin_a__metrics (created_at, metric, value)
VALUES (now() - interval '1 hour', 'cnt', -1);
SELECT count(*) FROM fetchq_data.queue_admin_a__metrics;
-- the queue's metrics_retention: hourly values between 30 days and 1 day ago
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_a');
SELECT * FROM queue_admin_metrics;
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_a');
-- "from" and "to" may come in either order
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_a',
    '[{"from": "2 days", "to": "4 days", "retain": "day"}]');
SELECT * FROM queue_admin_metrics;
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_a', '[]');
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_b');
UPDATE fetchq.queues SET metrics_retention = NULL WHERE name = 'queue_admin_b';
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_b');
UPDATE fetchq.queues SET metrics_retention = '[{"from": "1d"}]' WHERE name = 'queue_admin_b';
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_b');
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_a', '{"from": "2 days"}');
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_a', '[{"from": "2 days", "to": "x", "retain": "day"}]');
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_a', '[{"from": "2 days", "to": "1d", "retain": "eon"}]');
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_a', NULL);
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_nope');
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_nope', '[]');
SELECT * FROM fetchq.queue_drop_metrics('queue_admin_ä', '[]');
SELECT * FROM fetchq.queue_drop_metrics(NULL);

--
-- utils_ts_retain: any table, named like ::regclass, column by its exact name
--
CREATE TABLE "queue_admin ""odd"" ts" (id SERIAL, "at time" TIMESTAMPTZ, v INTEGER);
INSERT INTO "queue_admin ""odd"" ts" ("at time", v)
SELECT '2024-01-01 00:00+00'::timestamptz + i * interval '1 hour', i FROM generate_series(0, 71) AS i;
SELECT * FROM fetchq.utils_ts_retain('"queue_admin ""odd"" ts"', 'at time', 'day',
    '2024-01-01 00:00+00', '2024-01-02 23:59+00');
SELECT v FROM "queue_admin ""odd"" ts" WHERE v < 48 ORDER BY v;
SELECT * FROM fetchq.utils_ts_retain('public."queue_admin ""odd"" ts"', 'at time', 'day',
    '2024-01-03 12:00+00', '2024-01-03 00:00+00');
SELECT count(*) FROM "queue_admin ""odd"" ts";
SELECT * FROM fetchq.utils_ts_retain('queue_admin_nope', 'at time', 'day', now(), now());
SELECT * FROM fetchq.utils_ts_retain('"queue_admin ""odd"" ts', 'at time', 'day', now(), now());
SELECT * FROM fetchq.utils_ts_retain('x; DROP TABLE y', 'at time', 'day', now(), now());
SELECT * FROM fetchq.utils_ts_retain('"queue_admin ""odd"" ts"', 'At Time', 'day', now(), now());
SELECT * FROM fetchq.utils_ts_retain('"queue_admin ""odd"" ts"', '"at time"', 'day', now(), now());
SELECT * FROM fetchq.utils_ts_retain('"queue_admin ""odd"" ts"', 'v', 'day', now(), now());
SELECT * FROM fetchq.utils_ts_retain('"queue_admin ""odd"" ts"', 'at time', 'days''', now(), now());
SELECT * FROM fetchq.utils_ts_retain('queue_admin_indexes', 'at time', 'day', now(), now());
SELECT * FROM fetchq.utils_ts_retain(NULL, 'at time', 'day', now(), now());
SELECT * FROM fetchq.utils_ts_retain('"queue_admin ""odd"" ts"', NULL, 'day', now(), now());
SELECT * FROM fetchq.utils_ts_retain('"queue_admin ""odd"" ts"', 'at time', NULL, now(), now());
SELECT * FROM fetchq.utils_ts_retain('"queue_admin ""odd"" ts"', 'at time', 'day', NULL, now());
SELECT * FROM fetchq.utils_ts_retain('"queue_admin ""odd"" ts"', 'at time', 'day', now(), NULL);
DROP TABLE "queue_admin ""odd"" ts";

--
-- queue_truncate
--
CREATE VIEW queue_admin_rows AS
SELECT 'a' AS queue, (SELECT count(*) FROM fetchq_data.queue_admin_a__docs) AS docs,
       (SELECT count(*) FROM fetchq_data.queue_admin_a__logs) AS logs,
       (SELECT count(*) FROM fetchq_data.queue_admin_a__metrics) AS metrics
UNION ALL
SELECT 'b', (SELECT count(*) FROM fetchq_data.queue_admin_b__docs),
       (SELECT count(*) FROM fetchq_data.queue_admin_b__logs),
       (SELECT count(*) FROM fetchq_data.queue_admin_b__metrics);
SELECT * FROM fetchq.doc_push('queue_admin_b', 'b1', 0, 0, '2000-01-01', '{}');
SELECT * FROM queue_admin_rows;
UPDATE fetchq.jobs SET attempts = 2, iterations = 7, last_iteration = now()
WHERE queue = 'queue_admin_a';
SELECT * FROM fetchq.queue_truncate('queue_admin_a');
SELECT * FROM queue_admin_rows;
SELECT task, attempts, iterations, last_iteration IS NULL AS never_run FROM fetchq.jobs
WHERE queue = 'queue_admin_a' ORDER BY task;
SELECT * FROM fetchq.queue_truncate('queue_admin_a', true);
SELECT * FROM queue_admin_rows;
SELECT task, attempts, iterations, last_iteration IS NULL AS never_run FROM fetchq.jobs
WHERE queue = 'queue_admin_a' ORDER BY task;
-- logs and metrics start again from id 1
INSERT INTO fetchq_data.queue_admin_a__logs (subject, message) VALUES ('s', 'm') RETURNING id;
SELECT * FROM fetchq.queue_truncate('queue_admin_a', false);
SELECT * FROM queue_admin_rows;
-- counts made earlier in the same transaction are forgotten, not flushed:
-- the counter ends as after a plain truncate
SELECT COALESCE(sum(value), 0) AS truncated_cnt FROM fetchq.metrics
WHERE queue = 'queue_admin_a' AND metric = 'cnt' \gset
BEGIN;
SELECT * FROM fetchq.doc_push('queue_admin_a', 'gone', 0, 0, '2000-01-01', '{}');
SELECT * FROM fetchq.queue_truncate('queue_admin_a');
COMMIT;
SELECT COALESCE(sum(value), 0) = :truncated_cnt AS forgotten FROM fetchq.metrics
WHERE queue = 'queue_admin_a' AND metric = 'cnt';
SELECT * FROM fetchq.queue_truncate('queue_admin_a', NULL);
SELECT * FROM fetchq.queue_truncate('queue_admin_nope');
SELECT * FROM fetchq.queue_truncate('queue_admin_nope', true);
SELECT * FROM fetchq.queue_truncate('QUEUE');
SELECT * FROM fetchq.queue_truncate(NULL);

--
-- queue_truncate_all: every queue of the database, so rolled back here
--
SELECT * FROM fetchq.doc_push('queue_admin_a', 'a1', 0, 0, '2000-01-01', '{}');
INSERT INTO fetchq_data.queue_admin_b__logs (subject, message) VALUES ('s', 'm');
SELECT * FROM queue_admin_rows;
BEGIN;
SELECT * FROM fetchq.queue_truncate_all();
SELECT * FROM queue_admin_rows;
ROLLBACK;
BEGIN;
SELECT * FROM fetchq.queue_truncate_all(true);
SELECT * FROM queue_admin_rows;
SELECT count(*) FROM fetchq.metrics_writes;
ROLLBACK;
SELECT * FROM queue_admin_rows;
SELECT * FROM fetchq.queue_truncate_all(NULL);

--
-- clean up
--
DROP VIEW queue_admin_rows;
DROP VIEW queue_admin_indexes;
DROP VIEW queue_admin_metrics;
SELECT was_dropped FROM fetchq.queue_drop('queue_admin_a');
SELECT was_dropped FROM fetchq.queue_drop('queue_admin_b');
\if :queue_admin_stub
DROP FUNCTION fetchq.metric_reset(VARCHAR);
\endif
