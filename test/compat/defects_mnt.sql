-- Known, intended differences in maintenance: Fetchq 4 swallows some errors
-- into NULL and raises others from inside its statements; fetchq raises a
-- clear error for a bad limit or a missing queue. Also the edge of "due":
-- Fetchq 4 promotes a planned document only when next_iteration < now(),
-- while doc_push and doc_pick treat next_iteration <= now() as due.
-- The differences are recorded in expected_differences/defects_mnt.diff.
SELECT was_created FROM fetchq.queue_create('compat_dmn');

SELECT * FROM fetchq.doc_push('compat_dmn', 'p1', '{}', now() + interval '1 hour');
BEGIN;
UPDATE fetchq_data.compat_dmn__docs SET next_iteration = now() WHERE subject = 'p1';
SELECT * FROM fetchq.mnt_make_pending('compat_dmn', 10);
ROLLBACK;

-- Negative and NULL limits.
SELECT * FROM fetchq.mnt_make_pending('compat_dmn', -1);
SELECT * FROM fetchq.mnt_reschedule_orphans('compat_dmn', -1);
SELECT * FROM fetchq.mnt_mark_dead('compat_dmn', -1);
SELECT * FROM fetchq.mnt_run('compat_dmn', -1);
SELECT * FROM fetchq.mnt_run('compat_dmn', NULL);
SELECT queue FROM fetchq.mnt_run_all(-1) WHERE queue = 'compat_dmn';

-- A queue that does not exist.
SELECT * FROM fetchq.mnt_make_pending('compat_dmn_missing', 10);
SELECT * FROM fetchq.mnt_reschedule_orphans('compat_dmn_missing', 10);
SELECT * FROM fetchq.mnt_mark_dead('compat_dmn_missing', 10);
SELECT * FROM fetchq.mnt_run('compat_dmn_missing', 10);

SELECT was_dropped FROM fetchq.queue_drop('compat_dmn');
