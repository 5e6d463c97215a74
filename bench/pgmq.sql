-- pgmq, from the SQL file of a snapshot that whoever runs the benchmark
-- points to (PGMQ_SQL=/path/to/pgmq-extension/sql/pgmq.sql bench/run.sh):
-- bench/driver.py loads that file into this system's database before the
-- setup below. Nothing of pgmq is in this repository.
--
-- Its operations next to fetchq's: send / send_batch for push 1 / push 100,
-- read (a visibility timeout of 300 s, as fetchq's pick lease of 5 minutes)
-- for pick, archive for complete: like a completed document, an archived
-- message stays (in the archive table), where delete would drop it.
-- Sections as in floor.sql (split by bench/driver.py).

-- @setup
SELECT pgmq.create('bq');

-- @reset
-- :backlog visible messages, as the other systems' pending documents.
TRUNCATE pgmq.q_bq, pgmq.a_bq;
INSERT INTO pgmq.q_bq (vt, message, enqueued_at)
SELECT now() - interval '1 hour' + g * interval '1 millisecond', '{"bench": 1}', now()
FROM generate_series(1, :backlog) AS g;
VACUUM ANALYZE pgmq.q_bq;
VACUUM ANALYZE pgmq.a_bq;

-- @counts
-- pending (visible), active (read, invisible), completed (archived), total.
SELECT (SELECT count(*) FROM pgmq.q_bq WHERE vt <= clock_timestamp()),
       (SELECT count(*) FROM pgmq.q_bq WHERE vt > clock_timestamp()),
       (SELECT count(*) FROM pgmq.a_bq),
       (SELECT count(*) FROM pgmq.q_bq) + (SELECT count(*) FROM pgmq.a_bq);

-- @push_1
SELECT pgmq.send('bq', '{"bench": 1}'::jsonb);

-- @push_100
SELECT count(*) FROM pgmq.send_batch('bq', array_fill('{"bench": 1}'::jsonb, ARRAY[100]));

-- @pick_1
SELECT msg_id FROM pgmq.read('bq', 300, 1) \gset
SELECT pgmq.archive('bq', :msg_id::bigint);

-- @pick_100
SELECT array_agg(msg_id) AS msg_ids FROM pgmq.read('bq', 300, 100) \gset
SELECT count(*) FROM pgmq.archive('bq', :msg_ids::bigint[]);
