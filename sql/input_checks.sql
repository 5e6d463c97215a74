-- Bad input that Fetchq 4 accepted: a lock or delay of zero or below, an
-- empty subject. Each is an error (22023) with a hint.
\set VERBOSITY default
SELECT was_created FROM fetchq.queue_create('ic');
SELECT fetchq.doc_push('ic', 'a', 0, 0, now(), '{}');

-- Locks and delays must be longer than zero.
SELECT * FROM fetchq.doc_pick('ic', 0, 1, '-5 minutes');
SELECT * FROM fetchq.doc_pick('ic', 0, 1, '0');
SELECT * FROM fetchq.doc_pick('ic', 0, 1, '0s');
SELECT * FROM fetchq.doc_pick('ic', 0, 1, '1 day -24 hours');
SELECT * FROM fetchq.doc_pick('ic', 0, 1, '-1s', true);
SELECT * FROM fetchq.mnt_job_pick('-1m', 1);
SELECT * FROM fetchq.mnt_job_pick('0', 1);
SELECT * FROM fetchq.mnt_job_run('0', 1);
SELECT * FROM fetchq.mnt_job_reschedule(1, '0ms');
SELECT * FROM fetchq.mnt('-1s');
-- A positive lock still works, the smallest included; nothing was picked above.
SELECT subject, attempts FROM fetchq.doc_pick('ic', 0, 1, '1 microsecond');

-- Subjects may not be empty.
SELECT fetchq.doc_push('ic', '', 0, 0, now(), '{}');
SELECT fetchq.doc_push('ic', '');
SELECT fetchq.doc_push_many('ic', ARRAY['b', '', 'c']);
SELECT * FROM fetchq.doc_upsert('ic', '', 0, 0, now(), '{}');
SELECT fetchq.doc_push('ic', 0, now(), '('''', 0, ''{}'', {DATA})');
SELECT count(*) AS documents FROM fetchq_data.ic__docs;

SELECT was_dropped FROM fetchq.queue_drop('ic');
