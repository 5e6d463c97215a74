-- The reference: the original Fetchq 4 (PL/pgSQL), from the npm package
-- fetchq@4.1.1, in its own database. Its maintenance (mnt_run_all,
-- metric_log_pack) only folds counters: it runs between timed runs, untimed.
-- Fetchq 4 has no doc_push_many nor doc_complete_many: push 100 uses its bulk
-- doc_push(queue, version, next_iteration, data), complete 100 calls
-- doc_complete 100 times in one statement.
-- Sections as in floor.sql (split by bench/driver.py). The driver installs
-- the reference script (uuid-ossp, client.init.sql, fetchq.init()) before
-- @setup.

-- @setup
SELECT * FROM fetchq.queue_create('bq');

-- @reset
TRUNCATE fetchq_data.bq__docs;
INSERT INTO fetchq_data.bq__docs (subject, version, priority, status, next_iteration, payload,
                                  created_at)
SELECT 'b' || g, 0, 0, 1, now() - interval '1 hour' + g * interval '1 millisecond',
       '{"bench": 1}', now()
FROM generate_series(1, :backlog) AS g;
TRUNCATE fetchq.metrics_writes;
SELECT 1 FROM fetchq.metric_reset('bq');
VACUUM ANALYZE fetchq_data.bq__docs;
VACUUM ANALYZE fetchq.metrics;
VACUUM ANALYZE fetchq.metrics_writes;

-- @counts
SELECT count(*) FILTER (WHERE status = 1), count(*) FILTER (WHERE status = 2),
       count(*) FILTER (WHERE status = 3), count(*)
FROM fetchq_data.bq__docs;

-- @maintain
-- Fetchq 4's counters are a log of writes until a pack folds them (untimed).
SELECT 1 FROM fetchq.metric_log_pack();

-- @push_1
\set s random(1, 9000000000000000000)
SELECT fetchq.doc_push('bq', :s, '{"bench": 1}'::jsonb);

-- @push_100
\set s random(1, 9000000000000000000)
SELECT fetchq.doc_push('bq', 0, now(),
    (SELECT string_agg(format('(%L, 0, %L, {DATA})', :s || '_' || g, '{"bench": 1}'), ', ')
     FROM generate_series(1, 100) AS g));

-- @pick_1
SELECT subject, payload FROM fetchq.doc_pick('bq', 0, 1, '5m') \gset
SELECT fetchq.doc_complete('bq', :subject);

-- @pick_100
SELECT array_agg(subject) AS subjects FROM fetchq.doc_pick('bq', 0, 100, '5m') \gset
SELECT count(fetchq.doc_complete('bq', s)) FROM unnest(:subjects::varchar[]) AS s;
