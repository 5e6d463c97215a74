-- Known, intended differences around queues (see DESIGN.md section 6):
-- Fetchq 4 swallows errors into false/NULL, registers unknown names, accepts
-- names its own functions cannot use. fetchq raises a clear error instead.
-- The differences are recorded in expected_differences/defects_queue.diff.

-- A name longer than 40 characters: false vs an error.
SELECT was_created, queue_id IS NOT NULL AS has_id FROM fetchq.queue_create('compat_dq_456789012345678901234567890123456');
-- Characters outside [a-z0-9_]: false vs an error (for the reference, the
-- text went into its CREATE TABLE statements).
SELECT was_created, queue_id IS NOT NULL AS has_id FROM fetchq.queue_create('compat_dq;x');
SELECT was_created, queue_id IS NOT NULL AS has_id FROM fetchq.queue_create('compat-dq');
SELECT was_created, queue_id IS NOT NULL AS has_id FROM fetchq.queue_create(NULL);
SELECT name FROM fetchq.queues WHERE name LIKE 'compat%d%q%' ORDER BY name;

-- A name starting with a digit: the reference's unquoted table names break
-- (false); fetchq quotes them and creates the queue.
SELECT was_created FROM fetchq.queue_create('1compat_dq');
SELECT * FROM fetchq.doc_push('1compat_dq', 'a');
SELECT was_dropped FROM fetchq.queue_drop('1compat_dq');
-- An empty name: the reference creates tables fetchq_data.__docs, ...
SELECT was_created FROM fetchq.queue_create('');
SELECT was_dropped FROM fetchq.queue_drop('');

-- An uppercase name: created by the reference (its tables folded to lower
-- case), refused by fetchq.
SELECT was_created FROM fetchq.queue_create('COMPAT_DQ_UPPER');
SELECT * FROM fetchq.doc_push('COMPAT_DQ_UPPER', 'a', '{}');
SELECT subject FROM fetchq.doc_pick('COMPAT_DQ_UPPER', 0, 1, '5m');
SELECT was_dropped FROM fetchq.queue_drop('COMPAT_DQ_UPPER');

-- Dropping a queue that does not exist: (false, NULL) vs an error.
SELECT was_dropped, queue_id IS NOT NULL AS has_id FROM fetchq.queue_drop('compat_dq_missing');

-- queue_get_id of an unknown name: the reference registers a catalog row
-- without tables; fetchq raises an error.
SELECT queue_id IS NOT NULL AS has_id FROM fetchq.queue_get_id('compat_dq_ghost');
SELECT name FROM fetchq.queues WHERE name = 'compat_dq_ghost';
DELETE FROM fetchq.queues WHERE name = 'compat_dq_ghost';

-- The catalog: same tables and columns, plus fetchq's own columns (queue
-- features such as default_ttl), and the uuid default of metrics_writes (no
-- uuid-ossp needed). fetchq.metrics is a view of the striped counters
-- (fetchq.counters, fetchq.custom_counters): one row per (queue, metric,
-- slot), hence its extra slot column; it has no defaults or constraints.
SELECT table_name, column_name, data_type, character_maximum_length, is_nullable,
       column_default
FROM information_schema.columns
WHERE table_schema = 'fetchq' AND table_name IN ('queues', 'metrics', 'metrics_writes', 'jobs')
ORDER BY table_name, ordinal_position;
-- Queue names are unique in fetchq.
SELECT conname, pg_get_constraintdef(oid) AS definition
FROM pg_catalog.pg_constraint
WHERE conrelid = 'fetchq.queues'::regclass AND contype IN ('u', 'c')
ORDER BY conname;
-- A queue's tables: Fetchq 4's columns first, then fetchq's own.
SELECT was_created FROM fetchq.queue_create('compat_dq_cols');
SELECT table_name, column_name, data_type, is_nullable
FROM information_schema.columns
WHERE table_schema = 'fetchq_data' AND table_name LIKE 'compat\_dq\_cols\_\_%'
ORDER BY table_name, ordinal_position;
SELECT was_dropped FROM fetchq.queue_drop('compat_dq_cols');
