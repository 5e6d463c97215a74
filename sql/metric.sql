-- Counters: set/increment, the write log and its pack, readers, compute,
-- reset, snapshots; transactional visibility of counters kept by doc_*.
SET client_min_messages = warning;
SELECT was_created FROM fetchq.queue_create('metric_q1');
SELECT was_created FROM fetchq.queue_create('metric_q2');
SELECT was_created FROM fetchq.queue_create('metric_docs');

-- metric_set / metric_increment
SELECT * FROM fetchq.metric_set('metric_q1', 'custom', 10);
SELECT * FROM fetchq.metric_set('metric_q1', 'custom', 12);
SELECT * FROM fetchq.metric_increment('metric_q1', 'custom', 5);
SELECT * FROM fetchq.metric_increment('metric_q1', 'custom', -20);
SELECT * FROM fetchq.metric_increment('metric_q1', 'fresh', 3);
SELECT * FROM fetchq.metric_increment('metric_q1', 'fresh', 4);
SELECT * FROM fetchq.metric_increment('metric_q1', 'zero', 0);  -- creates the counter
SELECT * FROM fetchq.metric_increment('metric_q1', 'zero', 0);
SELECT current_value, does_exists, last_update IS NOT NULL AS stamped
FROM fetchq.metric_get('metric_q1', 'zero');
SELECT current_value, does_exists, last_update IS NULL AS no_stamp
FROM fetchq.metric_get('metric_q1', 'nope');

-- a counter striped over several rows is their sum; set folds it into slot 0
INSERT INTO fetchq.custom_counters (queue, metric, slot, value, updated_at)
VALUES ('metric_q1', 'striped', 3, 4, now()), ('metric_q1', 'striped', 7, 5, now());
SELECT current_value, does_exists FROM fetchq.metric_get('metric_q1', 'striped');
SELECT * FROM fetchq.metric_increment('metric_q1', 'striped', 1);
SELECT * FROM fetchq.metric_set('metric_q1', 'striped', 2);
SELECT slot, value FROM fetchq.metrics
WHERE queue = 'metric_q1' AND metric = 'striped' ORDER BY slot;

-- the standard counters are columns of fetchq.counters, striped the same
-- way; a NULL column is a counter never written in that stripe
INSERT INTO fetchq.counters (queue, slot, kll, rej)
VALUES ('metric_q1', 3, 4, NULL), ('metric_q1', 7, 5, 1);
SELECT current_value, does_exists FROM fetchq.metric_get('metric_q1', 'kll');
SELECT metric, current_value FROM fetchq.metric_get('metric_q1')
WHERE metric IN ('kll', 'rej', 'drp') ORDER BY metric;
SELECT * FROM fetchq.metric_increment('metric_q1', 'kll', 1);
SELECT * FROM fetchq.metric_set('metric_q1', 'kll', 2);
SELECT slot, kll, rej FROM fetchq.counters
WHERE queue = 'metric_q1' AND (kll IS NOT NULL OR rej IS NOT NULL) ORDER BY slot;
SELECT slot, metric, value FROM fetchq.metrics
WHERE queue = 'metric_q1' AND metric IN ('kll', 'rej') ORDER BY slot, metric;
SELECT * FROM fetchq.metric_set('metric_q1', 'drp', 0);
SELECT current_value, does_exists FROM fetchq.metric_get('metric_q1', 'drp');
SELECT * FROM fetchq.metric_get_total('kll');

-- set drops the transaction's pending change of that counter, not others'
BEGIN;
SELECT current_value FROM fetchq.metric_increment('metric_q1', 'custom', 100);
SELECT current_value FROM fetchq.metric_increment('metric_q1', 'fresh', 100);
SELECT * FROM fetchq.metric_set('metric_q1', 'custom', 1);
SELECT current_value FROM fetchq.metric_get('metric_q1', 'custom');
COMMIT;
SELECT current_value FROM fetchq.metric_get('metric_q1', 'custom');
SELECT current_value FROM fetchq.metric_get('metric_q1', 'fresh');
SELECT current_value FROM fetchq.metric_increment('metric_q1', 'fresh', -100);

