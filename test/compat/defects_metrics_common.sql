-- metric_get_common and metric_get_all through the document moves of
-- metrics.sql (the same calls, on queue compat_mgc), read where metrics.sql
-- reads its counters.
-- Intended differences: a counter that is zero or was never written reads
-- 0, where Fetchq 4 reads NULL (every other reader of counters says 0, and
-- so does fetchq.stats); and both end with a column of fetchq's own, exp
-- (documents deleted because they expired). Fetchq 4's columns keep their
-- names, order and values, but for drp in metric_get_all, which Fetchq 4
-- leaves out (defects_metrics.sql).
SELECT was_created FROM fetchq.queue_create('compat_mgc');

-- Nothing counted yet.
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT * FROM fetchq.metric_get_common('compat_mgc');

SELECT * FROM fetchq.doc_push('compat_mgc', 'm01', '{}');
SELECT * FROM fetchq.doc_push('compat_mgc', 'm02', '{}');
SELECT * FROM fetchq.doc_push('compat_mgc', 'm03', '{}');
SELECT * FROM fetchq.doc_push('compat_mgc', 'm04', '{}');
SELECT * FROM fetchq.doc_push('compat_mgc', 'm05', '{}');
SELECT * FROM fetchq.doc_push('compat_mgc', 'm06', '{}');
SELECT * FROM fetchq.doc_push('compat_mgc', 'm07', '{}', now() + interval '1 hour');
SELECT * FROM fetchq.doc_push('compat_mgc', 'm08', 1, 0, now(), '{}');
SELECT * FROM fetchq.doc_push('compat_mgc', 0, now() + interval '1 hour',
    '(''m09'', 0, ''{}'', {DATA}), (''m10'', 0, ''{}'', {DATA})');
SELECT length(subject) FROM fetchq.doc_append('compat_mgc', '{}', 2, 0);
SELECT * FROM fetchq.doc_upsert('compat_mgc', 'm11', 0, 0, now(), '{}');
-- Duplicates count nothing.
SELECT * FROM fetchq.doc_push('compat_mgc', 'm01', '{}');
SELECT * FROM fetchq.doc_upsert('compat_mgc', 'm11', 0, 0, now(), '{"updated": true}');

SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT * FROM fetchq.metric_get_common('compat_mgc');

-- Picks and the ways out of active.
SELECT subject FROM fetchq.doc_pick('compat_mgc', 0, 7, '5m') ORDER BY subject;
SELECT * FROM fetchq.doc_complete('compat_mgc', 'm01');
SELECT * FROM fetchq.doc_complete('compat_mgc', 'm02', '{"done": true}');
SELECT * FROM fetchq.doc_kill('compat_mgc', 'm03');
SELECT * FROM fetchq.doc_drop('compat_mgc', 'm04');
SELECT * FROM fetchq.doc_reschedule('compat_mgc', 'm05', now() + interval '1 hour');
SELECT * FROM fetchq.doc_reschedule('compat_mgc', 'm06', now() - interval '1 hour', '{"again": true}');
SELECT * FROM fetchq.doc_reject('compat_mgc', 'm11', 'failed', '{}');
-- Calls that change nothing count nothing.
SELECT * FROM fetchq.doc_complete('compat_mgc', 'm01');
SELECT * FROM fetchq.doc_drop('compat_mgc', 'm04');
SELECT subject FROM fetchq.doc_pick('compat_mgc', 5, 10, '5m');

SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT * FROM fetchq.metric_get_common('compat_mgc');
SELECT * FROM fetchq.metric_get_all() WHERE queue = 'compat_mgc';

-- Maintenance moves are counted too.
UPDATE fetchq.queues SET max_attempts = 1 WHERE name = 'compat_mgc';
SELECT subject FROM fetchq.doc_pick('compat_mgc', 0, 10, '5m') ORDER BY subject;
BEGIN;
UPDATE fetchq_data.compat_mgc__docs SET next_iteration = now() - interval '1 minute'
WHERE subject IN ('m07', 'm09', 'm10', 'm06');
SELECT * FROM fetchq.mnt_run('compat_mgc', 100);
COMMIT;

SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT * FROM fetchq.metric_get_common('compat_mgc');

-- metric_reset: the counters recomputed from the documents.
SELECT * FROM fetchq.metric_reset('compat_mgc');
SELECT count(*) AS packed FROM fetchq.metric_log_pack();

-- metric_reset_all: the same for every queue.
SELECT * FROM fetchq.doc_push('compat_mgc', 'm12', '{}');
SELECT * FROM fetchq.metric_reset_all() WHERE queue = 'compat_mgc';
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT * FROM fetchq.metric_get_common('compat_mgc');

-- Counters of a dropped queue are gone.
SELECT was_dropped FROM fetchq.queue_drop('compat_mgc');
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT count(*) AS metric_rows FROM fetchq.metrics WHERE queue = 'compat_mgc';
SELECT count(*) AS metric_writes FROM fetchq.metrics_writes WHERE queue = 'compat_mgc';
