-- Dead letters: a copy of every killed document goes to the queue's
-- dead-letter queue, in the same transaction, under the same subject.
SET client_min_messages = warning;
SELECT fetchq.queue_create(q) IS NOT NULL FROM unnest(ARRAY['dl_src', 'dl_dlq']) AS q;
SELECT * FROM fetchq.queue_set_dead_letter('dl_src', 'dl_dlq');
SELECT affected_rows FROM fetchq.queue_set_max_attempts('dl_src', 1);
SELECT fetchq.doc_push('dl_src', s, 0, 0, now() - interval '1 second', jsonb_build_object('n', s))
FROM unnest(ARRAY['a', 'b', 'c', 'd']) AS s;
SELECT count(*) FROM fetchq.doc_pick('dl_src', 0, 10, '1 minute');

-- doc_kill, doc_reject past max_attempts, the orphan pass past max_attempts.
SELECT * FROM fetchq.doc_kill('dl_src', 'a');
SELECT * FROM fetchq.doc_reject('dl_src', 'b', 'gave up', '{}');
UPDATE fetchq_data.dl_src__docs SET next_iteration = now() - interval '1 second' WHERE subject = 'c';
SELECT * FROM fetchq.mnt_mark_dead('dl_src', 10);
SELECT * FROM fetchq.doc_complete('dl_src', 'd');                          -- not killed: no copy
SELECT subject, status FROM fetchq_data.dl_src__docs ORDER BY subject;
SELECT subject, status, payload FROM fetchq_data.dl_dlq__docs ORDER BY subject;
SELECT metric, current_value FROM fetchq.metric_get('dl_dlq') WHERE metric IN ('cnt', 'pnd', 'ent')
ORDER BY metric;

-- A killed document that is retried and killed again: the copy is already
-- there (same subject), so nothing is added; the copy shows the latest death
-- (test/dead_letters_test.sh).
SELECT * FROM fetchq.doc_retry('dl_src', 'a');
SELECT count(*) FROM fetchq.doc_pick('dl_src', 0, 10, '1 minute');
SELECT * FROM fetchq.doc_kill('dl_src', 'a');
SELECT count(*) AS copies FROM fetchq_data.dl_dlq__docs;

-- A killed document rolled back: no copy either.
BEGIN;
SELECT * FROM fetchq.doc_retry('dl_src', 'c');
SELECT count(*) FROM fetchq.doc_pick('dl_src', 0, 10, '1 minute');
SELECT fetchq.doc_push('dl_src', 'e', 0, 0, now() - interval '1 second', '{}');
SELECT subject FROM fetchq.doc_pick('dl_src', 0, 10, '1 minute') ORDER BY 1;
SELECT * FROM fetchq.doc_kill('dl_src', 'e');
SELECT count(*) AS copies_inside FROM fetchq_data.dl_dlq__docs;
ROLLBACK;
SELECT count(*) AS copies_after_rollback FROM fetchq_data.dl_dlq__docs;

-- Without a dead-letter queue nothing is copied.
SELECT * FROM fetchq.queue_set_dead_letter('dl_src', NULL);
SELECT * FROM fetchq.doc_retry('dl_src', 'b');
SELECT count(*) FROM fetchq.doc_pick('dl_src', 0, 10, '1 minute');
SELECT * FROM fetchq.doc_kill('dl_src', 'b');
SELECT count(*) AS copies FROM fetchq_data.dl_dlq__docs;

-- Errors.
SELECT * FROM fetchq.queue_set_dead_letter('dl_src', 'dl_src');
SELECT * FROM fetchq.queue_set_dead_letter('dl_src', 'dl_missing');
SELECT * FROM fetchq.queue_set_dead_letter('dl_missing', 'dl_dlq');
SELECT * FROM fetchq.queue_set_dead_letter('dl_src', 'Bad');
SELECT bool_and(was_dropped) FROM unnest(ARRAY['dl_src', 'dl_dlq']) AS q, fetchq.queue_drop(q);
