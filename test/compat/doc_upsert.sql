-- doc_upsert: push a new document, or update priority, payload and
-- next_iteration of one that is not active (its status and version stay).
SELECT was_created FROM fetchq.queue_create('compat_ups');

-- New documents.
SELECT * FROM fetchq.doc_upsert('compat_ups', 'u1', 0, 1, now(), '{"rev": 1}');
SELECT * FROM fetchq.doc_upsert('compat_ups', 'u2', 0, 1, now() + interval '1 hour', '{"rev": 1}');
SELECT * FROM fetchq.doc_upsert('compat_ups', 'u3', 2, 1, now(), '{"rev": 1}');
SELECT * FROM fetchq.doc_push('compat_ups', 'u4', '{"rev": 1}');

-- Existing pending / planned ones are updated; the version argument is not applied.
SELECT * FROM fetchq.doc_upsert('compat_ups', 'u1', 0, 7, now() + interval '2 hours', '{"rev": 2}');
SELECT * FROM fetchq.doc_upsert('compat_ups', 'u2', 0, 8, now() - interval '2 hours', '{"rev": 2}');
SELECT * FROM fetchq.doc_upsert('compat_ups', 'u3', 9, 9, now(), '{"rev": 2}');

-- An active document is left alone.
SELECT subject FROM fetchq.doc_pick('compat_ups', 0, 1, '5m');
SELECT * FROM fetchq.doc_upsert('compat_ups', 'u4', 0, 5, now(), '{"rev": 2}');

-- A completed one is updated (and stays completed).
SELECT * FROM fetchq.doc_complete('compat_ups', 'u4');
SELECT * FROM fetchq.doc_upsert('compat_ups', 'u4', 0, 6, now(), '{"rev": 3}');

SELECT subject, version, priority, status, attempts, iterations, payload,
       next_iteration > now() AS in_future
FROM fetchq_data.compat_ups__docs
ORDER BY subject;

SELECT was_dropped FROM fetchq.queue_drop('compat_ups');
