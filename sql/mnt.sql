-- Maintenance: promotion of planned documents, orphans, dead documents
-- (mnt_make_pending, mnt_reschedule_orphans, mnt_mark_dead, mnt_run,
-- mnt_run_all) and maintenance jobs (mnt_job_pick, mnt_job_reschedule,
-- mnt_job_run). Documents are made due by moving next_iteration back.
-- mnt() and the lgp, sts and drp jobs call functions of other families and
-- are not exercised here.

SELECT was_created FROM fetchq.queue_create('mnt_q');
SELECT was_created FROM fetchq.queue_create('mnt_q2');

\set docs 'SELECT subject, status, attempts FROM fetchq_data.mnt_q__docs ORDER BY subject'
\set metrics 'SELECT metric, sum(value) AS value FROM fetchq.metrics WHERE queue = ''mnt_q'' GROUP BY 1 ORDER BY 1'

-- Six planned documents and one pending one.
SELECT fetchq.doc_push('mnt_q', s, 0, 0, now() + interval '1 hour', '{}')
FROM unnest(ARRAY['plan_a', 'plan_b', 'plan_c', 'plan_future', E'it''s \\ ünï ☃',
                  'upgrading']) AS s;
SELECT fetchq.doc_push('mnt_q', 'pending_1', 0, 0, now() - interval '1 second', '{}');
:docs;
:metrics;

-- Nothing is due yet.
SELECT * FROM fetchq.mnt_make_pending('mnt_q', 100);

-- Due, oldest first: the quoted subject, plan_c, plan_a, plan_b.
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '4 minutes'
WHERE subject = E'it''s \\ ünï ☃';
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '3 minutes'
WHERE subject = 'plan_c';
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '2 minutes'
WHERE subject = 'plan_a';
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '1 minute'
WHERE subject = 'plan_b';
-- A document whose lock is being upgraded is not promoted.
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '5 minutes',
    lock_upgrade = now()
WHERE subject = 'upgrading';

-- A limit of 0 changes nothing; a rolled back promotion counts nothing.
SELECT * FROM fetchq.mnt_make_pending('mnt_q', 0);
BEGIN;
SELECT * FROM fetchq.mnt_make_pending('mnt_q', 100);
ROLLBACK;
:docs;
:metrics;

-- Two at a time, oldest first.
SELECT * FROM fetchq.mnt_make_pending('mnt_q', 2);
:docs;
:metrics;
SELECT * FROM fetchq.mnt_make_pending('mnt_q', 100);
SELECT * FROM fetchq.mnt_make_pending('mnt_q', 100);
:docs;
:metrics;

-- Consumers take the five pending documents (attempts 1).
SELECT subject, attempts FROM fetchq.doc_pick('mnt_q', 0, 10, '5m') ORDER BY subject;
:metrics;

-- Locks still held: no orphan, nothing dead.
SELECT * FROM fetchq.mnt_reschedule_orphans('mnt_q', 100);
SELECT * FROM fetchq.mnt_mark_dead('mnt_q', 100);

-- With max_attempts = 2: plan_a and plan_b lost their consumer with attempts
-- left (plan_a first), plan_c lost it with its attempts used up.
UPDATE fetchq.queues SET max_attempts = 2 WHERE name = 'mnt_q';
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '2 minutes'
WHERE subject IN ('plan_a', 'plan_c');
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '1 minute'
WHERE subject = 'plan_b';
UPDATE fetchq_data.mnt_q__docs SET attempts = 2 WHERE subject = 'plan_c';
SELECT * FROM fetchq.mnt_reschedule_orphans('mnt_q', 1);
:docs;
SELECT * FROM fetchq.mnt_reschedule_orphans('mnt_q', 100);
:docs;
:metrics;
SELECT * FROM fetchq.mnt_mark_dead('mnt_q', 0);
SELECT * FROM fetchq.mnt_mark_dead('mnt_q', 100);
:docs;
:metrics;

-- plan_a, pending for longer, is taken again (attempts 2 = max_attempts) and
-- orphaned again.
SELECT subject, attempts FROM fetchq.doc_pick('mnt_q', 0, 1, '5m');
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '1 minute'
WHERE subject = 'plan_a';
-- max_attempts is read at each run, not when the statement was prepared:
-- raised to 3, plan_a has an attempt left.
UPDATE fetchq.queues SET max_attempts = 3 WHERE name = 'mnt_q';
SELECT * FROM fetchq.mnt_mark_dead('mnt_q', 100);
SELECT * FROM fetchq.mnt_reschedule_orphans('mnt_q', 100);
:docs;

