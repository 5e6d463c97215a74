-- What a consumer does with a picked document: doc_complete, doc_kill,
-- doc_drop, doc_reschedule, doc_reject, each with and without payload, and
-- each on documents that are not active (nothing happens, 0).
-- requires: fetchq.doc_complete(varchar, varchar); fetchq.doc_complete(varchar, varchar, jsonb)
-- requires: fetchq.doc_kill(varchar, varchar); fetchq.doc_kill(varchar, varchar, jsonb)
-- requires: fetchq.doc_reschedule(varchar, varchar, timestamptz)
-- requires: fetchq.doc_reschedule(varchar, varchar, timestamptz, jsonb)
-- requires: fetchq.doc_reject(varchar, varchar, varchar, jsonb)
-- requires: fetchq.doc_reject(varchar, varchar, varchar, jsonb, varchar)
SELECT was_created FROM fetchq.queue_create('compat_out');

SELECT * FROM fetchq.doc_push('compat_out', 'o01', 0, 0, now(), '{"n": 1}');
SELECT * FROM fetchq.doc_push('compat_out', 'o02', 0, 0, now(), '{"n": 2}');
SELECT * FROM fetchq.doc_push('compat_out', 'o03', 0, 0, now(), '{"n": 3}');
SELECT * FROM fetchq.doc_push('compat_out', 'o04', 0, 0, now(), '{"n": 4}');
SELECT * FROM fetchq.doc_push('compat_out', 'o05', 3, 0, now(), '{"n": 5}');
SELECT * FROM fetchq.doc_push('compat_out', 'o06', 0, 0, now(), '{"n": 6}');
SELECT * FROM fetchq.doc_push('compat_out', 'o07', 0, 0, now(), '{"n": 7}');
SELECT * FROM fetchq.doc_push('compat_out', 'o08', 0, 0, now(), '{"n": 8}');
SELECT * FROM fetchq.doc_push('compat_out', 'o09', 0, 0, now(), '{"n": 9}');
SELECT * FROM fetchq.doc_push('compat_out', 'o10', 0, 0, now(), '{"n": 10}');
SELECT * FROM fetchq.doc_push('compat_out', 'o11', 0, 0, now(), '{"n": 11}');
SELECT * FROM fetchq.doc_push('compat_out', 'o12 ü/😀', 0, 0, now(), '{"n": 12}');
-- Left pending, and planned: never active.
SELECT * FROM fetchq.doc_push('compat_out', 'o13', 0, 0, now(), '{"n": 13}');
SELECT * FROM fetchq.doc_push('compat_out', 'o14', 0, 0, now() + interval '1 hour', '{"n": 14}');

SELECT count(*) AS picked FROM fetchq.doc_pick('compat_out', 0, 11, '5m');
SELECT count(*) AS picked FROM fetchq.doc_pick('compat_out', 3, 1, '5m');

-- complete
SELECT * FROM fetchq.doc_complete('compat_out', 'o01');
SELECT * FROM fetchq.doc_complete('compat_out', 'o01');
SELECT * FROM fetchq.doc_complete('compat_out', 'o02', '{"result": "done"}');
-- kill
SELECT * FROM fetchq.doc_kill('compat_out', 'o03');
SELECT * FROM fetchq.doc_kill('compat_out', 'o03');
SELECT * FROM fetchq.doc_kill('compat_out', 'o04', '{"result": "killed"}');
-- drop (of another version)
SELECT * FROM fetchq.doc_drop('compat_out', 'o05');
SELECT * FROM fetchq.doc_drop('compat_out', 'o05');
-- reschedule: future is planned, past pending
SELECT * FROM fetchq.doc_reschedule('compat_out', 'o06', now() + interval '1 hour');
SELECT * FROM fetchq.doc_reschedule('compat_out', 'o06', now() + interval '1 hour');
SELECT * FROM fetchq.doc_reschedule('compat_out', 'o07', now() - interval '1 minute', '{"rescheduled": true}');
SELECT * FROM fetchq.doc_reschedule('compat_out', 'o08', '2999-01-01 00:00:00+00'::timestamptz, '{"far": "future"}');
-- now() itself is due: pending.
SELECT * FROM fetchq.doc_reschedule('compat_out', 'o11', now());
-- reject: back to pending while attempts < max_attempts (5)
SELECT * FROM fetchq.doc_reject('compat_out', 'o09', 'something failed', '{"code": 42}');
SELECT * FROM fetchq.doc_reject('compat_out', 'o09', 'something failed', '{"code": 42}');
SELECT * FROM fetchq.doc_reject('compat_out', 'o10', 'with a reference', '{"attempt": [1, 2]}', 'ref-123');
SELECT * FROM fetchq.doc_reject('compat_out', 'o12 ü/😀', 'ünïcödé message 😀', '{"text": "日本"}', 'ref ü');

