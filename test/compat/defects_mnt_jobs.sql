-- Known, intended difference in maintenance jobs: Fetchq 4 never fills
-- fetchq.jobs.last_iteration; fetchq sets it when a job runs or is
-- rescheduled.
-- The differences are recorded in expected_differences/defects_mnt_jobs.diff.
-- requires: fetchq.mnt_job_run(varchar, integer)
-- The global jobs start afresh (other scenarios may have run them), as
-- the Node.js client's reset does.
UPDATE fetchq.jobs SET attempts = 0, iterations = 0, next_iteration = now(), last_iteration = NULL
WHERE queue = '*';
SELECT was_created FROM fetchq.queue_create('compat_dj');
SELECT * FROM fetchq.mnt_job_reschedule(
    (SELECT id FROM fetchq.jobs WHERE task = 'sts' AND queue = 'compat_dj'), '2 hours');
BEGIN;
UPDATE fetchq.jobs SET next_iteration = now() - interval '1 minute'
WHERE queue = 'compat_dj' AND task = 'mnt';
SELECT * FROM fetchq.mnt_job_run('1m', 10);
COMMIT;
SELECT task, last_iteration IS NOT NULL AS has_last_iteration
FROM fetchq.jobs WHERE queue = 'compat_dj' ORDER BY task;
SELECT was_dropped FROM fetchq.queue_drop('compat_dj');
