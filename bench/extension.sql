-- The extension: fetchq's SQL API, with its background workers running.
-- Sections as in floor.sql (split by bench/driver.py).

-- @setup
CREATE EXTENSION fetchq;
SELECT * FROM fetchq.queue_create('bq');

-- @reset
-- The backlog goes straight into the queue's table, as in floor.sql; the
-- counters are then recomputed from it (untimed).
TRUNCATE fetchq_data.bq__docs;
INSERT INTO fetchq_data.bq__docs (subject, version, priority, status, next_iteration, payload,
                                  created_at)
SELECT 'b' || g, 0, 0, 1, now() - interval '1 hour' + g * interval '1 millisecond',
       '{"bench": 1}', now()
FROM generate_series(1, :backlog) AS g;
SELECT 1 FROM fetchq.metric_reset('bq');
VACUUM ANALYZE fetchq_data.bq__docs;
VACUUM ANALYZE fetchq.metrics;

-- @counts
SELECT count(*) FILTER (WHERE status = 1), count(*) FILTER (WHERE status = 2),
       count(*) FILTER (WHERE status = 3), count(*)
FROM fetchq_data.bq__docs;

-- @push_1
\set s random(1, 9000000000000000000)
SELECT fetchq.doc_push('bq', :s, '{"bench": 1}'::jsonb);

-- @push_100
\set s random(1, 9000000000000000000)
SELECT fetchq.doc_push_many('bq', ARRAY(SELECT :s || '_' || g FROM generate_series(1, 100) AS g)::varchar[],
                            array_fill('{"bench": 1}'::jsonb, ARRAY[100]));

-- @pick_1
SELECT subject, payload FROM fetchq.doc_pick('bq', 0, 1, '5m') \gset
SELECT fetchq.doc_complete('bq', :subject);

-- @pick_100
SELECT array_agg(subject) AS subjects FROM fetchq.doc_pick('bq', 0, 100, '5m') \gset
SELECT fetchq.doc_complete_many('bq', :subjects::varchar[]);
