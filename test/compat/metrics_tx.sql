-- Counters follow the caller's transaction: work rolled back (whole or to a
-- savepoint) is not counted, and a transaction sees its own counts after a
-- pack.
-- requires: fetchq.metric_get(varchar, varchar)
SELECT was_created FROM fetchq.queue_create('compat_mtx');

BEGIN;
SELECT * FROM fetchq.doc_push('compat_mtx', 'a', '{}');
SAVEPOINT s1;
SELECT * FROM fetchq.doc_push('compat_mtx', 'b', '{}');
SAVEPOINT s2;
SELECT * FROM fetchq.doc_push('compat_mtx', 'c', '{}');
ROLLBACK TO SAVEPOINT s1;
SELECT * FROM fetchq.doc_push('compat_mtx', 'd', '{}');
SAVEPOINT s3;
SELECT * FROM fetchq.doc_push('compat_mtx', 'e', '{}');
RELEASE SAVEPOINT s3;
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT current_value, does_exists FROM fetchq.metric_get('compat_mtx', 'cnt');
COMMIT;
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT metric, current_value FROM fetchq.metric_get('compat_mtx') ORDER BY metric;

BEGIN;
SELECT * FROM fetchq.doc_push('compat_mtx', 'f', '{}');
SELECT subject FROM fetchq.doc_pick('compat_mtx', 0, 10, '5m') ORDER BY subject;
ROLLBACK;
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT metric, current_value FROM fetchq.metric_get('compat_mtx') ORDER BY metric;

SELECT was_dropped FROM fetchq.queue_drop('compat_mtx');
