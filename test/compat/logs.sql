-- log_error (with and without ref_id), what it writes to the queue's logs
-- table, queue_drop_logs in its three forms, and trace of a subject.
-- requires: fetchq.log_error(varchar, varchar, varchar, jsonb)
-- requires: fetchq.log_error(varchar, varchar, varchar, jsonb, varchar)
-- requires: fetchq.queue_drop_logs(varchar); fetchq.queue_drop_logs(varchar, varchar)
-- requires: fetchq.queue_drop_logs(varchar, timestamptz)
-- requires: fetchq.trace(varchar); fetchq.trace(varchar, varchar)
SELECT was_created FROM fetchq.queue_create('compat_log');

SELECT * FROM fetchq.log_error('compat_log', 's1', 'first error', '{"code": 1}');
SELECT * FROM fetchq.log_error('compat_log', 's1', 'second error', '{"code": 2}', 'ref-2');
SELECT * FROM fetchq.log_error('compat_log', 's2', 'ünïcödé 😀', '{"text": "日本語"}', 'ref ü');
SELECT * FROM fetchq.log_error('compat_log', 'not-a-document', 'logs need no document', '[]');
SELECT * FROM fetchq.log_error('compat_log', 's3', repeat('m', 255), '{}');

SELECT subject, message, details, ref_id, created_at IS NOT NULL AS has_created_at
FROM fetchq_data.compat_log__logs ORDER BY id;

-- trace: the document, then its log lines, one step each.
SELECT * FROM fetchq.doc_push('compat_log', 's1', '{"traced": true}');
SELECT step, queue, type, info FROM fetchq.trace('s1');
SELECT step, queue, type, info FROM fetchq.trace('s1', 'DESC');
SELECT step, queue, type, info, details->>'message' AS message FROM fetchq.trace('s2');
SELECT step, queue, type, info FROM fetchq.trace('nobody');

-- Retention: nothing is older than an hour; everything is older than a
-- moment from now.
SELECT * FROM fetchq.queue_drop_logs('compat_log');
SELECT * FROM fetchq.queue_drop_logs('compat_log', '1 hour'::varchar);
SELECT count(*) AS logs FROM fetchq_data.compat_log__logs;
SELECT * FROM fetchq.queue_drop_logs('compat_log', now() + interval '1 minute');
SELECT count(*) AS logs FROM fetchq_data.compat_log__logs;
SELECT * FROM fetchq.queue_drop_logs('compat_log', now() + interval '1 minute');

SELECT was_dropped FROM fetchq.queue_drop('compat_log');
