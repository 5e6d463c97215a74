-- Document lifecycle: push, pick, complete, kill, drop, reschedule, reject.
SET client_min_messages = warning;
SELECT was_created FROM fetchq.queue_create('doc_q');
SELECT was_created, queue_id = (SELECT id FROM fetchq.queues WHERE name = 'doc_q') AS same_id FROM fetchq.queue_create('doc_q');  -- exists
SELECT count(*) FROM fetchq.queues WHERE name = 'doc_q';

-- push: every overload; duplicates give 0
SELECT fetchq.doc_push('doc_q', 'a1');
SELECT fetchq.doc_push('doc_q', 'a1');
SELECT fetchq.doc_push('doc_q', 'a2', '{"n": 2}');
SELECT fetchq.doc_push('doc_q', 'a3', '{"n": 3}', now() + interval '1 hour');
SELECT fetchq.doc_push('doc_q', 'a4', 1, 5, now() - interval '1 minute', '{"n": 4}');
SELECT subject, version, priority, status, attempts, iterations, payload,
       next_iteration > now() AS future, created_at IS NOT NULL AS has_created
FROM fetchq_data.doc_q__docs ORDER BY subject;

-- quoting: quotes, backslashes, unicode never break anything
SELECT fetchq.doc_push('doc_q', 'it''s a "quote" \ back', 0, 0, now(), '{"s": "O''Reilly \\ \" ü 漢字"}');
SELECT fetchq.doc_push('doc_q', 'ünïcødé-漢字', 0, 0, now(), '{}');
SELECT fetchq.doc_push('doc_q', '''); DROP TABLE fetchq.queues; --', 0, 0, now(), '{}');
SELECT subject, payload FROM fetchq_data.doc_q__docs
WHERE subject NOT LIKE 'a_' ORDER BY subject;
SELECT count(*) AS queues_still_there FROM fetchq.queues;

-- subject length: 50 characters (not bytes) is the limit
SELECT fetchq.doc_push('doc_q', repeat('é', 50));
SELECT fetchq.doc_push('doc_q', repeat('x', 51));

-- pick order: priority DESC, next_iteration, attempts; version filter
SELECT subject, attempts FROM fetchq.doc_pick('doc_q', 1, 10, '5m');
SELECT subject, attempts, priority FROM fetchq.doc_pick('doc_q', 0, 2, '5m');
SELECT subject, status, attempts, next_iteration > now() + interval '4 minutes' AS locked_5m
FROM fetchq_data.doc_q__docs WHERE status = 2 ORDER BY subject;
-- other overloads: (queue), (queue, duration), (queue, limit)
SELECT count(*) FROM fetchq.doc_pick('doc_q');
SELECT count(*) FROM fetchq.doc_pick('doc_q', '30s');
SELECT count(*) FROM fetchq.doc_pick('doc_q', 0);
SELECT count(*) FROM fetchq.doc_pick('doc_q', 10);
SELECT count(*) FROM fetchq.doc_pick('doc_q', 10);  -- nothing left that is due

-- outcomes act on active documents only
SELECT fetchq.doc_complete('doc_q', 'a1');
SELECT fetchq.doc_complete('doc_q', 'a1');          -- already completed
SELECT fetchq.doc_complete('doc_q', 'a3');          -- planned, not active
SELECT fetchq.doc_complete('doc_q', 'a2', '{"done": true}');
SELECT fetchq.doc_kill('doc_q', 'a4', '{"killed": 1}');
SELECT fetchq.doc_drop('doc_q', 'ünïcødé-漢字');
SELECT fetchq.doc_reschedule('doc_q', repeat('é', 50), now() + interval '1 day');
SELECT fetchq.doc_reschedule('doc_q', '''); DROP TABLE fetchq.queues; --', now() - interval '1 second', '{"r": 1}');
SELECT subject, status, attempts, iterations, payload,
       next_iteration > now() + interval '100 years' AS far_future
FROM fetchq_data.doc_q__docs ORDER BY subject;

-- reject: back to pending with a log line, killed once attempts reach max_attempts
SELECT was_created FROM fetchq.queue_create('doc_r');
UPDATE fetchq.queues SET max_attempts = 2 WHERE name = 'doc_r';
SELECT fetchq.doc_push('doc_r', 'r1');
SELECT fetchq.doc_reject('doc_r', 'r1', 'not active yet', '{}');
SELECT subject, attempts FROM fetchq.doc_pick('doc_r', 0, 1, '1s');
SELECT fetchq.doc_reject('doc_r', 'r1', 'first failure', '{"try": 1}');
SELECT status, attempts, iterations FROM fetchq_data.doc_r__docs WHERE subject = 'r1';
-- a rejected document waits for the end of its lock: end it now
UPDATE fetchq_data.doc_r__docs SET next_iteration = now() WHERE subject = 'r1';
SELECT subject, attempts FROM fetchq.doc_pick('doc_r', 0, 1, '1s');
SELECT fetchq.doc_reject('doc_r', 'r1', 'second ''failure'' ü', '{"try": 2}', 'ref-42');
SELECT status, attempts, iterations FROM fetchq_data.doc_r__docs WHERE subject = 'r1';
SELECT fetchq.doc_reject('doc_r', 'r1', 'not active any more', '{}');
SELECT subject, message, details, ref_id FROM fetchq_data.doc_r__logs ORDER BY id;
SELECT was_dropped FROM fetchq.queue_drop('doc_r');

