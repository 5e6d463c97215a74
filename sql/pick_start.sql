-- Picks start where the documents still to take begin (ops/shared_memory/pick_start.hpp):
-- whatever moved a document before that place, the next pick takes it, as a
-- pick from the beginning of the queue would.
SET client_min_messages = warning;
-- A start from the first pick on (no dead prefix needed), and no renewal
-- by a pick from the beginning, however slow this run.
SET fetchq.pick_start_threshold = 0;
SET fetchq.pick_start_max_age = -1;
SELECT was_created FROM fetchq.queue_create('ps_q');
CREATE FUNCTION pg_temp.push(subject TEXT, ago INTERVAL, priority INTEGER DEFAULT 0)
RETURNS INTEGER LANGUAGE sql AS
$$ SELECT queued_docs FROM fetchq.doc_push('ps_q', subject, 0, priority, now() - ago, '{}') $$;
CREATE FUNCTION pg_temp.pick() RETURNS SETOF VARCHAR LANGUAGE sql AS
$$ SELECT subject FROM fetchq.doc_pick('ps_q', 0, 1, '5m') $$;

SELECT pg_temp.push('d1', '4 min'), pg_temp.push('d2', '3 min'), pg_temp.push('d3', '2 min'),
       pg_temp.push('d4', '1 min');
SELECT pg_temp.pick();  -- d1
SELECT pg_temp.pick();  -- d2: the start is there now

-- pushed due before the start
SELECT pg_temp.push('early', '10 min');
SELECT pg_temp.pick();
-- pushed with a higher priority
SELECT pg_temp.push('urgent', '1 second', 5);
SELECT pg_temp.pick();

-- a pick rolled back: its document is taken again
BEGIN;
SELECT pg_temp.pick();
ROLLBACK;
SELECT pg_temp.pick();

-- a pick in a savepoint rolled back, then picked again in the transaction
BEGIN;
SAVEPOINT s;
SELECT pg_temp.pick();
ROLLBACK TO SAVEPOINT s;
SELECT pg_temp.pick();
COMMIT;

-- rescheduled (from active) to due an hour ago
SELECT fetchq.doc_reschedule('ps_q', 'd3', now() - interval '1 hour');
SELECT pg_temp.pick();

-- a pending document moved before the start by doc_upsert
SELECT pg_temp.push('u1', '30 s'), pg_temp.push('u2', '20 s'), pg_temp.push('u3', '10 s');
SELECT pg_temp.pick();  -- u1
SELECT pg_temp.pick();  -- u2
SELECT fetchq.doc_upsert('ps_q', 'u3', 0, 0, now() - interval '1 hour', '{}');
SELECT pg_temp.push('u4', '5 s');
SELECT pg_temp.pick();  -- u3, not u4
SELECT pg_temp.pick();  -- u4

-- pushed and picked in one transaction
SELECT pg_temp.push('t1', '1 s');
SELECT pg_temp.pick();  -- t1
BEGIN;
SELECT pg_temp.push('t0', '1 day');
SELECT pg_temp.pick();
COMMIT;

-- a document rejected with a delay is pending but not due: picks pass it
-- (here from priority 9 on into priority 0) and take it once it is due
SELECT pg_temp.push('m5', '1 s', 5);
SELECT pg_temp.pick();  -- m5
SELECT fetchq.doc_reject('ps_q', 'm5', 'later', '{}', delay => '1 second');
SELECT pg_temp.push('h9a', '2 s', 9), pg_temp.push('h9b', '1 s', 9),
       pg_temp.push('low1', '2 s'), pg_temp.push('low2', '1 s');
SELECT pg_temp.pick();  -- h9a
SELECT pg_temp.pick();  -- h9b
SELECT pg_temp.pick();  -- low1
SELECT pg_sleep(1.2);
SELECT pg_temp.pick();  -- m5, now due
SELECT pg_temp.pick();  -- low2

-- killed (a rejection past max_attempts), then retried: pending again
SELECT fetchq.doc_push('ps_q', 'k1', 0, 0, now() - interval '2 s', '{}');
UPDATE fetchq.queues SET max_attempts = 1 WHERE name = 'ps_q';
SELECT pg_temp.pick();  -- k1
SELECT fetchq.doc_reject('ps_q', 'k1', 'failed', '{}');
SELECT status FROM fetchq_data.ps_q__docs WHERE subject = 'k1';
SELECT pg_temp.push('k2', '1 s'), pg_temp.push('k3', '0 s');
SELECT pg_temp.pick();  -- k2
SELECT fetchq.doc_retry('ps_q', 'k1');
SELECT pg_temp.pick();  -- k3, due before the retry
SELECT pg_temp.pick();  -- k1 again

SELECT pg_temp.pick();  -- nothing left
SELECT status, count(*) FROM fetchq_data.ps_q__docs GROUP BY status ORDER BY status;
SELECT was_dropped FROM fetchq.queue_drop('ps_q');
