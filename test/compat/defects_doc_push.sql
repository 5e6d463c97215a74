-- Known, intended differences when putting documents in a queue: Fetchq 4
-- pastes values into SQL text (a quote breaks it) and swallows errors into 0
-- or NULL; fetchq stores any text and raises a clear error on bad input.
-- The differences are recorded in expected_differences/defects_doc_push.diff.
-- requires: fetchq.doc_push(varchar, integer, timestamptz, varchar)
SELECT was_created FROM fetchq.queue_create('compat_dp');

-- Quotes in subjects and payloads: 0 vs 1.
SELECT * FROM fetchq.doc_push('compat_dp', 'it''s', '{}');
SELECT * FROM fetchq.doc_push('compat_dp', 'q1', '{"text": "it''s"}');
SELECT * FROM fetchq.doc_push('compat_dp', 'q2'');DROP TABLE fetchq_data.compat_dp__logs;--', '{}');
SELECT * FROM fetchq.doc_push('compat_dp', 'q3', 0, 0, now(), '{"text": "it''s"}');
SELECT length(subject) FROM fetchq.doc_append('compat_dp', '{"text": "it''s"}');
SELECT * FROM fetchq.doc_upsert('compat_dp', 'q4', 0, 0, now(), '{"text": "it''s"}');
SELECT * FROM fetchq.doc_upsert('compat_dp', 'q4', 0, 0, now(), '{"text": "it''s again"}');

-- NULL payload: 0 vs a document with a NULL payload.
SELECT * FROM fetchq.doc_push('compat_dp', 'n1', NULL::jsonb);
SELECT * FROM fetchq.doc_push('compat_dp', 'n2', 0, 0, now(), NULL);
SELECT length(subject) FROM fetchq.doc_append('compat_dp', NULL);
-- NULL subject: the reference stores an empty subject; fetchq raises.
SELECT * FROM fetchq.doc_push('compat_dp', NULL, '{}');
-- NULL version, priority or next_iteration: 0 vs an error.
SELECT * FROM fetchq.doc_push('compat_dp', 'n3', NULL, 0, now(), '{}');
SELECT * FROM fetchq.doc_push('compat_dp', 'n4', 0, NULL, now(), '{}');
SELECT * FROM fetchq.doc_push('compat_dp', 'n5', 0, 0, NULL, '{}');
SELECT * FROM fetchq.doc_upsert('compat_dp', 'n6', 0, 0, NULL, '{}');

-- 51 characters: both raise, fetchq with detail, hint and SQLSTATE 22001.
SELECT * FROM fetchq.doc_push('compat_dp', repeat('x', 51), '{}');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT * FROM fetchq.doc_push('compat_dp', repeat('é', 51), 0, 0, now(), '{}');

-- A queue that does not exist: 0 / NULL / (0, 0) vs an error.
SELECT * FROM fetchq.doc_push('compat_dp_missing', 'a');
SELECT * FROM fetchq.doc_push('compat_dp_missing', 'a', '{}', now());
SELECT * FROM fetchq.doc_push('compat_dp_missing', 0, now(), '(''a'', 0, ''{}'', {DATA})');
SELECT * FROM fetchq.doc_append('compat_dp_missing', '{}');
SELECT * FROM fetchq.doc_upsert('compat_dp_missing', 'a', 0, 0, now(), '{}');

-- Bulk push, bad tuple text: 0 vs an error naming the position.
SELECT * FROM fetchq.doc_push('compat_dp', 0, now(), '(''b1'', 0, ''{}'')');
SELECT * FROM fetchq.doc_push('compat_dp', 0, now(), '(''b2'', 0, ''{not json}'', {DATA})');
SELECT * FROM fetchq.doc_push('compat_dp', 0, now(), '(''b3'', ''high'', ''{}'', {DATA})');
SELECT * FROM fetchq.doc_push('compat_dp', 0, now(), '(''b4'', 0, ''{}'', {DATA}); DROP TABLE fetchq_data.compat_dp__logs; --');
SELECT * FROM fetchq.doc_push('compat_dp', 0, now(), '(''' || repeat('y', 51) || ''', 0, ''{}'', {DATA})');
SELECT * FROM fetchq.doc_push('compat_dp', 0, NULL, '(''b5'', 0, ''{}'', {DATA})');
SELECT * FROM fetchq.doc_push('compat_dp', 0, now(), NULL);

-- An empty subject: stored by the reference, refused here (22023).
SELECT * FROM fetchq.doc_push('compat_dp', '', '{"empty": "subject"}');
SELECT * FROM fetchq.doc_push('compat_dp', '', 0, 0, now(), '{}');
SELECT * FROM fetchq.doc_upsert('compat_dp', '', 0, 0, now(), '{}');
SELECT count(*) AS empty_subjects FROM fetchq_data.compat_dp__docs WHERE subject = '';
DELETE FROM fetchq_data.compat_dp__docs WHERE subject = '';

SELECT subject, status, payload FROM fetchq_data.compat_dp__docs
WHERE (payload IS NULL OR NOT payload ? 'text' OR subject LIKE 'q%') AND length(subject) <> 36
ORDER BY subject;
SELECT count(*) AS appended, count(payload) AS with_payload
FROM fetchq_data.compat_dp__docs WHERE length(subject) = 36;
SELECT count(*) AS logs_table FROM pg_catalog.pg_tables
WHERE schemaname = 'fetchq_data' AND tablename = 'compat_dp__logs';

-- The reference ran the DROP TABLE pasted into the bulk push: give it its
-- table back so that queue_drop works on both.
CREATE TABLE IF NOT EXISTS fetchq_data.compat_dp__logs (id INTEGER);
SELECT was_dropped FROM fetchq.queue_drop('compat_dp');
