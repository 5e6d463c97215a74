-- Known, intended difference: Fetchq 4 answers false when asked to drop the
-- pick index of the current version (an error it raises and swallows).
-- The differences are recorded in expected_differences/defects_queue_indexes.diff.
SELECT was_created FROM fetchq.queue_create('compat_dqi');
SELECT * FROM fetchq.queue_drop_version('compat_dqi', 0);
SELECT * FROM fetchq.queue_drop_indexes('compat_dqi_missing');
SELECT * FROM fetchq.queue_create_indexes('compat_dqi_missing');
SELECT was_dropped FROM fetchq.queue_drop('compat_dqi');
