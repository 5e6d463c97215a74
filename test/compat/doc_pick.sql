-- doc_pick in each overload: which documents, in which order, what they look
-- like when returned, and the lock they get.
-- requires: fetchq.doc_pick(varchar); fetchq.doc_pick(varchar, integer);
-- requires: fetchq.doc_pick(varchar, varchar); fetchq.doc_pick(varchar, integer, integer, varchar)
SELECT was_created FROM fetchq.queue_create('compat_pick');

-- Pick order is priority DESC, next_iteration, attempts. Each push is its own
-- transaction, so equal priorities go first in, first out.
SELECT * FROM fetchq.doc_push('compat_pick', 'k01', 0, 0, now() - interval '10 minutes', '{"n": 1}');
SELECT * FROM fetchq.doc_push('compat_pick', 'k02', 0, 0, now() - interval '20 minutes', '{"n": 2}');
SELECT * FROM fetchq.doc_push('compat_pick', 'k03', 0, 5, now() - interval '1 minute', '{"n": 3}');
SELECT * FROM fetchq.doc_push('compat_pick', 'k04', 0, 5, now() - interval '2 minutes', '{"n": 4}');
SELECT * FROM fetchq.doc_push('compat_pick', 'k05', 0, -5, now() - interval '1 day', '{"n": 5}');
SELECT * FROM fetchq.doc_push('compat_pick', 'k06', 0, 0, now() - interval '5 minutes', '{"n": 6}');
SELECT * FROM fetchq.doc_push('compat_pick', 'k07', 0, 0, now() - interval '4 minutes', '{"n": 7}');
SELECT * FROM fetchq.doc_push('compat_pick', 'k08', 0, 0, now() - interval '3 minutes', '{"n": 8}');
-- Other versions, planned documents: never picked by a version 0 pick.
SELECT * FROM fetchq.doc_push('compat_pick', 'k09', 1, 100, now() - interval '1 hour', '{"n": 9}');
SELECT * FROM fetchq.doc_push('compat_pick', 'k10', 1, 0, now() - interval '1 hour', '{"n": 10}');
SELECT * FROM fetchq.doc_push('compat_pick', 'k11', 0, 100, now() + interval '1 hour', '{"n": 11}');

-- (queue): one document, locked for 5 minutes.
SELECT subject, payload, version, priority, attempts, iterations,
       created_at IS NOT NULL AS has_created_at, last_iteration, next_iteration - now() AS locked_for,
       lock_upgrade
FROM fetchq.doc_pick('compat_pick');

-- (queue, limit)
SELECT subject, payload, version, priority, attempts, iterations, next_iteration - now() AS locked_for
FROM fetchq.doc_pick('compat_pick', 2) ORDER BY subject;

-- (queue, duration)
SELECT subject, attempts, next_iteration - now() AS locked_for
FROM fetchq.doc_pick('compat_pick', '10 minutes');

-- (queue, version, limit, duration)
SELECT subject, attempts, next_iteration - now() AS locked_for
FROM fetchq.doc_pick('compat_pick', 0, 2, '1h') ORDER BY subject;

-- Limit 0 takes nothing.
SELECT subject FROM fetchq.doc_pick('compat_pick', 0, 0, '5m');

-- Another version.
SELECT subject, version, priority, next_iteration - now() AS locked_for
FROM fetchq.doc_pick('compat_pick', 1, 10, '2 days') ORDER BY subject;

-- More than what is left: the rest of version 0 (k05 and k08).
SELECT subject, priority, next_iteration - now() AS locked_for
FROM fetchq.doc_pick('compat_pick', 0, 100, '30m') ORDER BY subject;

-- Nothing pending any more.
SELECT subject FROM fetchq.doc_pick('compat_pick');
SELECT subject FROM fetchq.doc_pick('compat_pick', 5);
SELECT subject FROM fetchq.doc_pick('compat_pick', 0, 10, '5m');
SELECT subject FROM fetchq.doc_pick('compat_pick', 7, 10, '5m');

SELECT subject, version, priority, status, attempts, iterations, payload
FROM fetchq_data.compat_pick__docs ORDER BY subject;

-- A document back to pending is picked again, its attempts counted.
SELECT * FROM fetchq.doc_reschedule('compat_pick', 'k01', now() - interval '1 minute');
SELECT subject, attempts, iterations FROM fetchq.doc_pick('compat_pick', 0, 5, '5m');
SELECT * FROM fetchq.doc_reject('compat_pick', 'k01', 'again', '{}');
SELECT subject, attempts, iterations FROM fetchq.doc_pick('compat_pick', 0, 5, '5m');

-- Equal priority and next_iteration: fewer attempts first.
SELECT * FROM fetchq.doc_push('compat_pick', 0, now(),
    '(''t1'', 0, ''{}'', {DATA}), (''t2'', 0, ''{}'', {DATA}), (''t3'', 0, ''{}'', {DATA})');
UPDATE fetchq_data.compat_pick__docs SET attempts = 3, next_iteration = '2001-01-01 00:00:00+00' WHERE subject = 't1';
UPDATE fetchq_data.compat_pick__docs SET attempts = 1, next_iteration = '2001-01-01 00:00:00+00' WHERE subject = 't2';
UPDATE fetchq_data.compat_pick__docs SET attempts = 2, next_iteration = '2001-01-01 00:00:00+00' WHERE subject = 't3';
SELECT subject, attempts FROM fetchq.doc_pick('compat_pick', 0, 1, '5m');
SELECT subject, attempts FROM fetchq.doc_pick('compat_pick', 0, 1, '5m');
SELECT subject, attempts FROM fetchq.doc_pick('compat_pick', 0, 1, '5m');

-- Lock durations written in the ways Fetchq accepted them.
SELECT * FROM fetchq.doc_push('compat_pick', 'd01', '{}');
SELECT * FROM fetchq.doc_push('compat_pick', 'd02', '{}');
SELECT * FROM fetchq.doc_push('compat_pick', 'd03', '{}');
SELECT * FROM fetchq.doc_push('compat_pick', 'd04', '{}');
SELECT * FROM fetchq.doc_push('compat_pick', 'd05', '{}');
SELECT * FROM fetchq.doc_push('compat_pick', 'd06', '{}');
SELECT * FROM fetchq.doc_push('compat_pick', 'd07', '{}');
SELECT subject, next_iteration - now() AS locked_for FROM fetchq.doc_pick('compat_pick', 0, 1, '5m');
SELECT subject, next_iteration - now() AS locked_for FROM fetchq.doc_pick('compat_pick', 0, 1, '90s');
SELECT subject, next_iteration - now() AS locked_for FROM fetchq.doc_pick('compat_pick', 0, 1, '1h30m');
SELECT subject, next_iteration - now() AS locked_for FROM fetchq.doc_pick('compat_pick', 0, 1, '2 days');
SELECT subject, next_iteration - now() AS locked_for FROM fetchq.doc_pick('compat_pick', 0, 1, '1d');
SELECT subject, next_iteration - now() AS locked_for FROM fetchq.doc_pick('compat_pick', 0, 1, '45 seconds');
SELECT subject, next_iteration - now() AS locked_for FROM fetchq.doc_pick('compat_pick', 0, 1, '00:20:00');

SELECT was_dropped FROM fetchq.queue_drop('compat_pick');
