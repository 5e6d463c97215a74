-- extends: extension
-- The extension with its queue's counters deferred (queue_set_counters):
-- a commit adds its counter changes to shared memory instead of writing the
-- counter row, and the scheduler folds them every
-- fetchq.counters_fold_interval (docs/operations.md#deferred-counters).
-- Everything else is bench/extension.sql's. Run for push 1 and pick 1 +
-- complete only (bench/driver.py DEFERRED_OPS).

-- @setup
SELECT * FROM fetchq.queue_set_counters('bq', 'deferred');
