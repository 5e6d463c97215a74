-- Lease extension, fencing, rejection with a delay, retries of killed
-- documents (issue "job lifecycle table stakes"). One queue per part, so
-- that each pick takes the document the part is about.
SET client_min_messages = warning;
SELECT fetchq.queue_create(q) IS NOT NULL FROM unnest(ARRAY['lcf', 'lce', 'lcr', 'lck']) AS q;

-- Fencing with two workers: A picks a, its lock expires, B picks it again;
-- A's late outcomes change nothing, B's goes through.
SELECT fetchq.doc_push('lcf', 'a', 0, 0, now() - interval '1 second', '{}');
SELECT subject, attempts FROM fetchq.doc_pick('lcf', 0, 1, '1 minute');   -- worker A
UPDATE fetchq_data.lcf__docs SET next_iteration = now() - interval '1 second';
SELECT * FROM fetchq.mnt_reschedule_orphans('lcf', 10);
SELECT subject, attempts FROM fetchq.doc_pick('lcf', 0, 1, '1 minute');   -- worker B
SELECT * FROM fetchq.doc_complete('lcf', 'a', NULL, 1);                   -- A: stale
SELECT * FROM fetchq.doc_extend('lcf', 'a', '1 hour', 1);
SELECT * FROM fetchq.doc_reject('lcf', 'a', 'late', '{}', NULL, NULL, 1);
SELECT * FROM fetchq.doc_reschedule('lcf', 'a', now(), NULL, 1);
SELECT * FROM fetchq.doc_kill('lcf', 'a', NULL, 1);
SELECT * FROM fetchq.doc_drop('lcf', 'a', 1);
SELECT status, attempts FROM fetchq_data.lcf__docs WHERE subject = 'a';
SELECT * FROM fetchq.doc_complete('lcf', 'a', '{"by": "B"}', 2);          -- B
SELECT status, payload FROM fetchq_data.lcf__docs WHERE subject = 'a';
-- NULL attempts: no fence, as in the Fetchq 4 forms.
SELECT fetchq.doc_push('lcf', 'b', 0, 0, now() - interval '1 second', '{}');
SELECT subject FROM fetchq.doc_pick('lcf', 0, 1, '1 minute');
SELECT * FROM fetchq.doc_drop('lcf', 'b', NULL);

-- Lease extension: the lock ends `duration` from now; an extended document
-- survives the orphan pass past its first lock end.
SELECT fetchq.doc_push('lce', 'e', 0, 0, now() - interval '1 second', '{}');
SELECT * FROM fetchq.doc_extend('lce', 'e', '1 hour');                     -- not active yet
SELECT subject FROM fetchq.doc_pick('lce', 0, 1, '1 second');
SELECT * FROM fetchq.doc_extend('lce', 'e', '1 hour');
UPDATE fetchq_data.lce__docs SET next_iteration = next_iteration - interval '1 minute';
SELECT * FROM fetchq.mnt_reschedule_orphans('lce', 10);
SELECT status, next_iteration > now() + interval '58 minutes' AS extended FROM fetchq_data.lce__docs;
SELECT * FROM fetchq.doc_extend('lce', 'e', '0s');
SELECT * FROM fetchq.doc_extend('lce', 'e', '-1 minute');
SELECT * FROM fetchq.doc_extend('lce_missing', 'e', '1 hour');

-- Rejection with a delay: not pickable at once, pickable once it passed.
SELECT fetchq.doc_push('lcr', 'r', 0, 0, now() - interval '1 second', '{}');
SELECT subject FROM fetchq.doc_pick('lcr', 0, 1, '1 minute');
SELECT * FROM fetchq.doc_reject('lcr', 'r', 'try later', '{}', NULL, '2 seconds');
SELECT status, next_iteration BETWEEN now() + interval '1 second' AND now() + interval '2 seconds'
       AS pickable_in_two_seconds FROM fetchq_data.lcr__docs;
