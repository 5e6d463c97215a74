-- Queue calls inside the caller's transaction: they commit and roll back
-- with it, savepoints included, and see their own earlier work.
SELECT was_created FROM fetchq.queue_create('compat_tx');

BEGIN;
SELECT * FROM fetchq.doc_push('compat_tx', 'a', '{}');
-- Pushed now, so due now: the same transaction can pick it.
SELECT subject, attempts FROM fetchq.doc_pick('compat_tx', 0, 10, '5m');
SELECT * FROM fetchq.doc_complete('compat_tx', 'a', '{"done": "in the same transaction"}');
SELECT * FROM fetchq.doc_push('compat_tx', 'b', '{}');
ROLLBACK;
SELECT count(*) AS docs FROM fetchq_data.compat_tx__docs;

BEGIN;
SELECT * FROM fetchq.doc_push('compat_tx', 'a', '{}');
SAVEPOINT s1;
SELECT * FROM fetchq.doc_push('compat_tx', 'b', '{}');
SELECT subject FROM fetchq.doc_pick('compat_tx', 0, 10, '5m') ORDER BY subject;
ROLLBACK TO SAVEPOINT s1;
SELECT * FROM fetchq.doc_push('compat_tx', 'b', '{"second": true}');
SAVEPOINT s2;
SELECT subject FROM fetchq.doc_pick('compat_tx', 0, 1, '5m');
RELEASE SAVEPOINT s2;
COMMIT;
SELECT subject, status, attempts, payload FROM fetchq_data.compat_tx__docs ORDER BY subject;

-- Many calls in one statement.
SELECT sum(queued_docs) AS queued
FROM generate_series(1, 20) AS g, fetchq.doc_push('compat_tx', 'g' || lpad(g::text, 2, '0'), '{}') AS p;
SELECT count(*) AS picked
FROM generate_series(1, 3) AS g, fetchq.doc_pick('compat_tx', 0, g, '5m') AS p;
SELECT sum(affected_rows) AS completed
FROM fetchq_data.compat_tx__docs AS d, fetchq.doc_complete('compat_tx', d.subject) AS c
WHERE d.subject LIKE 'g%';
SELECT status, count(*) FROM fetchq_data.compat_tx__docs WHERE subject LIKE 'g%'
GROUP BY status ORDER BY status;

-- A queue created and dropped inside a rolled back transaction never was.
BEGIN;
SELECT was_created FROM fetchq.queue_create('compat_tx2');
SELECT * FROM fetchq.doc_push('compat_tx2', 'x', '{}');
ROLLBACK;
SELECT count(*) AS queues FROM fetchq.queues WHERE name = 'compat_tx2';
SELECT was_created FROM fetchq.queue_create('compat_tx2');
SELECT * FROM fetchq.doc_push('compat_tx2', 'x', '{}');
BEGIN;
SELECT was_dropped FROM fetchq.queue_drop('compat_tx2');
ROLLBACK;
SELECT subject FROM fetchq_data.compat_tx2__docs;

SELECT was_dropped FROM fetchq.queue_drop('compat_tx');
SELECT was_dropped FROM fetchq.queue_drop('compat_tx2');