-- mnt_run: dead, orphans and promotion in one call, each up to the limit,
-- oldest first: pending_1 before plan_b, plan_future before upgrading.
SELECT subject, attempts FROM fetchq.doc_pick('mnt_q', 0, 10, '5m') ORDER BY subject;
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '1 minute'
WHERE subject IN ('plan_a', 'plan_b');
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '2 minutes'
WHERE subject = 'pending_1';
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '2 minutes'
WHERE subject = 'plan_future';
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '1 minute',
    lock_upgrade = NULL
WHERE subject = 'upgrading';
:docs;
SELECT * FROM fetchq.mnt_run('mnt_q', 1);
:docs;
SELECT * FROM fetchq.mnt_run('mnt_q', 100);
SELECT * FROM fetchq.mnt_run('mnt_q', 100);
:docs;
:metrics;

-- mnt_run_all: every queue (only ours are shown).
SELECT fetchq.doc_push('mnt_q2', 'x', 0, 0, now() + interval '1 hour', '{}');
UPDATE fetchq_data.mnt_q2__docs SET next_iteration = now() - interval '1 minute';
SELECT * FROM fetchq.mnt_run_all(100) WHERE queue LIKE 'mnt\_%' ORDER BY queue;
SELECT * FROM fetchq.mnt_run_all(0) WHERE queue LIKE 'mnt\_%' ORDER BY queue;
SELECT subject, status FROM fetchq_data.mnt_q2__docs;

-- Errors: missing queue, bad name, NULL and negative arguments.
SELECT * FROM fetchq.mnt_make_pending('mnt_missing', 1);
SELECT * FROM fetchq.mnt_reschedule_orphans('mnt_missing', 1);
SELECT * FROM fetchq.mnt_mark_dead('mnt_missing', 1);
SELECT * FROM fetchq.mnt_run('mnt_missing', 1);
SELECT * FROM fetchq.mnt_make_pending('Bad-Name', 1);
SELECT * FROM fetchq.mnt_run(E'mnt_q''; DROP TABLE fetchq.queues; --', 1);
SELECT * FROM fetchq.mnt_make_pending(NULL, 1);
SELECT * FROM fetchq.mnt_make_pending('mnt_q', NULL);
SELECT * FROM fetchq.mnt_make_pending('mnt_q', -1);
SELECT * FROM fetchq.mnt_reschedule_orphans('mnt_q', -1);
SELECT * FROM fetchq.mnt_mark_dead('mnt_q', -1);
SELECT * FROM fetchq.mnt_run('mnt_q', -1);
SELECT * FROM fetchq.mnt_run_all(-1);
SELECT * FROM fetchq.mnt_run_all(NULL);

-- Jobs. Other files' jobs are parked for the duration of the test, and ours
-- are made due one by one.
CREATE TEMP TABLE mnt_parked AS
SELECT id, next_iteration FROM fetchq.jobs WHERE queue NOT IN ('mnt_q', 'mnt_q2');
UPDATE fetchq.jobs SET next_iteration = now() + interval '1 day';
-- Long delays keep the outcome independent of the test's speed.
UPDATE fetchq.jobs SET settings = settings || '{"delay": "1h"}'
WHERE queue = 'mnt_q' AND task = 'mnt';
SELECT task, queue, attempts, iterations, settings FROM fetchq.jobs
WHERE queue LIKE 'mnt\_%' ORDER BY queue, task;
\set jobs 'SELECT task, queue, attempts, iterations, last_iteration IS NOT NULL AS ran, next_iteration - last_iteration AS delay, next_iteration > now() AS locked FROM fetchq.jobs WHERE queue LIKE ''mnt\\_%'' ORDER BY queue, task'

-- Nothing due.
SELECT * FROM fetchq.mnt_job_pick('1m', 10);
SELECT * FROM fetchq.mnt_job_run('1m', 10);

