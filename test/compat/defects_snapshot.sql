-- The snapshot job run by mnt() in the transaction that created the queue,
-- then metric_snap(), as in Fetchq 4's own test suite.
-- Intended difference: fetchq's counters are exact as soon as they are
-- written, so the snapshot taken by the 'sts' job inside mnt() records the
-- true counters; Fetchq 4's counters were not packed yet at that moment (its
-- log-pack job is not due in this transaction) and its snapshot recorded
-- nothing. After both calls fetchq's history holds twice Fetchq 4's rows.
-- requires: fetchq.mnt()
BEGIN;
UPDATE fetchq.jobs SET attempts = 0, iterations = 0, next_iteration = now(), last_iteration = NULL
WHERE queue = '*';
SELECT was_created FROM fetchq.queue_create('compat_dsn');
SELECT * FROM fetchq.doc_push('compat_dsn', 'a', 0, 0, now() - interval '1 minute', '{}');
SELECT * FROM fetchq.doc_push('compat_dsn', 'b', 0, 0, now() - interval '1 minute', '{}');
SELECT processed FROM fetchq.mnt();
SELECT metric, value FROM fetchq_data.compat_dsn__metrics ORDER BY metric;
SELECT * FROM fetchq.metric_snap('compat_dsn');
SELECT count(*) AS history_rows FROM fetchq_data.compat_dsn__metrics;
COMMIT;
SELECT was_dropped FROM fetchq.queue_drop('compat_dsn');
