-- queue_create / queue_get_id / queue_drop, and what a queue is made of:
-- its catalog row, its default maintenance jobs, its three tables' columns.
-- Ids differ between the two databases: only compared to the catalog's.

SELECT was_created,
       queue_id = (SELECT id FROM fetchq.queues WHERE name = 'compat_lc') AS id_is_catalog_id
FROM fetchq.queue_create('compat_lc');

-- A second create keeps the queue and answers its id.
SELECT was_created,
       queue_id = (SELECT id FROM fetchq.queues WHERE name = 'compat_lc') AS id_is_catalog_id
FROM fetchq.queue_create('compat_lc');

SELECT queue_id = (SELECT id FROM fetchq.queues WHERE name = 'compat_lc') AS id_is_catalog_id
FROM fetchq.queue_get_id('compat_lc');

SELECT name, is_active, current_version, max_attempts, logs_retention, metrics_retention,
       config, created_at IS NOT NULL AS has_created_at
FROM fetchq.queues WHERE name = 'compat_lc';

SELECT task, queue, settings, payload
FROM fetchq.jobs WHERE queue = 'compat_lc' ORDER BY task;

-- Fetchq 4's columns of the queue tables (fetchq may add its own: see
-- defects_queue), in Fetchq 4's order.
SELECT c.table_name, c.column_name, c.data_type, c.character_maximum_length, c.is_nullable,
       replace(c.column_default, 'compat_lc', '<q>') AS column_default
FROM information_schema.columns AS c
JOIN (VALUES ('docs', 'subject', 1), ('docs', 'version', 2), ('docs', 'priority', 3),
             ('docs', 'status', 4), ('docs', 'attempts', 5), ('docs', 'iterations', 6),
             ('docs', 'next_iteration', 7), ('docs', 'lock_upgrade', 8), ('docs', 'created_at', 9),
             ('docs', 'last_iteration', 10), ('docs', 'payload', 11),
             ('logs', 'id', 1), ('logs', 'created_at', 2), ('logs', 'subject', 3),
             ('logs', 'message', 4), ('logs', 'details', 5), ('logs', 'ref_id', 6),
             ('metrics', 'id', 1), ('metrics', 'created_at', 2), ('metrics', 'metric', 3),
             ('metrics', 'value', 4)) AS f(tab, col, pos)
  ON c.table_name = 'compat_lc__' || f.tab AND c.column_name = f.col
WHERE c.table_schema = 'fetchq_data'
ORDER BY f.tab, f.pos;
-- Columns in Fetchq 4's order, whatever follows them.
SELECT c.table_name, string_agg(c.column_name, ', ' ORDER BY c.ordinal_position) AS first_columns
FROM information_schema.columns AS c
WHERE c.table_schema = 'fetchq_data' AND c.table_name LIKE 'compat\_lc\_\_%'
  AND c.ordinal_position <= CASE split_part(c.table_name, '__', 2)
                                WHEN 'docs' THEN 11 WHEN 'logs' THEN 6 ELSE 4 END
GROUP BY c.table_name ORDER BY c.table_name;

-- A queue with the longest name allowed (40 characters).
SELECT was_created FROM fetchq.queue_create('compat_lc_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx');
SELECT count(*) AS tables FROM pg_catalog.pg_tables
WHERE schemaname = 'fetchq_data' AND tablename LIKE 'compat\_lc\_4567890123456789012345678901234\_\_%';

-- Two queues are independent.
SELECT was_created FROM fetchq.queue_create('compat_lc2');
SELECT queued_docs FROM fetchq.doc_push('compat_lc', 'same_subject');
SELECT queued_docs FROM fetchq.doc_push('compat_lc2', 'same_subject');

SELECT was_dropped,
       queue_id IS NOT NULL AS has_queue_id
FROM fetchq.queue_drop('compat_lc');
SELECT count(*) AS catalog_rows FROM fetchq.queues WHERE name = 'compat_lc';
SELECT count(*) AS jobs FROM fetchq.jobs WHERE queue = 'compat_lc';
SELECT count(*) AS tables FROM pg_catalog.pg_tables
WHERE schemaname = 'fetchq_data' AND tablename LIKE 'compat\_lc\_\_%';
SELECT subject FROM fetchq_data.compat_lc2__docs;

-- A dropped queue can be created again, empty.
SELECT was_created FROM fetchq.queue_create('compat_lc');
SELECT count(*) AS docs FROM fetchq_data.compat_lc__docs;

SELECT was_dropped FROM fetchq.queue_drop('compat_lc');
SELECT was_dropped FROM fetchq.queue_drop('compat_lc2');
SELECT was_dropped FROM fetchq.queue_drop('compat_lc_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx');
SELECT count(*) AS leftover_jobs FROM fetchq.jobs WHERE queue LIKE 'compat\_lc%';
