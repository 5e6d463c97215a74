-- queue_truncate: empties a queue's documents (and with true its logs and
-- metrics history) and recomputes its counters.
-- requires: fetchq.queue_truncate(varchar); fetchq.queue_truncate(varchar, boolean)
-- requires: fetchq.queue_truncate_all(); fetchq.queue_truncate_all(boolean)
SELECT was_created FROM fetchq.queue_create('compat_trn');

SELECT * FROM fetchq.doc_push('compat_trn', 'a', '{}');
SELECT * FROM fetchq.doc_push('compat_trn', 'b', '{}');
SELECT * FROM fetchq.doc_push('compat_trn', 'c', '{}', now() + interval '1 hour');
SELECT subject FROM fetchq.doc_pick('compat_trn', 0, 1, '5m');
SELECT * FROM fetchq.doc_reject('compat_trn', 'a', 'failed', '{}');
SELECT count(*) AS packed FROM fetchq.metric_log_pack();

SELECT * FROM fetchq.queue_truncate('compat_trn');
SELECT count(*) AS docs FROM fetchq_data.compat_trn__docs;
SELECT count(*) AS logs FROM fetchq_data.compat_trn__logs;
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT metric, current_value FROM fetchq.metric_get('compat_trn') ORDER BY metric;

-- The queue works as before.
SELECT * FROM fetchq.doc_push('compat_trn', 'a', '{}');
SELECT subject FROM fetchq.doc_pick('compat_trn', 0, 1, '5m');
SELECT * FROM fetchq.doc_reject('compat_trn', 'a', 'failed again', '{}');

SELECT * FROM fetchq.queue_truncate('compat_trn', false);
SELECT count(*) AS docs FROM fetchq_data.compat_trn__docs;
SELECT count(*) AS logs FROM fetchq_data.compat_trn__logs;

SELECT * FROM fetchq.doc_push('compat_trn', 'z', '{}');
SELECT * FROM fetchq.queue_truncate('compat_trn', true);
SELECT count(*) AS docs FROM fetchq_data.compat_trn__docs;
SELECT count(*) AS logs FROM fetchq_data.compat_trn__logs;
SELECT count(*) AS metric_history FROM fetchq_data.compat_trn__metrics;
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT metric, current_value FROM fetchq.metric_get('compat_trn') ORDER BY metric;

-- queue_truncate_all: every queue.
SELECT was_created FROM fetchq.queue_create('compat_trn2');
SELECT * FROM fetchq.doc_push('compat_trn', 'a', '{}');
SELECT * FROM fetchq.doc_push('compat_trn2', 'b', '{}');
SELECT * FROM fetchq.log_error('compat_trn2', 'b', 'logged', '{}');
SELECT * FROM fetchq.queue_truncate_all();
SELECT (SELECT count(*) FROM fetchq_data.compat_trn__docs) AS docs,
       (SELECT count(*) FROM fetchq_data.compat_trn2__docs) AS docs2,
       (SELECT count(*) FROM fetchq_data.compat_trn2__logs) AS logs2;
SELECT * FROM fetchq.doc_push('compat_trn2', 'c', '{}');
SELECT * FROM fetchq.queue_truncate_all(true);
SELECT (SELECT count(*) FROM fetchq_data.compat_trn2__docs) AS docs2,
       (SELECT count(*) FROM fetchq_data.compat_trn2__logs) AS logs2;
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT queue, metric, sum(value) AS value FROM fetchq.metrics
WHERE queue LIKE 'compat\_trn%' GROUP BY queue, metric ORDER BY queue, metric;

SELECT was_dropped FROM fetchq.queue_drop('compat_trn');
SELECT was_dropped FROM fetchq.queue_drop('compat_trn2');
