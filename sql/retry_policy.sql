-- A queue's retry policy: when a rejected document or an orphan is pickable
-- again. Off by default (Fetchq 4: a rejected document waits for the end of
-- its lock, an orphan is pickable at once).
SET client_min_messages = warning;
SELECT was_created FROM fetchq.queue_create('rp');
SELECT fetchq.doc_push('rp', 'a', 0, 0, now() - interval '1 second', '{}');

-- Off: the rejected document keeps its lock end.
SELECT subject FROM fetchq.doc_pick('rp', 0, 1, '5 minutes');
SELECT * FROM fetchq.doc_reject('rp', 'a', 'no policy', '{}');
SELECT next_iteration BETWEEN now() + interval '4 minutes' AND now() + interval '5 minutes' AS at_lock_end
FROM fetchq_data.rp__docs;

-- delay 10 s, factor 2: 10 s after the first attempt, 20 s after the second,
-- at most max_delay.
SELECT * FROM fetchq.queue_set_retry_policy('rp', '10 seconds', 2, '30 seconds');
SELECT retry_delay, retry_factor, retry_max_delay, retry_jitter FROM fetchq.queues WHERE name = 'rp';
UPDATE fetchq_data.rp__docs SET next_iteration = now() - interval '1 second', attempts = 0;
SELECT subject, attempts FROM fetchq.doc_pick('rp', 0, 1, '5 minutes');
SELECT * FROM fetchq.doc_reject('rp', 'a', 'first', '{}');
SELECT round(extract(epoch FROM next_iteration - now())) AS seconds FROM fetchq_data.rp__docs;
UPDATE fetchq_data.rp__docs SET next_iteration = now() - interval '1 second';
SELECT subject, attempts FROM fetchq.doc_pick('rp', 0, 1, '5 minutes');
SELECT * FROM fetchq.doc_reject('rp', 'a', 'second', '{}');
SELECT round(extract(epoch FROM next_iteration - now())) AS seconds FROM fetchq_data.rp__docs;
UPDATE fetchq_data.rp__docs SET next_iteration = now() - interval '1 second';
SELECT subject, attempts FROM fetchq.doc_pick('rp', 0, 1, '5 minutes');
SELECT * FROM fetchq.doc_reject('rp', 'a', 'third', '{}');         -- 40 s, capped at 30
SELECT round(extract(epoch FROM next_iteration - now())) AS seconds FROM fetchq_data.rp__docs;
-- A delay given to doc_reject wins over the policy.
UPDATE fetchq_data.rp__docs SET next_iteration = now() - interval '1 second', attempts = 0;
SELECT subject FROM fetchq.doc_pick('rp', 0, 1, '5 minutes');
SELECT * FROM fetchq.doc_reject('rp', 'a', 'mine', '{}', NULL, '2 seconds');
SELECT round(extract(epoch FROM next_iteration - now())) AS seconds FROM fetchq_data.rp__docs;

-- Orphans wait for the policy too.
UPDATE fetchq_data.rp__docs SET next_iteration = now() - interval '1 second', attempts = 0;
SELECT subject FROM fetchq.doc_pick('rp', 0, 1, '5 minutes');
UPDATE fetchq_data.rp__docs SET next_iteration = now() - interval '1 second';
SELECT * FROM fetchq.mnt_reschedule_orphans('rp', 10);
SELECT status, round(extract(epoch FROM next_iteration - now())) AS seconds FROM fetchq_data.rp__docs;

-- Jitter spreads the delay by up to that fraction either way.
SELECT * FROM fetchq.queue_set_retry_policy('rp', '100 seconds', 1, NULL, 0.5);
UPDATE fetchq_data.rp__docs SET status = 1, next_iteration = now() - interval '1 second', attempts = 0;
SELECT subject FROM fetchq.doc_pick('rp', 0, 1, '5 minutes');
SELECT * FROM fetchq.doc_reject('rp', 'a', 'jitter', '{}');
SELECT next_iteration BETWEEN now() + interval '49 seconds' AND now() + interval '151 seconds' AS within_jitter
FROM fetchq_data.rp__docs;

-- Off again, and errors.
SELECT * FROM fetchq.queue_set_retry_policy('rp', NULL);
SELECT retry_delay IS NULL AS off FROM fetchq.queues WHERE name = 'rp';
SELECT * FROM fetchq.queue_set_retry_policy('rp', '-1 second');
SELECT * FROM fetchq.queue_set_retry_policy('rp', '1 second', 0.5);
SELECT * FROM fetchq.queue_set_retry_policy('rp', '1 second', 2, NULL, 2);
SELECT * FROM fetchq.queue_set_retry_policy('rp_missing', '1 second');
SELECT was_dropped FROM fetchq.queue_drop('rp');
