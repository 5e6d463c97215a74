-- Counters kept by every document move, read with metric_get and compared
-- with metric_compute (metric_get_common and metric_get_all, which read 0
-- where Fetchq 4 reads NULL, replay these calls in
-- defects_metrics_common.sql).
-- Fetchq 4 shows counters only after metric_log_pack(); fetchq's counters
-- are always current and its metric_log_pack() is harmless: the scenario
-- packs before each read.
-- requires: fetchq.metric_get(varchar); fetchq.metric_get(varchar, varchar)
SELECT was_created FROM fetchq.queue_create('compat_met');

-- Nothing counted yet.
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT metric, current_value FROM fetchq.metric_get('compat_met') ORDER BY metric;
SELECT current_value, last_update, does_exists FROM fetchq.metric_get('compat_met', 'cnt');
SELECT * FROM fetchq.metric_compute('compat_met');

SELECT * FROM fetchq.doc_push('compat_met', 'm01', '{}');
SELECT * FROM fetchq.doc_push('compat_met', 'm02', '{}');
SELECT * FROM fetchq.doc_push('compat_met', 'm03', '{}');
SELECT * FROM fetchq.doc_push('compat_met', 'm04', '{}');
SELECT * FROM fetchq.doc_push('compat_met', 'm05', '{}');
SELECT * FROM fetchq.doc_push('compat_met', 'm06', '{}');
SELECT * FROM fetchq.doc_push('compat_met', 'm07', '{}', now() + interval '1 hour');
SELECT * FROM fetchq.doc_push('compat_met', 'm08', 1, 0, now(), '{}');
SELECT * FROM fetchq.doc_push('compat_met', 0, now() + interval '1 hour',
    '(''m09'', 0, ''{}'', {DATA}), (''m10'', 0, ''{}'', {DATA})');
SELECT length(subject) FROM fetchq.doc_append('compat_met', '{}', 2, 0);
SELECT * FROM fetchq.doc_upsert('compat_met', 'm11', 0, 0, now(), '{}');
-- Duplicates count nothing.
SELECT * FROM fetchq.doc_push('compat_met', 'm01', '{}');
SELECT * FROM fetchq.doc_upsert('compat_met', 'm11', 0, 0, now(), '{"updated": true}');

SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT metric, current_value FROM fetchq.metric_get('compat_met') ORDER BY metric;
SELECT current_value, last_update IS NOT NULL AS has_last_update, does_exists
FROM fetchq.metric_get('compat_met', 'cnt');
SELECT current_value, last_update IS NOT NULL AS has_last_update, does_exists
FROM fetchq.metric_get('compat_met', 'pln');
SELECT current_value, last_update, does_exists FROM fetchq.metric_get('compat_met', 'nope');
SELECT * FROM fetchq.metric_compute('compat_met');

-- Picks and the ways out of active.
SELECT subject FROM fetchq.doc_pick('compat_met', 0, 7, '5m') ORDER BY subject;
SELECT * FROM fetchq.doc_complete('compat_met', 'm01');
SELECT * FROM fetchq.doc_complete('compat_met', 'm02', '{"done": true}');
SELECT * FROM fetchq.doc_kill('compat_met', 'm03');
SELECT * FROM fetchq.doc_drop('compat_met', 'm04');
SELECT * FROM fetchq.doc_reschedule('compat_met', 'm05', now() + interval '1 hour');
SELECT * FROM fetchq.doc_reschedule('compat_met', 'm06', now() - interval '1 hour', '{"again": true}');
SELECT * FROM fetchq.doc_reject('compat_met', 'm11', 'failed', '{}');
-- Calls that change nothing count nothing.
SELECT * FROM fetchq.doc_complete('compat_met', 'm01');
SELECT * FROM fetchq.doc_drop('compat_met', 'm04');
SELECT subject FROM fetchq.doc_pick('compat_met', 5, 10, '5m');

SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT metric, current_value FROM fetchq.metric_get('compat_met') ORDER BY metric;
SELECT * FROM fetchq.metric_compute('compat_met');
SELECT * FROM fetchq.metric_compute_all() WHERE queue = 'compat_met';

-- Maintenance moves are counted too.
UPDATE fetchq.queues SET max_attempts = 1 WHERE name = 'compat_met';
SELECT subject FROM fetchq.doc_pick('compat_met', 0, 10, '5m') ORDER BY subject;
BEGIN;
UPDATE fetchq_data.compat_met__docs SET next_iteration = now() - interval '1 minute'
WHERE subject IN ('m07', 'm09', 'm10', 'm06');
SELECT * FROM fetchq.mnt_run('compat_met', 100);
COMMIT;

SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT metric, current_value FROM fetchq.metric_get('compat_met') ORDER BY metric;
SELECT * FROM fetchq.metric_compute('compat_met');

-- metric_reset: the counters recomputed from the documents.
SELECT * FROM fetchq.metric_reset('compat_met');
SELECT metric, current_value FROM fetchq.metric_get('compat_met') ORDER BY metric;
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT metric, current_value FROM fetchq.metric_get('compat_met') ORDER BY metric;

-- metric_reset_all: the same for every queue.
SELECT * FROM fetchq.doc_push('compat_met', 'm12', '{}');
SELECT * FROM fetchq.metric_reset_all() WHERE queue LIKE 'compat\_met%' ORDER BY queue;
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT metric, current_value FROM fetchq.metric_get('compat_met') ORDER BY metric;

-- Counters of a dropped queue are gone.
SELECT was_dropped FROM fetchq.queue_drop('compat_met');
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT count(*) AS metric_rows FROM fetchq.metrics WHERE queue = 'compat_met';
SELECT count(*) AS metric_writes FROM fetchq.metrics_writes WHERE queue = 'compat_met';
