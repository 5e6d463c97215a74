-- Known, intended differences in notifications: switching them on or off
-- for a queue that does not exist fails in both, with different errors.
-- The differences are recorded in expected_differences/defects_notify.diff.
SELECT * FROM fetchq.queue_enable_notify('compat_dn_missing');
SELECT * FROM fetchq.queue_disable_notify('compat_dn_missing');
SELECT * FROM fetchq.queue_enable_notify('COMPAT_DN');
