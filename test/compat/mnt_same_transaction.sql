-- mnt() in the transaction that created its queues and reset the global
-- jobs, as Fetchq 4's own test suite does: a job is due when its
-- next_iteration is before now(), so the log-pack job reset to now() in
-- this transaction is not run; every per-queue job is (mnt() makes them due).
-- requires: fetchq.mnt()
BEGIN;
UPDATE fetchq.jobs SET attempts = 0, iterations = 0, next_iteration = now(), last_iteration = NULL
WHERE queue = '*';
SELECT was_created FROM fetchq.queue_create('compat_mtx_a');
SELECT was_created FROM fetchq.queue_create('compat_mtx_b');
SELECT processed FROM fetchq.mnt();
SELECT task, queue, iterations FROM fetchq.jobs ORDER BY queue, task;
COMMIT;
SELECT was_dropped FROM fetchq.queue_drop('compat_mtx_a');
SELECT was_dropped FROM fetchq.queue_drop('compat_mtx_b');