SELECT count(*) AS picked_at_once FROM fetchq.doc_pick('lcr', 0, 1, '1 minute');
UPDATE fetchq_data.lcr__docs SET next_iteration = now() - interval '1 second';
SELECT subject FROM fetchq.doc_pick('lcr', 0, 1, '1 minute');
SELECT * FROM fetchq.doc_reject('lcr', 'r', 'bad', '{}', NULL, '-1 second');
SELECT * FROM fetchq.doc_reject('lcr', 'r', 'now', '{}', NULL, '0 seconds');
SELECT status, next_iteration <= now() AS pickable_now FROM fetchq_data.lcr__docs;
-- The delay named alone, without ref_id; fenced, with ref_id NULL.
SELECT subject FROM fetchq.doc_pick('lcr', 0, 1, '1 minute');
SELECT * FROM fetchq.doc_reject('lcr', 'r', 'named', '{}', ref_id => NULL, delay => '2 seconds',
                                attempts => 99);
SELECT * FROM fetchq.doc_reject('lcr', 'r', 'named', '{}', delay => '2 seconds');
SELECT status, next_iteration BETWEEN now() + interval '1 second' AND now() + interval '2 seconds'
       AS pickable_in_two_seconds FROM fetchq_data.lcr__docs;
SELECT message, ref_id FROM fetchq_data.lcr__logs WHERE message = 'named';

-- Retries: killed documents back to pending (or planned), attempts 0.
SELECT fetchq.doc_push('lck', s, 0, 0, now() - interval '1 second', '{}')
FROM unnest(ARRAY['c', 'd', 'x1', 'x2']) AS s;
SELECT count(*) FROM fetchq.doc_pick('lck', 0, 10, '1 minute');
SELECT sum(fetchq.doc_kill('lck', s)) FROM unnest(ARRAY['c', 'd', 'x1', 'x2']) AS s;
SELECT * FROM fetchq.doc_retry('lck', 'c');
SELECT * FROM fetchq.doc_retry('lck', 'c');                               -- not killed any more
SELECT * FROM fetchq.doc_retry('lck', 'd', now() + interval '1 hour');
SELECT subject, status, attempts FROM fetchq_data.lck__docs ORDER BY subject;
SELECT * FROM fetchq.doc_retry_many('lck', 'x%');
SELECT subject, status FROM fetchq_data.lck__docs ORDER BY subject;
SELECT sum(fetchq.doc_kill('lck', s)) FROM fetchq.doc_pick('lck', 0, 10, '1 minute') AS p(s);
SELECT * FROM fetchq.doc_retry_many('lck');
SELECT count(*) AS killed_left FROM fetchq_data.lck__docs WHERE status = -1;
SELECT * FROM fetchq.doc_retry('lck_missing', 'c');
SELECT * FROM fetchq.doc_retry_many('lck_missing');

-- The counters still agree with the documents in every queue.
SELECT q, (SELECT row(cnt, pln, pnd, act, kll, cpl) FROM fetchq.metric_compute(q))::text AS documents,
       (SELECT row(coalesce(sum(current_value) FILTER (WHERE metric = 'cnt'), 0),
                   coalesce(sum(current_value) FILTER (WHERE metric = 'pln'), 0),
                   coalesce(sum(current_value) FILTER (WHERE metric = 'pnd'), 0),
                   coalesce(sum(current_value) FILTER (WHERE metric = 'act'), 0),
                   coalesce(sum(current_value) FILTER (WHERE metric = 'kll'), 0),
                   coalesce(sum(current_value) FILTER (WHERE metric = 'cpl'), 0))
        FROM fetchq.metric_get(q))::text AS counters
FROM unnest(ARRAY['lcf', 'lce', 'lcr', 'lck']) AS q ORDER BY q;
SELECT bool_and(was_dropped) FROM unnest(ARRAY['lcf', 'lce', 'lcr', 'lck']) AS q, fetchq.queue_drop(q);