-- mnt_job_pick locks the due jobs (attempts + 1) until the lock expires.
UPDATE fetchq.jobs SET next_iteration = now() - interval '1 second'
WHERE queue = 'mnt_q' AND task IN ('mnt', 'cmp');
SELECT task, queue, attempts, iterations, last_iteration, settings, payload
FROM fetchq.mnt_job_pick('10m', 0);
SELECT task, queue, attempts, iterations, last_iteration, settings, payload
FROM fetchq.mnt_job_pick('10m', 10) ORDER BY task;
SELECT * FROM fetchq.mnt_job_pick('10m', 10);
SELECT * FROM fetchq.mnt_job_run('10m', 10);
:jobs;

-- mnt_job_reschedule: next run `delay` from now, attempts reset.
SELECT fetchq.mnt_job_reschedule(id, '2 minutes') FROM fetchq.jobs
WHERE queue = 'mnt_q' AND task IN ('mnt', 'cmp') ORDER BY task;
SELECT fetchq.mnt_job_reschedule(-1, '1s');
:jobs;

-- mnt_job_run runs the queue's mnt job with the job's limit (settings.limit),
-- then plans its next run settings.delay later.
UPDATE fetchq.jobs SET settings = settings || '{"limit": 1}'
WHERE queue = 'mnt_q' AND task = 'mnt';
SELECT fetchq.doc_push('mnt_q', s, 0, 0, now() + interval '1 hour', '{}')
FROM unnest(ARRAY['job_a', 'job_b']) AS s;
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '2 minutes'
WHERE subject = 'job_a';
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '1 minute'
WHERE subject = 'job_b';
UPDATE fetchq.jobs SET next_iteration = now() - interval '1 second'
WHERE queue = 'mnt_q' AND task = 'mnt';
SELECT * FROM fetchq.mnt_job_run();
:jobs;
SELECT subject, status FROM fetchq_data.mnt_q__docs WHERE subject LIKE 'job\_%' ORDER BY 1;
:metrics;
UPDATE fetchq.jobs SET next_iteration = now() - interval '1 second'
WHERE queue = 'mnt_q' AND task = 'mnt';
SELECT * FROM fetchq.mnt_job_run(5);
SELECT subject, status FROM fetchq_data.mnt_q__docs WHERE subject LIKE 'job\_%' ORDER BY 1;

-- cmp does nothing but is rescheduled (settings.delay 10m).
UPDATE fetchq.jobs SET next_iteration = now() - interval '1 second'
WHERE queue = 'mnt_q' AND task = 'cmp';
SELECT * FROM fetchq.mnt_job_run('1m', 10);
:jobs;

-- A failing job is rolled back alone, with a WARNING: it stays locked for
-- settings.duration (not the 1s lock of the run) and keeps its attempt;
-- the other jobs of the round still run. An unknown task is only
-- rescheduled (default delay 5m), with a WARNING. Invalid settings make the
-- job fail before it runs.
INSERT INTO fetchq.jobs (task, queue, next_iteration, settings, payload) VALUES
    ('mnt', 'mnt_missing', now() - interval '1 second', '{"duration": "1h"}', '{}'),
    ('zzz', 'mnt_q', now() - interval '1 second', '{}', '{}'),
    ('sts', 'Bad-Name', now() - interval '1 second', '{"duration": "1h"}', '{}');
UPDATE fetchq.jobs SET next_iteration = now() - interval '1 second',
    settings = settings || '{"limit": "abc", "duration": "1h"}'
WHERE queue = 'mnt_q2' AND task = 'mnt';
UPDATE fetchq.jobs SET next_iteration = now() - interval '1 second'
WHERE queue = 'mnt_q' AND task = 'mnt';
UPDATE fetchq_data.mnt_q__docs SET next_iteration = now() - interval '1 minute', status = 0
WHERE subject = 'job_b';
SELECT * FROM fetchq.mnt_job_run('1s', 10);
SELECT task, queue, attempts, iterations, next_iteration > now() + interval '30 minutes' AS long_lock
FROM fetchq.jobs WHERE queue IN ('mnt_missing', 'Bad-Name', 'mnt_q2', 'mnt_q')
ORDER BY queue, task;
SELECT subject, status FROM fetchq_data.mnt_q__docs WHERE subject LIKE 'job\_%' ORDER BY 1;

