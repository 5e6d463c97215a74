-- lock_upgrade (a column Fetchq 4 sets no value in, but honours): documents
-- with one are never picked, promoted, re-queued or upserted; a rejected one
-- gets its lock_upgrade moved to now().
SELECT was_created FROM fetchq.queue_create('compat_lku');

SELECT * FROM fetchq.doc_push('compat_lku', 'l1', '{}');
SELECT * FROM fetchq.doc_push('compat_lku', 'l2', '{}');
SELECT * FROM fetchq.doc_push('compat_lku', 'l3', '{}');
UPDATE fetchq_data.compat_lku__docs SET lock_upgrade = '2001-01-01 00:00:00+00' WHERE subject = 'l1';
SELECT subject FROM fetchq.doc_pick('compat_lku', 0, 10, '5m') ORDER BY subject;
SELECT * FROM fetchq.doc_upsert('compat_lku', 'l1', 0, 9, now(), '{"upserted": true}');
SELECT * FROM fetchq.doc_upsert('compat_lku', 'l2', 0, 9, now(), '{"upserted": true}');

-- An active document that gets a lock_upgrade, then is rejected.
UPDATE fetchq_data.compat_lku__docs SET lock_upgrade = '2001-01-01 00:00:00+00' WHERE subject = 'l2';
SELECT * FROM fetchq.doc_reject('compat_lku', 'l2', 'upgraded', '{}');
SELECT subject, status, lock_upgrade > '2001-01-01 00:00:00+00' AS lock_upgrade_moved
FROM fetchq_data.compat_lku__docs WHERE subject = 'l2';
-- Without one, it stays NULL.
SELECT * FROM fetchq.doc_reject('compat_lku', 'l3', 'plain', '{}');
SELECT subject, status, lock_upgrade FROM fetchq_data.compat_lku__docs WHERE subject = 'l3';
-- The other outcomes do not look at it (made active by hand, in one
-- transaction so that no maintenance sees an expired lock).
BEGIN;
UPDATE fetchq_data.compat_lku__docs SET status = 2 WHERE subject = 'l1';
SELECT * FROM fetchq.doc_complete('compat_lku', 'l1');
COMMIT;

SELECT subject, status, priority, payload, attempts, iterations, lock_upgrade IS NULL AS no_lock_upgrade
FROM fetchq_data.compat_lku__docs ORDER BY subject;

SELECT was_dropped FROM fetchq.queue_drop('compat_lku');
