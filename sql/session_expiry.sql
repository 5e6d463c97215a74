-- fetchq's own features at the SQL level: expiry, session-bound picks,
-- temporary queues. (What the scheduler does with them: test/worker_test.sh.)
SET client_min_messages = warning;
SELECT was_created FROM fetchq.queue_create('sx_q');

-- expires_at: given, or now() + the queue's default_ttl, or none
SELECT fetchq.doc_push('sx_q', 'e_given', 0, 0, now(), '{}', now() + interval '1 hour');
SELECT fetchq.doc_push('sx_q', 'e_none', 0, 0, now(), '{}', NULL);
SELECT fetchq.queue_set_default_ttl('sx_q', '10m');
SELECT default_ttl FROM fetchq.queues WHERE name = 'sx_q';
SELECT fetchq.doc_push('sx_q', 'e_ttl');
SELECT fetchq.doc_push_many('sx_q', ARRAY['e_many']);
SELECT fetchq.doc_push('sx_q', 'e_override', 0, 0, now(), '{}', now() + interval '2 hours');
SELECT subject, expires_at - created_at AS ttl FROM fetchq_data.sx_q__docs ORDER BY subject;
SELECT fetchq.queue_set_default_ttl('sx_q', NULL);
SELECT fetchq.doc_push('sx_q', 'e_after_reset');
SELECT expires_at IS NULL AS no_expiry FROM fetchq_data.sx_q__docs WHERE subject = 'e_after_reset';
SELECT fetchq.queue_set_default_ttl('sx_q', '-5m');
SELECT fetchq.queue_set_default_ttl('sx_q', '0s');
SELECT fetchq.queue_set_default_ttl('sx_q', 'soon');
SELECT fetchq.queue_set_default_ttl('no_such_queue', '1m');

-- an expired document is never picked, even before the scheduler deletes it
UPDATE fetchq_data.sx_q__docs SET expires_at = now() - interval '1 second'
WHERE subject = 'e_given';
SELECT subject FROM fetchq.doc_pick('sx_q', 0, 10, '5m') ORDER BY subject;
SELECT status FROM fetchq_data.sx_q__docs WHERE subject = 'e_given';

-- session_bound picks carry the session's key; finishing a document clears it
SELECT fetchq.doc_push_many('sx_q', ARRAY['s1', 's2', 's3', 's4']);
SELECT count(*) FROM fetchq.doc_pick('sx_q', 0, 2, '5m', true);
SELECT count(*) FROM fetchq.doc_pick('sx_q', 0, 2, '5m', false);
SELECT subject, status, lock_session IS NOT NULL AS session_bound
FROM fetchq_data.sx_q__docs WHERE subject LIKE 's_' ORDER BY subject;
SELECT count(DISTINCT lock_session) AS one_session FROM fetchq_data.sx_q__docs
WHERE lock_session IS NOT NULL;
SELECT fetchq.doc_complete('sx_q', 's1'), fetchq.doc_reschedule('sx_q', 's2', now());
SELECT subject, status, lock_session IS NOT NULL AS session_bound
FROM fetchq_data.sx_q__docs WHERE subject LIKE 's_' ORDER BY subject;
SELECT * FROM fetchq.doc_pick('sx_q', 0, 1, '5m', NULL);

-- temporary queues: owned by this session, unlogged, usable like any queue
SELECT fetchq.queue_create_temporary() AS tmp \gset
SELECT :'tmp' ~ '^tmp_[0-9a-f]{32}$' AS well_formed;
SELECT owner_session IS NOT NULL AS owned FROM fetchq.queues WHERE name = :'tmp';
SELECT relname ~ '__(docs|logs|metrics)$' AS queue_table, relpersistence
FROM pg_class WHERE relnamespace = 'fetchq_data'::regnamespace AND relkind = 'r'
  AND relname LIKE :'tmp' || '%' ORDER BY relname;
SELECT fetchq.doc_push(:'tmp', 'reply');
SELECT subject FROM fetchq.doc_pick(:'tmp', 0, 1, '5m');
SELECT fetchq.queue_create_temporary() <> :'tmp' AS distinct_names;
SELECT count(*) AS temporary_queues FROM fetchq.queues WHERE owner_session IS NOT NULL;
-- dropped like any queue, too
SELECT was_dropped FROM fetchq.queue_drop(:'tmp');
SELECT name FROM fetchq.queues WHERE owner_session IS NOT NULL
\gset other_
SELECT was_dropped FROM fetchq.queue_drop(:'other_name');

SELECT was_dropped FROM fetchq.queue_drop('sx_q');