-- A job that fails halfway leaves nothing behind: mnt on mnt_q2 kills
-- 'dead', then fails on 'orphan' (a trigger refuses it); the kill and its
-- counters are rolled back with the job.
SELECT fetchq.doc_push('mnt_q2', s, 0, 0, now() - interval '1 second', '{}')
FROM unnest(ARRAY['dead', 'orphan']) AS s;
SELECT subject, attempts FROM fetchq.doc_pick('mnt_q2', 0, 10, '5m') ORDER BY subject;
UPDATE fetchq_data.mnt_q2__docs SET next_iteration = now() - interval '1 minute'
WHERE subject IN ('dead', 'orphan');
UPDATE fetchq_data.mnt_q2__docs SET attempts = 5 WHERE subject = 'dead';
CREATE FUNCTION mnt_refuse_orphans() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'orphan % refused', OLD.subject; END $$;
CREATE TRIGGER refuse BEFORE UPDATE ON fetchq_data.mnt_q2__docs FOR EACH ROW
WHEN (OLD.status = 2 AND NEW.status = 1) EXECUTE FUNCTION mnt_refuse_orphans();
UPDATE fetchq.jobs SET next_iteration = now() - interval '1 second', settings = settings - 'limit'
WHERE queue = 'mnt_q2' AND task = 'mnt';
\set metrics2 'SELECT metric, sum(value) AS value FROM fetchq.metrics WHERE queue = ''mnt_q2'' GROUP BY 1 ORDER BY 1'
:metrics2;
SELECT * FROM fetchq.mnt_job_run('1s', 10);
SELECT subject, status, attempts FROM fetchq_data.mnt_q2__docs ORDER BY subject;
:metrics2;
DROP TRIGGER refuse ON fetchq_data.mnt_q2__docs;
DROP FUNCTION mnt_refuse_orphans();
SELECT * FROM fetchq.mnt_run('mnt_q2', 10);
SELECT subject, status, attempts FROM fetchq_data.mnt_q2__docs ORDER BY subject;
:metrics2;

-- After 5 failed runs in a row a job is no longer picked, until
-- mnt_job_reschedule resets its attempts.
UPDATE fetchq.jobs SET attempts = 5, next_iteration = now() - interval '1 second'
WHERE queue = 'mnt_missing';
SELECT * FROM fetchq.mnt_job_run('1s', 10);
SELECT fetchq.mnt_job_reschedule(id, '1ms') FROM fetchq.jobs WHERE queue = 'mnt_missing';
SELECT attempts FROM fetchq.jobs WHERE queue = 'mnt_missing';
UPDATE fetchq.jobs SET next_iteration = now() - interval '1 second' WHERE queue = 'mnt_missing';
SELECT task, queue, attempts FROM fetchq.mnt_job_pick('1h', 10);

-- Errors.
SELECT * FROM fetchq.mnt_job_pick('soon', 1);
SELECT * FROM fetchq.mnt_job_pick(NULL, 1);
SELECT * FROM fetchq.mnt_job_pick('1m', -1);
SELECT * FROM fetchq.mnt_job_pick('1m', NULL);
SELECT * FROM fetchq.mnt_job_reschedule(NULL, '1s');
SELECT * FROM fetchq.mnt_job_reschedule(1, NULL);
SELECT * FROM fetchq.mnt_job_reschedule(-1, '1 fortnight');
SELECT * FROM fetchq.mnt_job_run('soon', 1);
SELECT * FROM fetchq.mnt_job_run(NULL, 1);
SELECT * FROM fetchq.mnt_job_run('1m', -1);
SELECT * FROM fetchq.mnt_job_run(-1);
SELECT * FROM fetchq.mnt_job_run(NULL::integer);
SELECT * FROM fetchq.mnt('soon');

-- Clean up: our queues and jobs go, the others' jobs are put back.
DELETE FROM fetchq.jobs WHERE queue IN ('mnt_missing', 'Bad-Name');
SELECT was_dropped FROM fetchq.queue_drop('mnt_q');
SELECT was_dropped FROM fetchq.queue_drop('mnt_q2');
UPDATE fetchq.jobs AS j SET next_iteration = p.next_iteration
FROM mnt_parked AS p WHERE j.id = p.id;
SELECT count(*) FROM fetchq.jobs WHERE queue LIKE 'mnt\_%';
SELECT count(*) FROM fetchq.metrics WHERE queue LIKE 'mnt\_%';