-- Nothing happens to documents that are not active, or unknown.
SELECT * FROM fetchq.doc_complete('compat_out', 'o13');
SELECT * FROM fetchq.doc_complete('compat_out', 'o14', '{"x": 1}');
SELECT * FROM fetchq.doc_kill('compat_out', 'o13');
SELECT * FROM fetchq.doc_kill('compat_out', 'o14', '{"x": 1}');
SELECT * FROM fetchq.doc_drop('compat_out', 'o13');
SELECT * FROM fetchq.doc_reschedule('compat_out', 'o13', now() + interval '1 hour');
SELECT * FROM fetchq.doc_reschedule('compat_out', 'o14', now(), '{"x": 1}');
SELECT * FROM fetchq.doc_reject('compat_out', 'o13', 'msg', '{}');
SELECT * FROM fetchq.doc_reject('compat_out', 'o14', 'msg', '{}', 'ref');
SELECT * FROM fetchq.doc_complete('compat_out', 'nope');
SELECT * FROM fetchq.doc_kill('compat_out', 'nope');
SELECT * FROM fetchq.doc_drop('compat_out', 'nope');
SELECT * FROM fetchq.doc_reschedule('compat_out', 'nope', now());
SELECT * FROM fetchq.doc_reject('compat_out', 'nope', 'msg', '{}');
-- Finished documents cannot be finished again.
SELECT * FROM fetchq.doc_kill('compat_out', 'o01');
SELECT * FROM fetchq.doc_complete('compat_out', 'o03');
SELECT * FROM fetchq.doc_drop('compat_out', 'o02');
SELECT * FROM fetchq.doc_reject('compat_out', 'o04', 'msg', '{}');

SELECT subject, version, status, attempts, iterations, payload,
       next_iteration > now() AS in_future,
       last_iteration IS NOT NULL AS has_last_iteration,
       lock_upgrade IS NULL AS no_lock_upgrade
FROM fetchq_data.compat_out__docs ORDER BY subject;

-- Completed documents are parked far in the future.
SELECT subject, next_iteration FROM fetchq_data.compat_out__docs WHERE status = 3 ORDER BY subject;
SELECT subject, next_iteration FROM fetchq_data.compat_out__docs WHERE subject = 'o08';

-- Active documents keep the lock of their pick.
SELECT subject, next_iteration - now() BETWEEN interval '4 minutes' AND interval '5 minutes' AS locked
FROM fetchq_data.compat_out__docs WHERE status = 2 ORDER BY subject;

SELECT subject, message, details, ref_id, created_at IS NOT NULL AS has_created_at
FROM fetchq_data.compat_out__logs ORDER BY id;

-- The rescheduled past document is picked again, attempts start over.
SELECT subject, attempts, iterations, payload FROM fetchq.doc_pick('compat_out', 0, 10, '5m') ORDER BY subject;

SELECT was_dropped FROM fetchq.queue_drop('compat_out');
