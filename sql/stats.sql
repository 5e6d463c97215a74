-- fetchq.stats (a row per queue the role may read) and fetchq.stats(queue):
-- documents by status, what is ready to pick and since when, the first
-- planned moment, and the counters. The regress database runs no scheduler:
-- nothing moves but what the test moves.
SET client_min_messages = warning;
SELECT was_created FROM fetchq.queue_create('stats_docs');
SELECT was_created FROM fetchq.queue_create('stats_empty');

-- An empty queue: every count 0 (not NULL), no planned moment.
\x on
SELECT * FROM fetchq.stats('stats_empty');
\x off

-- Documents in every status. d1 (oldest) to d6 are picked; then d1 and d2
-- complete, d3 is killed, d4 dropped, d5 rejected (pending again), d6 stays
-- active; d7, d8 and d9 stay pending; p1 and p2 are planned.
SELECT fetchq.doc_push('stats_docs', 'd' || i, 0, 0, now() - (10 - i) * interval '1 minute', '{}')
FROM generate_series(1, 9) AS i;
SELECT fetchq.doc_push('stats_docs', 'p1', 0, 0, now() + interval '1 hour', '{}');
SELECT fetchq.doc_push('stats_docs', 'p2', 0, 0, now() + interval '2 hours', '{}');
SELECT subject FROM fetchq.doc_pick('stats_docs', 0, 6, '5m') ORDER BY subject;
SELECT fetchq.doc_complete('stats_docs', 'd1');
SELECT fetchq.doc_complete('stats_docs', 'd2');
SELECT fetchq.doc_kill('stats_docs', 'd3');
SELECT fetchq.doc_drop('stats_docs', 'd4');
SELECT fetchq.doc_reject('stats_docs', 'd5', 'failed', '{}');
-- exp counts the documents the scheduler's expiry deleted; set by hand here.
SELECT current_value FROM fetchq.metric_increment('stats_docs', 'exp', 2);

-- Times pinned against now(), which stays put in a transaction: d5 became
-- due 90 s ago, d9 30 s ago; d7 is pending but due only in a minute, d8
-- pending but expired (neither is ready); p1 is due in an hour.
BEGIN;
UPDATE fetchq_data.stats_docs__docs SET next_iteration = now() - interval '90 seconds'
WHERE subject = 'd5';
UPDATE fetchq_data.stats_docs__docs SET next_iteration = now() - interval '30 seconds'
WHERE subject = 'd9';
UPDATE fetchq_data.stats_docs__docs SET next_iteration = now() + interval '1 minute'
WHERE subject = 'd7';
UPDATE fetchq_data.stats_docs__docs SET expires_at = now() - interval '1 second'
WHERE subject = 'd8';
UPDATE fetchq_data.stats_docs__docs SET next_iteration = now() + interval '1 hour'
WHERE subject = 'p1';
\x on
SELECT queue, planned, pending, active, completed, killed, ready, oldest_ready_age,
       next_planned_at - now() AS next_planned_in, cnt, pln, pnd, act, cpl, kll, ent, drp,
       pkd, prc, res, rej, orp, err, exp
FROM fetchq.stats('stats_docs');
\x off
-- The view: the same row, and the empty queue's.
SELECT queue, planned, pending, active, completed, killed, ready, oldest_ready_age,
       next_planned_at - now() AS next_planned_in
FROM fetchq.stats WHERE queue LIKE 'stats\_%' ORDER BY queue;
SELECT queue, cnt, pln, pnd, act, cpl, kll, ent, drp, pkd, prc, res, rej, orp, err, exp
FROM fetchq.stats WHERE queue LIKE 'stats\_%' ORDER BY queue;
-- The counts are those of metric_compute.
SELECT s.cnt = c.cnt AND s.planned = c.pln AND s.pending = c.pnd AND s.active = c.act
       AND s.completed = c.cpl AND s.killed = c.kll AS same_as_metric_compute
FROM fetchq.stats('stats_docs') AS s, fetchq.metric_compute('stats_docs') AS c;
COMMIT;

-- This transaction's own changes count at once: documents and counters.
BEGIN;
SELECT fetchq.doc_push('stats_docs', 'd10', '{}');
SELECT pending, ready, cnt, pnd, ent FROM fetchq.stats('stats_docs');
ROLLBACK;
SELECT pending, ready, cnt, pnd, ent FROM fetchq.stats('stats_docs');

-- metric_get_common and metric_get_all: 0 for counters never written, and
-- exp as the last column.
SELECT * FROM fetchq.metric_get_common('stats_empty');
SELECT * FROM fetchq.metric_get_common('stats_docs');
SELECT * FROM fetchq.metric_get_all() WHERE queue LIKE 'stats\_%' ORDER BY queue;

-- A role sees the queues whose documents it may SELECT, and no other.
CREATE ROLE fetchq_stats_reader;
GRANT USAGE ON SCHEMA fetchq, fetchq_data TO fetchq_stats_reader;
GRANT SELECT ON fetchq.stats, fetchq.queues, fetchq.metrics TO fetchq_stats_reader;
GRANT SELECT ON fetchq_data.stats_empty__docs TO fetchq_stats_reader;
SET ROLE fetchq_stats_reader;
SELECT queue, pending FROM fetchq.stats WHERE queue LIKE 'stats\_%' ORDER BY queue;
SELECT queue, pending FROM fetchq.stats('stats_empty');
SELECT queue, pending FROM fetchq.stats('stats_docs');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
REVOKE ALL ON ALL TABLES IN SCHEMA fetchq, fetchq_data FROM fetchq_stats_reader;
REVOKE ALL ON SCHEMA fetchq, fetchq_data FROM fetchq_stats_reader;
DROP ROLE fetchq_stats_reader;

-- Errors: a queue that does not exist, a bad name, NULL.
SELECT * FROM fetchq.stats('stats_missing');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM fetchq.stats('Stats');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM fetchq.stats(NULL);
\echo :LAST_ERROR_SQLSTATE

-- A dropped queue leaves the view.
SELECT was_dropped FROM fetchq.queue_drop('stats_docs');
SELECT was_dropped FROM fetchq.queue_drop('stats_empty');
SELECT count(*) FROM fetchq.stats WHERE queue LIKE 'stats\_%';
