-- Known, intended differences in counters (DESIGN.md section 6): Fetchq 4
-- shows counters only after a pack, never counts active documents in
-- metric_compute (act is always 0, and metric_reset stores that 0), leaves
-- drp out of metric_get_all, reads a table that does not exist in
-- metric_get_total, and cannot set or apply a metrics retention. fetchq's
-- metric_get_common and metric_get_all read 0, not NULL, for a counter never
-- written, and end with a column of their own, exp (see
-- defects_metrics_common.sql).
-- The differences are recorded in expected_differences/defects_metrics.diff.
-- requires: fetchq.metric_get(varchar); fetchq.metric_get(varchar, varchar)
-- requires: fetchq.queue_drop_metrics(varchar); fetchq.queue_drop_metrics(varchar, jsonb)
SELECT was_created FROM fetchq.queue_create('compat_dm');

-- Before any pack: fetchq's counters are already there.
SELECT * FROM fetchq.doc_push('compat_dm', 'a', '{}');
SELECT * FROM fetchq.doc_push('compat_dm', 'b', '{}');
SELECT * FROM fetchq.doc_push('compat_dm', 'c', '{}');
SELECT current_value, does_exists FROM fetchq.metric_get('compat_dm', 'cnt');
SELECT metric, current_value FROM fetchq.metric_get('compat_dm') ORDER BY metric;
SELECT * FROM fetchq.metric_get_common('compat_dm');

-- Active documents: act.
SELECT subject FROM fetchq.doc_pick('compat_dm', 0, 2, '5m') ORDER BY subject;
SELECT * FROM fetchq.doc_drop('compat_dm', 'a');
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT * FROM fetchq.metric_compute('compat_dm');
SELECT * FROM fetchq.metric_compute_all() WHERE queue = 'compat_dm';
SELECT * FROM fetchq.metric_get_all() WHERE queue = 'compat_dm';
SELECT * FROM fetchq.metric_reset('compat_dm');
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT current_value FROM fetchq.metric_get('compat_dm', 'act');

-- Totals across queues.
SELECT * FROM fetchq.metric_get_total('cnt');
SELECT * FROM fetchq.metric_get_total('no_such_metric');

-- Metrics retention.
SELECT * FROM fetchq.queue_set_metrics_retention('compat_dm', '[{"from": "1h", "to": "0s", "retain": "minute"}]');
SELECT metrics_retention FROM fetchq.queues WHERE name = 'compat_dm';
SELECT * FROM fetchq.metric_snap('compat_dm');
SELECT * FROM fetchq.metric_snap('compat_dm');
SELECT count(*) AS history FROM fetchq_data.compat_dm__metrics;
-- The latest value of each metric per day kept, for the last hour: fetchq
-- removes the older snapshot of each of the 6 metrics.
SELECT * FROM fetchq.queue_drop_metrics('compat_dm', '[{"from": "1h", "to": "0s", "retain": "day"}]');
SELECT count(*) AS history FROM fetchq_data.compat_dm__metrics;
SELECT * FROM fetchq.queue_drop_metrics('compat_dm', '[{"from": "1h", "to": "-1h", "retain": "hour"}]');
SELECT * FROM fetchq.queue_drop_metrics('compat_dm');

-- A queue that does not exist.
SELECT metric, current_value FROM fetchq.metric_get('compat_dm_missing') ORDER BY metric;
SELECT current_value, does_exists FROM fetchq.metric_get('compat_dm_missing', 'cnt');
SELECT * FROM fetchq.metric_get_common('compat_dm_missing');
SELECT * FROM fetchq.metric_compute('compat_dm_missing');
SELECT * FROM fetchq.metric_reset('compat_dm_missing');
SELECT * FROM fetchq.metric_snap('compat_dm_missing');
SELECT * FROM fetchq.queue_drop_metrics('compat_dm_missing');

SELECT was_dropped FROM fetchq.queue_drop('compat_dm');
