-- Fetchq 4's maintenance jobs (fetchq.jobs): the rows queue_create adds,
-- mnt_job_pick / mnt_job_reschedule / mnt_job_run, and mnt(), the round the
-- Node.js client's maintenance loop runs. Lock times are printed only when
-- set in the same statement; otherwise as "in the future".
-- requires: fetchq.mnt_job_run(varchar, integer); fetchq.mnt_job_run(integer)
-- requires: fetchq.mnt_job_run(); fetchq.mnt(varchar); fetchq.mnt()
-- The global jobs start afresh (other scenarios may have run them), as
-- the Node.js client's reset does.
UPDATE fetchq.jobs SET attempts = 0, iterations = 0, next_iteration = now(), last_iteration = NULL
WHERE queue = '*';
SELECT was_created FROM fetchq.queue_create('compat_job');
SELECT task, queue, attempts, iterations, settings, payload, last_iteration
FROM fetchq.jobs ORDER BY queue, task;

-- Due jobs, locked for a minute, one attempt more.
SELECT task, queue, attempts, iterations, next_iteration - now() AS locked_for,
       last_iteration, settings, payload
FROM fetchq.mnt_job_pick('1m', 10) ORDER BY queue, task;
SELECT count(*) AS picked FROM fetchq.mnt_job_pick('1m', 10);

SELECT * FROM fetchq.mnt_job_reschedule(
    (SELECT id FROM fetchq.jobs WHERE task = 'sts' AND queue = 'compat_job'), '2 hours');
SELECT task, queue, attempts, iterations, next_iteration > now() AS in_future
FROM fetchq.jobs ORDER BY queue, task;

-- mnt_job_run: the due 'mnt' job runs mnt_run on its queue.
SELECT * FROM fetchq.doc_push('compat_job', 'p1', '{}', now() + interval '1 hour');
BEGIN;
UPDATE fetchq_data.compat_job__docs SET next_iteration = now() - interval '1 minute';
UPDATE fetchq.jobs SET next_iteration = now() - interval '1 minute'
WHERE queue = 'compat_job' AND task = 'mnt';
SELECT * FROM fetchq.mnt_job_run('1m', 10);
SELECT * FROM fetchq.mnt_job_run('1m', 10);
SELECT subject, status FROM fetchq_data.compat_job__docs;
SELECT task, queue, attempts, iterations, next_iteration > now() AS in_future
FROM fetchq.jobs ORDER BY queue, task;
COMMIT;

-- The shorter forms: nothing is due.
SELECT * FROM fetchq.mnt_job_run(10);
SELECT * FROM fetchq.mnt_job_run();

-- mnt(): every queue job due now, run, then the counters packed.
SELECT count(*) AS packed FROM fetchq.metric_log_pack();
SELECT * FROM fetchq.doc_push('compat_job', 'p2', '{}', now() + interval '1 hour');
BEGIN;
UPDATE fetchq_data.compat_job__docs SET next_iteration = now() - interval '1 minute' WHERE subject = 'p2';
SELECT processed, packed >= 0 AS packed FROM fetchq.mnt('1m');
SELECT subject, status FROM fetchq_data.compat_job__docs ORDER BY subject;
SELECT task, queue, attempts, iterations, next_iteration > now() AS in_future
FROM fetchq.jobs ORDER BY queue, task;
COMMIT;
SELECT count(*) > 0 AS snapshot_taken FROM fetchq_data.compat_job__metrics;
SELECT processed, packed >= 0 AS packed FROM fetchq.mnt();

SELECT was_dropped FROM fetchq.queue_drop('compat_job');
SELECT task, queue FROM fetchq.jobs ORDER BY queue, task;
