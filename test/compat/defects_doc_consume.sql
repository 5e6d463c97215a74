-- Known, intended differences when taking and finishing documents: Fetchq 4
-- swallows errors into an empty pick, NULL or a silent no-op; fetchq raises
-- a clear error, and handles quotes in subjects, payloads and messages.
-- The differences are recorded in expected_differences/defects_doc_consume.diff.
-- requires: fetchq.doc_push(varchar, integer, timestamptz, varchar)
SELECT was_created FROM fetchq.queue_create('compat_dc');

-- A subject with a quote, pushed the way the reference can (bulk tuple text).
SELECT * FROM fetchq.doc_push('compat_dc', 0, now(),
    '(''it''''s 1'', 0, ''{}'', {DATA}), (''it''''s 2'', 0, ''{}'', {DATA}), (''it''''s 3'', 0, ''{}'', {DATA}),
     (''it''''s 4'', 0, ''{}'', {DATA}), (''it''''s 5'', 0, ''{}'', {DATA}), (''c1'', 0, ''{}'', {DATA}),
     (''c2'', 0, ''{}'', {DATA}), (''c3'', 0, ''{}'', {DATA}), (''c4'', 0, ''{}'', {DATA}),
     (''c5'', 0, ''{}'', {DATA})');

-- Bad pick arguments: an empty result (and nothing picked) vs an error.
SELECT subject FROM fetchq.doc_pick('compat_dc', 0, -1, '5m');
SELECT subject FROM fetchq.doc_pick('compat_dc', 0, 1, 'five minutes');
SELECT subject FROM fetchq.doc_pick('compat_dc', 0, 1, NULL);
SELECT subject FROM fetchq.doc_pick('compat_dc', NULL, 1, '5m');
SELECT subject FROM fetchq.doc_pick('compat_dc', 0, NULL, '5m');
SELECT subject FROM fetchq.doc_pick('compat_dc', 'soon');
SELECT subject FROM fetchq.doc_pick('compat_dc', -3);
SELECT subject FROM fetchq.doc_pick('compat_dc_missing');
SELECT subject FROM fetchq.doc_pick('compat_dc_missing', 0, 1, '5m');
SELECT count(*) AS active FROM fetchq_data.compat_dc__docs WHERE status = 2;

SELECT count(*) AS picked FROM fetchq.doc_pick('compat_dc', 0, 10, '5m');

-- Finishing a document whose subject has a quote: NULL / error vs 1.
SELECT * FROM fetchq.doc_complete('compat_dc', 'it''s 1');
SELECT * FROM fetchq.doc_kill('compat_dc', 'it''s 2');
SELECT * FROM fetchq.doc_drop('compat_dc', 'it''s 3');
SELECT * FROM fetchq.doc_reschedule('compat_dc', 'it''s 4', now() + interval '1 hour');
SELECT * FROM fetchq.doc_reject('compat_dc', 'it''s 5', 'failed', '{}');

-- Payloads and messages with a quote.
SELECT * FROM fetchq.doc_complete('compat_dc', 'c1', '{"text": "it''s done"}');
SELECT * FROM fetchq.doc_kill('compat_dc', 'c2', '{"text": "it''s dead"}');
SELECT * FROM fetchq.doc_reschedule('compat_dc', 'c3', now() + interval '1 hour', '{"text": "it''s later"}');
SELECT * FROM fetchq.doc_reject('compat_dc', 'c4', 'it''s broken', '{"text": "it''s"}');
-- NULL details: the reference rejects but logs nothing.
SELECT * FROM fetchq.doc_reject('compat_dc', 'c5', 'no details', NULL);

-- NULL arguments.
SELECT * FROM fetchq.doc_complete('compat_dc', NULL);
SELECT * FROM fetchq.doc_reschedule('compat_dc', 'c5', NULL);

-- A queue that does not exist.
SELECT * FROM fetchq.doc_complete('compat_dc_missing', 'a');
SELECT * FROM fetchq.doc_complete('compat_dc_missing', 'a', '{}');
SELECT * FROM fetchq.doc_kill('compat_dc_missing', 'a');
SELECT * FROM fetchq.doc_kill('compat_dc_missing', 'a', '{}');
SELECT * FROM fetchq.doc_drop('compat_dc_missing', 'a');
SELECT * FROM fetchq.doc_reschedule('compat_dc_missing', 'a', now());
SELECT * FROM fetchq.doc_reschedule('compat_dc_missing', 'a', now(), '{}');
SELECT * FROM fetchq.doc_reject('compat_dc_missing', 'a', 'msg', '{}');
SELECT * FROM fetchq.doc_reject('compat_dc_missing', 'a', 'msg', '{}', 'ref');

-- A lock of zero or below: the reference picks (the document is an orphan
-- at once), fetchq refuses (22023) and leaves the document pending.
SELECT * FROM fetchq.doc_push('compat_dc', 'zero', '{}');
SELECT subject FROM fetchq.doc_pick('compat_dc', 0, 1, '0s');
SELECT subject FROM fetchq.doc_pick('compat_dc', 0, 1, '-5 minutes');
SELECT status, attempts FROM fetchq_data.compat_dc__docs WHERE subject = 'zero';
SELECT * FROM fetchq.doc_drop('compat_dc', 'zero');
DELETE FROM fetchq_data.compat_dc__docs WHERE subject = 'zero';

SELECT subject, status, payload FROM fetchq_data.compat_dc__docs ORDER BY subject;
SELECT subject, message, details FROM fetchq_data.compat_dc__logs ORDER BY id;

SELECT was_dropped FROM fetchq.queue_drop('compat_dc');
