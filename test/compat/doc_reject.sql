-- doc_reject until the attempts run out: pending while attempts <
-- max_attempts, killed after. max_attempts is read from fetchq.queues, here
-- set directly (queue_set_max_attempts has its own scenario).
SELECT was_created FROM fetchq.queue_create('compat_rej');
UPDATE fetchq.queues SET max_attempts = 3 WHERE name = 'compat_rej';

SELECT * FROM fetchq.doc_push('compat_rej', 'r1', '{}');
SELECT * FROM fetchq.doc_push('compat_rej', 'r2', '{}');

-- Rejected documents keep the next_iteration of their lock: make them due
-- again before each pick.
SELECT subject, attempts FROM fetchq.doc_pick('compat_rej', 0, 10, '5m') ORDER BY subject;
SELECT * FROM fetchq.doc_reject('compat_rej', 'r1', 'attempt 1', '{"try": 1}');
SELECT * FROM fetchq.doc_complete('compat_rej', 'r2');
SELECT subject, status, attempts, iterations FROM fetchq_data.compat_rej__docs ORDER BY subject;

UPDATE fetchq_data.compat_rej__docs SET next_iteration = now() - interval '1 second' WHERE subject = 'r1';
SELECT subject, attempts FROM fetchq.doc_pick('compat_rej', 0, 10, '5m');
SELECT * FROM fetchq.doc_reject('compat_rej', 'r1', 'attempt 2', '{"try": 2}', 'ref-2');
SELECT subject, status, attempts, iterations FROM fetchq_data.compat_rej__docs WHERE subject = 'r1';

UPDATE fetchq_data.compat_rej__docs SET next_iteration = now() - interval '1 second' WHERE subject = 'r1';
SELECT subject, attempts FROM fetchq.doc_pick('compat_rej', 0, 10, '5m');
SELECT * FROM fetchq.doc_reject('compat_rej', 'r1', 'attempt 3', '{"try": 3}');
-- Third attempt of three: killed.
SELECT subject, status, attempts, iterations FROM fetchq_data.compat_rej__docs WHERE subject = 'r1';
SELECT subject FROM fetchq.doc_pick('compat_rej', 0, 10, '5m');

-- Raising max_attempts does not revive it.
UPDATE fetchq.queues SET max_attempts = 10 WHERE name = 'compat_rej';
SELECT subject FROM fetchq.doc_pick('compat_rej', 0, 10, '5m');

-- max_attempts 1: the first rejection kills.
UPDATE fetchq.queues SET max_attempts = 1 WHERE name = 'compat_rej';
SELECT * FROM fetchq.doc_push('compat_rej', 'r3', '{}');
SELECT subject, attempts FROM fetchq.doc_pick('compat_rej', 0, 10, '5m');
SELECT * FROM fetchq.doc_reject('compat_rej', 'r3', 'first and last', '{}');
SELECT subject, status, attempts, iterations FROM fetchq_data.compat_rej__docs WHERE subject = 'r3';

SELECT subject, message, details, ref_id FROM fetchq_data.compat_rej__logs ORDER BY id;

SELECT was_dropped FROM fetchq.queue_drop('compat_rej');
