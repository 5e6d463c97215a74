-- Maintenance: mnt_make_pending (planned -> pending when due),
-- mnt_reschedule_orphans (expired lock -> pending), mnt_mark_dead (expired
-- lock, attempts used up -> killed), mnt_run and mnt_run_all.
-- Documents are made due by moving next_iteration into the past, in the same
-- transaction as the maintenance call: fetchq's own background worker can
-- neither see nor take them first.
SELECT was_created FROM fetchq.queue_create('compat_mnt');
SELECT was_created FROM fetchq.queue_create('compat_mnt2');
UPDATE fetchq.queues SET max_attempts = 2 WHERE name = 'compat_mnt';

SELECT * FROM fetchq.doc_push('compat_mnt', 'p1', '{}', now() + interval '1 hour');
SELECT * FROM fetchq.doc_push('compat_mnt', 'p2', '{}', now() + interval '1 hour');
SELECT * FROM fetchq.doc_push('compat_mnt', 'p3', '{}', now() + interval '1 hour');
SELECT * FROM fetchq.doc_push('compat_mnt', 'p4', '{}', now() + interval '1 hour');
SELECT * FROM fetchq.doc_push('compat_mnt', 'a1', '{}');
SELECT * FROM fetchq.doc_push('compat_mnt', 'a2', '{}');
SELECT * FROM fetchq.doc_push('compat_mnt', 'a3', '{}');
SELECT * FROM fetchq.doc_push('compat_mnt', 'a4', '{}');
SELECT subject, attempts FROM fetchq.doc_pick('compat_mnt', 0, 4, '5m') ORDER BY subject;
-- a3 and a4 get a second attempt: max_attempts (2) used up.
SELECT * FROM fetchq.doc_reject('compat_mnt', 'a3', 'first', '{}');
SELECT * FROM fetchq.doc_reject('compat_mnt', 'a4', 'first', '{}');
UPDATE fetchq_data.compat_mnt__docs SET next_iteration = now() - interval '1 second'
WHERE subject IN ('a3', 'a4');
SELECT subject, attempts FROM fetchq.doc_pick('compat_mnt', 0, 4, '5m') ORDER BY subject;

-- Nothing is due yet.
SELECT * FROM fetchq.mnt_make_pending('compat_mnt', 100);
SELECT * FROM fetchq.mnt_reschedule_orphans('compat_mnt', 100);
SELECT * FROM fetchq.mnt_mark_dead('compat_mnt', 100);
SELECT * FROM fetchq.mnt_run('compat_mnt', 100);

-- Planned documents, oldest first, within the limit.
BEGIN;
UPDATE fetchq_data.compat_mnt__docs SET next_iteration = now() - interval '3 minutes' WHERE subject = 'p1';
UPDATE fetchq_data.compat_mnt__docs SET next_iteration = now() - interval '2 minutes' WHERE subject = 'p2';
UPDATE fetchq_data.compat_mnt__docs SET next_iteration = now() - interval '1 minute' WHERE subject = 'p3';
SELECT * FROM fetchq.mnt_make_pending('compat_mnt', 2);
SELECT subject, status FROM fetchq_data.compat_mnt__docs WHERE subject LIKE 'p%' ORDER BY subject;
SELECT * FROM fetchq.mnt_make_pending('compat_mnt', 0);
SELECT * FROM fetchq.mnt_make_pending('compat_mnt', 100);
SELECT * FROM fetchq.mnt_make_pending('compat_mnt', 100);
COMMIT;
SELECT subject, status, attempts FROM fetchq_data.compat_mnt__docs WHERE subject LIKE 'p%' ORDER BY subject;

-- Expired locks: a1, a2 (1 attempt) back to pending, a3 (2 attempts) killed.
BEGIN;
UPDATE fetchq_data.compat_mnt__docs SET next_iteration = now() - interval '1 minute'
WHERE subject IN ('a1', 'a2', 'a3');
SELECT * FROM fetchq.mnt_reschedule_orphans('compat_mnt', 1);
SELECT * FROM fetchq.mnt_reschedule_orphans('compat_mnt', 100);
SELECT * FROM fetchq.mnt_reschedule_orphans('compat_mnt', 100);
SELECT * FROM fetchq.mnt_mark_dead('compat_mnt', 100);
SELECT * FROM fetchq.mnt_mark_dead('compat_mnt', 100);
COMMIT;
SELECT subject, status, attempts, iterations FROM fetchq_data.compat_mnt__docs
WHERE subject LIKE 'a%' ORDER BY subject;
-- Orphans keep their attempts; picked again they count one more.
SELECT subject, attempts FROM fetchq.doc_pick('compat_mnt', 0, 10, '5m') ORDER BY subject;

-- mnt_run does all three: (activated, rescheduled, killed).
BEGIN;
UPDATE fetchq_data.compat_mnt__docs SET next_iteration = now() - interval '1 minute'
WHERE subject IN ('p4', 'a1', 'a2', 'a4');
SELECT * FROM fetchq.mnt_run('compat_mnt', 100);
SELECT * FROM fetchq.mnt_run('compat_mnt', 100);
COMMIT;
SELECT subject, status, attempts FROM fetchq_data.compat_mnt__docs ORDER BY subject;

-- mnt_run_all: every queue, one row each.
SELECT * FROM fetchq.doc_push('compat_mnt2', 'x1', '{}', now() + interval '1 hour');
SELECT * FROM fetchq.doc_push('compat_mnt', 'x2', '{}', now() + interval '1 hour');
BEGIN;
UPDATE fetchq_data.compat_mnt2__docs SET next_iteration = now() - interval '1 minute';
UPDATE fetchq_data.compat_mnt__docs SET next_iteration = now() - interval '1 minute' WHERE subject = 'x2';
SELECT * FROM fetchq.mnt_run_all(100) WHERE queue LIKE 'compat\_mnt%' ORDER BY queue;
SELECT * FROM fetchq.mnt_run_all(100) WHERE queue LIKE 'compat\_mnt%' ORDER BY queue;
COMMIT;
SELECT subject, status FROM fetchq_data.compat_mnt2__docs ORDER BY subject;

SELECT was_dropped FROM fetchq.queue_drop('compat_mnt');
SELECT was_dropped FROM fetchq.queue_drop('compat_mnt2');
