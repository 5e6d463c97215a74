-- metric_snap: copies current counters into the queue's metrics history
-- (fetchq_data.<queue>__metrics), all of them, one, or a JSON list of names.
-- requires: fetchq.metric_snap(varchar); fetchq.metric_snap(varchar, varchar)
-- requires: fetchq.metric_snap(varchar, jsonb)
SELECT was_created FROM fetchq.queue_create('compat_snp');

SELECT * FROM fetchq.doc_push('compat_snp', 'a', '{}');
SELECT * FROM fetchq.doc_push('compat_snp', 'b', '{}', now() + interval '1 hour');
SELECT subject FROM fetchq.doc_pick('compat_snp', 0, 1, '5m');
SELECT * FROM fetchq.doc_complete('compat_snp', 'a');
SELECT count(*) AS packed FROM fetchq.metric_log_pack();

SELECT * FROM fetchq.metric_snap('compat_snp');
SELECT metric, value FROM fetchq_data.compat_snp__metrics ORDER BY metric, value;
SELECT * FROM fetchq.metric_snap('compat_snp', 'cnt'::varchar);
SELECT * FROM fetchq.metric_snap('compat_snp', 'not_a_metric'::varchar);
SELECT * FROM fetchq.metric_snap('compat_snp', '["pnd", "pln", "nothing"]'::jsonb);
SELECT metric, value, created_at IS NOT NULL AS has_created_at
FROM fetchq_data.compat_snp__metrics ORDER BY metric, value;

SELECT was_dropped FROM fetchq.queue_drop('compat_snp');