-- doc_append: a pending document with a generated subject
SELECT length(fetchq.doc_append('doc_q', '{"appended": 1}')) AS uuid_length;
SELECT length(fetchq.doc_append('doc_q', '{"appended": 2}', 3, 7)) AS uuid_length;
SELECT version, priority, status, payload FROM fetchq_data.doc_q__docs
WHERE payload ? 'appended' ORDER BY version;

-- doc_upsert: push, or update a document that is not active
SELECT * FROM fetchq.doc_upsert('doc_q', 'u1', 0, 1, now(), '{"v": 1}');
SELECT * FROM fetchq.doc_upsert('doc_q', 'u1', 0, 9, now(), '{"v": 2}');
SELECT priority, payload FROM fetchq_data.doc_q__docs WHERE subject = 'u1';
-- doc_upsert moving a planned document earlier keeps it planned (as Fetchq 4
-- did) and wakes the scheduler at commit, which promotes it
SELECT was_created FROM fetchq.queue_create('doc_u');
SELECT fetchq.doc_push('doc_u', 'u2', 0, 0, now() + interval '1 hour', '{"v": 1}');
SELECT * FROM fetchq.doc_upsert('doc_u', 'u2', 0, 2, now() - interval '1 second', '{"v": 2}');
SELECT status, priority, payload, next_iteration < now() AS due
FROM fetchq_data.doc_u__docs WHERE subject = 'u2';
SELECT was_dropped FROM fetchq.queue_drop('doc_u');

-- bulk: Fetchq 4's tuple text, parsed, never executed
SELECT fetchq.doc_push('doc_q', 2, now(),
    $$('t1', 3, '{"a": "it''s"}', {DATA}), ('t2', -1, NULL, {DATA}), ('t1', 0, '{}', {DATA})$$);
SELECT subject, version, priority, status, payload FROM fetchq_data.doc_q__docs
WHERE subject LIKE 't_' ORDER BY subject;
SELECT fetchq.doc_push('doc_q', 2, now(), $$('t3', 0, '{}', {DATA}); DROP TABLE fetchq.queues; --$$);
SELECT fetchq.doc_push('doc_q', 2, now(), $$('t3', 0, '{}')$$);
SELECT fetchq.doc_push('doc_q', 2, now(), $$('t3', 'x', '{}', {DATA})$$);
SELECT fetchq.doc_push('doc_q', 2, now(), $$('t3', 0, '{not json', {DATA})$$);

-- batch functions
SELECT fetchq.doc_push_many('doc_q', ARRAY['m1', 'm2', 'm1', 'a1']);
SELECT fetchq.doc_push_many('doc_q', ARRAY['m3', 'm4'], ARRAY['{"i": 3}', '{"i": 4}']::jsonb[],
                            now() + interval '1 hour', 4, 2);
SELECT subject, version, priority, status, payload FROM fetchq_data.doc_q__docs
WHERE subject LIKE 'm_' ORDER BY subject;
SELECT fetchq.doc_push_many('doc_q', NULL);
SELECT fetchq.doc_push_many('doc_q', ARRAY[]::varchar[]);
SELECT fetchq.doc_push_many('doc_q', ARRAY['m5', NULL]);
SELECT fetchq.doc_push_many('doc_q', ARRAY['m5', 'm6'], ARRAY['{}']::jsonb[]);
SELECT count(*) FROM fetchq.doc_pick('doc_q', 0, 100, '5m') WHERE subject IN ('m1', 'm2');
SELECT fetchq.doc_complete_many('doc_q', ARRAY['m1', 'm2', 'm3', 'nope']);
SELECT fetchq.doc_complete_many('doc_q', NULL);
SELECT subject, status FROM fetchq_data.doc_q__docs WHERE subject LIKE 'm_' ORDER BY subject;

-- transactions: a rolled-back push leaves nothing, a savepoint keeps the rest
BEGIN;
SELECT fetchq.doc_push('doc_q', 'tx1');
SAVEPOINT s;
SELECT fetchq.doc_push('doc_q', 'tx2');
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT subject FROM fetchq_data.doc_q__docs WHERE subject LIKE 'tx_' ORDER BY 1;

-- errors: clear messages, never a silent 0
\set VERBOSITY default
SELECT fetchq.doc_push('no_such_queue', 'x');
SELECT * FROM fetchq.doc_pick('no_such_queue', 0, 1, '5m');
SELECT fetchq.doc_complete('no_such_queue', 'x');
SELECT fetchq.doc_push('Doc_Q', 'x');
SELECT fetchq.doc_push('doc-q', 'x');
SELECT fetchq.doc_push('', 'x');
SELECT fetchq.doc_push(repeat('q', 41), 'x');
SELECT fetchq.doc_push(NULL, 'x');
SELECT fetchq.doc_push('doc_q', NULL);
SELECT fetchq.doc_push('doc_q', 'n1', 0, 0, NULL, '{}');
SELECT * FROM fetchq.doc_pick('doc_q', 0, -1, '5m');
SELECT * FROM fetchq.doc_pick('doc_q', 0, 1, 'five minutes');
SELECT * FROM fetchq.doc_pick('doc_q', 0, 1, NULL);
SELECT * FROM fetchq.doc_pick('doc_q', 0, 1, '1 day 02:00:00') WHERE false;
SELECT * FROM fetchq.queue_drop('no_such_queue');
SELECT * FROM fetchq.queue_create('bad name');

SELECT was_dropped FROM fetchq.queue_drop('doc_q');
SELECT to_regclass('fetchq_data.doc_q__docs') IS NULL AS tables_gone,
       (SELECT count(*) FROM fetchq.jobs WHERE queue = 'doc_q') AS jobs_left;
