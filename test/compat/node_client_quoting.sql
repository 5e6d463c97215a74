-- JSON arguments as the Node.js client (fetchq 4.x) writes them: it pastes
-- JSON.stringify(x) into its SQL with every single quote written as four
-- (''''), so the function receives two, and Fetchq 4, pasting that again,
-- stored one. fetchq.fetchq4_quoting (on by default) reads them the same.
-- The calls below are the client's own statements for {"text": "it's"}.
SELECT was_created FROM fetchq.queue_create('compat_nq');

-- doc.push, doc.append, doc.upsert
SELECT * FROM fetchq.doc_push('compat_nq', 'n1', 0, 0, NOW(), '{"text":"it''''s"}');
SELECT length(subject) FROM fetchq.doc_append('compat_nq', '{"text":"O''''Reilly"}', 0, 0);
SELECT * FROM fetchq.doc_upsert('compat_nq', 'n2', 0, 0, NOW(), '{"text":"it''''s"}');
SELECT * FROM fetchq.doc_upsert('compat_nq', 'n2', 0, 0, NOW(), '{"text":"it''''s again"}');
-- doc.pushMany
SELECT * FROM fetchq.doc_push( 'compat_nq', 0, NOW(), '( ''n3'', 0, ''{"text":"it''''s"}'', {DATA}), ( ''n4'', 0, ''{"k''''ey":"v"}'', {DATA})');
-- Keys, and values with several quotes.
SELECT * FROM fetchq.doc_push('compat_nq', 'n5', 0, 0, NOW(), '{"k''''ey":"''''quoted''''","list":["a''''b","c"]}');
-- Two quotes the caller meant (written eight times): stored as one, as Fetchq 4 did.
SELECT * FROM fetchq.doc_push('compat_nq', 'n6', 0, 0, NOW(), '{"text":"a''''''''b"}');

SELECT CASE WHEN length(subject) = 36 THEN '<appended>' ELSE subject END AS subject, payload
FROM fetchq_data.compat_nq__docs ORDER BY 1;

-- doc.complete, doc.kill, doc.reschedule, doc.reject
SELECT count(*) AS picked FROM fetchq.doc_pick('compat_nq', 0, 10, '5m');
SELECT * FROM fetchq.doc_complete('compat_nq', 'n1', '{"done":"it''''s done"}');
SELECT * FROM fetchq.doc_kill('compat_nq', 'n2', '{"why":"it''''s dead"}');
SELECT * FROM fetchq.doc_reschedule('compat_nq', 'n3', NOW() + interval '1 hour', '{"when":"it''''s later"}');
SELECT * FROM fetchq.doc_reject('compat_nq', 'n4', 'rejected', '{"why":"can''''t"}', 'ref-1');
SELECT subject, status, payload FROM fetchq_data.compat_nq__docs
WHERE subject IN ('n1', 'n2', 'n3', 'n4') ORDER BY subject;

-- queue.logError
select * FROM fetchq.log_error('compat_nq', 'n5', 'logged', '{"why":"it''''s logged"}', 'ref-2');
SELECT subject, message, details, ref_id FROM fetchq_data.compat_nq__logs ORDER BY id;

SELECT was_dropped FROM fetchq.queue_drop('compat_nq');