-- a set inside a rolled-back savepoint gives the earlier change back
BEGIN;
SELECT current_value FROM fetchq.metric_increment('metric_q1', 'custom', 10);
SAVEPOINT s1;
SELECT current_value FROM fetchq.metric_set('metric_q1', 'custom', 0);
ROLLBACK TO SAVEPOINT s1;
SELECT current_value FROM fetchq.metric_get('metric_q1', 'custom');
SAVEPOINT s2;
SELECT current_value FROM fetchq.metric_set('metric_q1', 'custom', 50);
SELECT current_value FROM fetchq.metric_increment('metric_q1', 'custom', 1);
RELEASE SAVEPOINT s2;
SELECT current_value FROM fetchq.metric_get('metric_q1', 'custom');
COMMIT;
SELECT current_value FROM fetchq.metric_get('metric_q1', 'custom');
BEGIN;
SELECT current_value FROM fetchq.metric_increment('metric_q1', 'custom', 1000);
ROLLBACK;
SELECT current_value FROM fetchq.metric_get('metric_q1', 'custom');

-- metric names: quotes, backslashes, unicode; at most 40 characters
SELECT * FROM fetchq.metric_set('metric_q1', 'it''s a "quote" \ ü 漢字', 7);
SELECT current_value, does_exists FROM fetchq.metric_get('metric_q1', 'it''s a "quote" \ ü 漢字');
SELECT * FROM fetchq.metric_set('metric_q1', repeat('é', 40), 1);
SELECT * FROM fetchq.metric_set('metric_q1', repeat('x', 41), 1);
SELECT * FROM fetchq.metric_get('metric_q1', '');
SELECT * FROM fetchq.metric_increment('metric_q1', ''');DROP TABLE fetchq.metrics;--', 1);
SELECT count(*) > 0 AS metrics_still_there FROM fetchq.metrics;

-- metric_get(queue): every counter, by name, with this transaction's changes
SELECT metric, current_value, last_update IS NOT NULL AS stamped
FROM fetchq.metric_get('metric_q1');
BEGIN;
SELECT current_value FROM fetchq.metric_increment('metric_q1', 'pending_only', 2);
SELECT current_value FROM fetchq.metric_increment('metric_q1', 'zero', 6);
SELECT metric, current_value FROM fetchq.metric_get('metric_q1')
WHERE metric IN ('pending_only', 'zero');
ROLLBACK;
SELECT metric, current_value FROM fetchq.metric_get('metric_q1')
WHERE metric IN ('pending_only', 'zero');
SELECT count(*) FROM fetchq.metric_get('metric_q2');

-- metric_get_total: across queues, pending changes included
SELECT * FROM fetchq.metric_get_total('metric_sql_total');
SELECT current_value FROM fetchq.metric_set('metric_q1', 'metric_sql_total', 5);
SELECT current_value FROM fetchq.metric_set('metric_q2', 'metric_sql_total', 7);
SELECT * FROM fetchq.metric_get_total('metric_sql_total');
BEGIN;
SELECT current_value FROM fetchq.metric_increment('metric_q2', 'metric_sql_total', 30);
SELECT * FROM fetchq.metric_get_total('metric_sql_total');
SELECT * FROM fetchq.metric_get_total('metric_sql_total_2');
SELECT current_value FROM fetchq.metric_increment('metric_q2', 'metric_sql_total_2', 1);
SELECT * FROM fetchq.metric_get_total('metric_sql_total_2');
ROLLBACK;
SELECT * FROM fetchq.metric_get_total('metric_sql_total');

-- values beyond INTEGER: clear errors, bigint through metric_get(queue)
SELECT current_value FROM fetchq.metric_set('metric_q2', 'big', 2147483647);
SELECT * FROM fetchq.metric_increment('metric_q2', 'big', 1);
INSERT INTO fetchq.custom_counters (queue, metric, slot, value, updated_at)
VALUES ('metric_q2', 'big', 9, 10, now());
SELECT * FROM fetchq.metric_get('metric_q2', 'big');
SELECT metric, current_value FROM fetchq.metric_get('metric_q2') WHERE metric = 'big';
SELECT current_value FROM fetchq.metric_set('metric_q2', 'big', -5);

-- counters kept by doc_*: visible before commit, gone with ROLLBACK and
-- ROLLBACK TO SAVEPOINT, exact after commit
SELECT * FROM fetchq.metric_get_common('metric_docs');
BEGIN;
SELECT fetchq.doc_push('metric_docs', 'a');
SELECT fetchq.doc_push('metric_docs', 'b');
SELECT fetchq.doc_push('metric_docs', 'c');
SELECT fetchq.doc_push('metric_docs', 'd');
SELECT fetchq.doc_push('metric_docs', 'e');
SELECT fetchq.doc_push('metric_docs', 'a');  -- duplicate: not counted
SELECT fetchq.doc_push('metric_docs', 'future', 0, 0, now() + interval '1 hour', '{}');
SELECT * FROM fetchq.metric_get_common('metric_docs');
SELECT count(*) AS rows_before_commit FROM fetchq.metrics WHERE queue = 'metric_docs';
COMMIT;
SELECT * FROM fetchq.metric_get_common('metric_docs');
BEGIN;
SELECT fetchq.doc_push('metric_docs', 'x');
SELECT cnt, pnd, ent FROM fetchq.metric_get_common('metric_docs');
ROLLBACK;
SELECT cnt, pnd, ent FROM fetchq.metric_get_common('metric_docs');
BEGIN;
SELECT fetchq.doc_push('metric_docs', 'y');
SAVEPOINT s1;
SELECT fetchq.doc_push('metric_docs', 'z');
SELECT cnt, pnd, ent FROM fetchq.metric_get_common('metric_docs');
ROLLBACK TO SAVEPOINT s1;
SELECT cnt, pnd, ent FROM fetchq.metric_get_common('metric_docs');
SAVEPOINT s2;
SELECT fetchq.doc_push('metric_docs', 'w');
RELEASE SAVEPOINT s2;
SELECT cnt, pnd, ent FROM fetchq.metric_get_common('metric_docs');
COMMIT;
SELECT cnt, pnd, ent FROM fetchq.metric_get_common('metric_docs');
SELECT subject FROM fetchq_data.metric_docs__docs ORDER BY subject;

-- pick, then complete / complete_many / kill / drop / reject / reschedule
SELECT count(*) AS picked FROM fetchq.doc_pick('metric_docs', 0, 10, '5m');
SELECT cnt, pnd, act, pkd FROM fetchq.metric_get_common('metric_docs');
SELECT fetchq.doc_complete('metric_docs', 'a');
SELECT fetchq.doc_complete_many('metric_docs', ARRAY['b', 'c']);
SELECT fetchq.doc_kill('metric_docs', 'd');
SELECT fetchq.doc_drop('metric_docs', 'e');
SELECT fetchq.doc_reject('metric_docs', 'y', 'it failed', '{"why": "test"}');
SELECT fetchq.doc_reschedule('metric_docs', 'w', now() + interval '1 hour');
SELECT * FROM fetchq.metric_get_common('metric_docs');
SELECT * FROM fetchq.metric_compute('metric_docs');
SELECT fetchq.doc_push('metric_docs', 'p', 0, 9, now() - interval '1 minute', '{}');
SELECT subject FROM fetchq.doc_pick('metric_docs', 0, 10, '5m');  -- y is not due again yet
SELECT * FROM fetchq.metric_compute('metric_docs');  -- act counts status 2
SELECT cnt, pln, pnd, act, cpl, kll FROM fetchq.metric_get_common('metric_docs');
SELECT metric, current_value FROM fetchq.metric_get('metric_docs');

-- metric_get_all: one row per queue (drp included)
SELECT * FROM fetchq.metric_get_all() WHERE queue LIKE 'metric\_%' ORDER BY queue;
SELECT * FROM fetchq.metric_compute_all() WHERE queue LIKE 'metric\_%' ORDER BY queue;

-- metric_reset: drops every counter and log entry of the queue, then sets
-- the status counters from the documents (this transaction's included)
SELECT current_value FROM fetchq.metric_set('metric_docs', 'cnt', 999);
SELECT current_value FROM fetchq.metric_set('metric_docs', 'act', -4);
SELECT fetchq.metric_log_increment('metric_docs', 'cnt', 5);
BEGIN;
SELECT fetchq.doc_push('metric_docs', 'r1');
SELECT * FROM fetchq.metric_reset('metric_docs');
SELECT * FROM fetchq.metric_get_common('metric_docs');
SELECT fetchq.doc_push('metric_docs', 'r2');
COMMIT;
SELECT * FROM fetchq.metric_get_common('metric_docs');
SELECT metric, current_value FROM fetchq.metric_get('metric_docs');
SELECT count(*) AS writes_left FROM fetchq.metrics_writes WHERE queue = 'metric_docs';
-- a reset in a rolled-back savepoint changes nothing
BEGIN;
SELECT fetchq.doc_push('metric_docs', 'r3');
SAVEPOINT s1;
SELECT cnt FROM fetchq.metric_reset('metric_docs');
ROLLBACK TO SAVEPOINT s1;
SELECT cnt, pnd, ent FROM fetchq.metric_get_common('metric_docs');
COMMIT;
SELECT cnt, pnd, ent FROM fetchq.metric_get_common('metric_docs');
-- reset_all: every queue (rolled back: the regress database is shared)
BEGIN;
SELECT current_value FROM fetchq.metric_set('metric_docs', 'cnt', 0);
SELECT * FROM fetchq.metric_reset_all() WHERE queue LIKE 'metric\_%' ORDER BY queue;
SELECT queue, cnt, pnd, pln, act, cpl, kll, ent FROM fetchq.metric_get_all()
WHERE queue LIKE 'metric\_%' ORDER BY queue;
ROLLBACK;

-- the write log: set, increment, decrement; zero changes are not logged
SELECT current_value FROM fetchq.metric_set('metric_q2', 'logged', 50);
SELECT current_value FROM fetchq.metric_set('metric_q2', 'incr_only', 10);
BEGIN;
SELECT * FROM fetchq.metric_log_increment('metric_q2', 'logged', 1);
SELECT * FROM fetchq.metric_log_set('metric_q2', 'logged', 100);
SELECT * FROM fetchq.metric_log_increment('metric_q2', 'logged', 5);
SELECT * FROM fetchq.metric_log_decrement('metric_q2', 'logged', 2);
SELECT * FROM fetchq.metric_log_increment('metric_q2', 'logged', 0);
SELECT * FROM fetchq.metric_log_decrement('metric_q2', 'logged', 0);
SELECT * FROM fetchq.metric_log_increment('metric_q2', 'incr_only', 4);
SELECT * FROM fetchq.metric_log_set('metric_q2', 'reset_only', 8);
SELECT * FROM fetchq.metric_log_set('metric_q2', 'reset_only', 9);  -- the latest wins
SELECT * FROM fetchq.metric_log_decrement('metric_q2', 'new_one', -2147483648);
SELECT queue, metric, increment, reset, created_at IS NOT NULL AS stamped
FROM fetchq.metrics_writes WHERE queue LIKE 'metric\_%' ORDER BY metric, reset NULLS FIRST, increment;
-- the log does not change counters until packed
SELECT current_value FROM fetchq.metric_get('metric_q2', 'logged');
-- the latest reset, then every increment of the batch (Fetchq 4's fold)
SELECT affected_rows >= 8 AS folded FROM fetchq.metric_log_pack();
SELECT count(*) AS writes_left FROM fetchq.metrics_writes WHERE queue LIKE 'metric\_%';
SELECT metric, current_value FROM fetchq.metric_get('metric_q2')
WHERE metric IN ('logged', 'incr_only', 'reset_only', 'new_one') ORDER BY metric;
COMMIT;
SELECT metric, current_value FROM fetchq.metric_get('metric_q2')
WHERE metric IN ('logged', 'incr_only', 'reset_only', 'new_one') ORDER BY metric;
SELECT current_value FROM fetchq.metric_set('metric_q2', 'new_one', 0);

-- metric_snap: all counters, one, or a whitelist; this transaction's included
BEGIN;
SELECT current_value FROM fetchq.metric_increment('metric_q1', 'custom', 1);
SELECT * FROM fetchq.metric_snap('metric_q1');
SELECT * FROM fetchq.metric_snap('metric_q1', 'custom');
SELECT * FROM fetchq.metric_snap('metric_q1', 'nope');
SELECT * FROM fetchq.metric_snap('metric_q1', '["custom", "fresh", "missing", "custom"]'::jsonb);
SELECT * FROM fetchq.metric_snap('metric_q1', '[]'::jsonb);
COMMIT;
SELECT metric, value, created_at IS NOT NULL AS stamped
FROM fetchq_data.metric_q1__metrics ORDER BY id;
SELECT * FROM fetchq.metric_snap('metric_q1', '{"custom": 1}'::jsonb);
SELECT * FROM fetchq.metric_snap('metric_q1', '[1]'::jsonb);
SELECT * FROM fetchq.metric_snap('metric_q1', '"custom"'::jsonb);
SELECT * FROM fetchq.metric_snap('metric_q1', NULL::jsonb);
SELECT * FROM fetchq.metric_snap('metric_q1', NULL::varchar);

-- a queue dropped in a rolled-back savepoint keeps its pending counters
SELECT was_created FROM fetchq.queue_create('metric_q3');
BEGIN;
SELECT fetchq.doc_push('metric_q3', 'k');
SAVEPOINT s1;
SELECT was_dropped FROM fetchq.queue_drop('metric_q3');
ROLLBACK TO SAVEPOINT s1;
COMMIT;
SELECT cnt, pnd, ent FROM fetchq.metric_get_common('metric_q3');
BEGIN;
SELECT fetchq.doc_push('metric_q3', 'l');
SELECT was_dropped FROM fetchq.queue_drop('metric_q3');
COMMIT;
SELECT count(*) AS rows_of_dropped_queue FROM fetchq.metrics WHERE queue = 'metric_q3';

-- missing queue
SELECT * FROM fetchq.metric_set('metric_missing', 'x', 1);
SELECT * FROM fetchq.metric_increment('metric_missing', 'x', 1);
SELECT * FROM fetchq.metric_get('metric_missing', 'x');
SELECT * FROM fetchq.metric_get('metric_missing');
SELECT * FROM fetchq.metric_get_common('metric_missing');
SELECT * FROM fetchq.metric_log_set('metric_missing', 'x', 1);
SELECT * FROM fetchq.metric_log_increment('metric_missing', 'x', 0);
SELECT * FROM fetchq.metric_log_decrement('metric_missing', 'x', 1);
SELECT * FROM fetchq.metric_compute('metric_missing');
SELECT * FROM fetchq.metric_reset('metric_missing');
SELECT * FROM fetchq.metric_snap('metric_missing');
SELECT * FROM fetchq.metric_snap('metric_missing', 'x');
SELECT * FROM fetchq.metric_snap('metric_missing', '["x"]'::jsonb);
-- bad queue names
SELECT * FROM fetchq.metric_get('Metric_Q1', 'x');
SELECT * FROM fetchq.metric_set('metric-q1', 'x', 1);
SELECT * FROM fetchq.metric_get_common('');
SELECT * FROM fetchq.metric_compute('metric_q1; DROP TABLE fetchq.queues');
SELECT * FROM fetchq.metric_snap(repeat('q', 41));
-- NULL arguments
SELECT * FROM fetchq.metric_set(NULL, 'x', 1);
SELECT * FROM fetchq.metric_set('metric_q1', NULL, 1);
SELECT * FROM fetchq.metric_set('metric_q1', 'x', NULL);
SELECT * FROM fetchq.metric_increment('metric_q1', 'x', NULL);
SELECT * FROM fetchq.metric_log_increment('metric_q1', 'x', NULL);
SELECT * FROM fetchq.metric_get(NULL::varchar);
SELECT * FROM fetchq.metric_get_total(NULL);
SELECT * FROM fetchq.metric_get_total('');
SELECT * FROM fetchq.metric_reset(NULL);

-- cleanup: a dropped queue leaves no counters behind
SELECT was_dropped FROM fetchq.queue_drop('metric_q1');
SELECT was_dropped FROM fetchq.queue_drop('metric_q2');
SELECT was_dropped FROM fetchq.queue_drop('metric_docs');
SELECT count(*) FROM fetchq.metrics WHERE queue LIKE 'metric\_%';
SELECT count(*) FROM fetchq.metrics_writes WHERE queue LIKE 'metric\_%';
