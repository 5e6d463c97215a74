-- Known, intended differences in queue settings and listings: Fetchq 4
-- reports success for queues that do not exist, swallows bad values, and
-- stores whatever retention text it is given; fetchq raises a clear error.
-- The differences are recorded in expected_differences/defects_admin.diff.
SELECT was_created FROM fetchq.queue_create('compat_da');

-- A queue that does not exist.
SELECT * FROM fetchq.queue_set_max_attempts('compat_da_missing', 3);
SELECT * FROM fetchq.queue_set_current_version('compat_da_missing', 1);
SELECT * FROM fetchq.queue_set_logs_retention('compat_da_missing', '1h');
SELECT subject FROM fetchq.queue_top('compat_da_missing', 0, 10, 0);
SELECT name, is_active FROM fetchq.queue_status('compat_da_missing');

-- Bad values.
SELECT * FROM fetchq.queue_set_max_attempts('compat_da', NULL);
SELECT * FROM fetchq.queue_set_max_attempts('compat_da', -1);
SELECT * FROM fetchq.queue_set_current_version('compat_da', NULL);
SELECT * FROM fetchq.queue_set_logs_retention('compat_da', 'forever');
SELECT * FROM fetchq.queue_set_logs_retention('compat_da', 'it''s');
SELECT * FROM fetchq.queue_set_logs_retention('compat_da', NULL);
SELECT max_attempts, current_version, logs_retention FROM fetchq.queues WHERE name = 'compat_da';
SELECT subject FROM fetchq.queue_top('compat_da', 0, -1, 0);
SELECT subject FROM fetchq.queue_top('compat_da', 0, 10, -1);

SELECT was_dropped FROM fetchq.queue_drop('compat_da');
