-- doc_pick returns its documents in pick order (priority, highest first,
-- then next_iteration, then attempts), whatever their order in the table.
SET client_min_messages = warning;
SELECT was_created FROM fetchq.queue_create('po');
SELECT fetchq.doc_push('po', 'a_low_late', 0, 0, now() - interval '1 hour', '{}');
SELECT fetchq.doc_push('po', 'b_high_late', 0, 5, now() - interval '1 minute', '{}');
SELECT fetchq.doc_push('po', 'c_high_early', 0, 5, now() - interval '2 hours', '{}');
SELECT fetchq.doc_push('po', 'd_low_early', 0, 0, now() - interval '3 hours', '{}');
SELECT fetchq.doc_push('po', 'e_mid', 0, 3, now() - interval '1 second', '{}');
SELECT fetchq.doc_push('po', 'f_low_latest', 0, 0, now() - interval '2 seconds', '{}');
-- two, then the rest (from where the first pick stopped)
SELECT n, subject, priority FROM fetchq.doc_pick('po', 0, 2, '5 minutes') WITH ORDINALITY AS p(subject, payload, version, priority, attempts, iterations, created_at, last_iteration, next_iteration, lock_upgrade, n);
SELECT n, subject, priority FROM fetchq.doc_pick('po', 0, 10, '5 minutes') WITH ORDINALITY AS p(subject, payload, version, priority, attempts, iterations, created_at, last_iteration, next_iteration, lock_upgrade, n);
SELECT was_dropped FROM fetchq.queue_drop('po');
