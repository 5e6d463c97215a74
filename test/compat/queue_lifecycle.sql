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

SELECT table_name, column_name, data_type, character_maximum_length, is_nullable,
       replace(column_default, 'compat_lc', '<q>') AS column_default
FROM information_schema.columns
WHERE table_schema = 'fetchq_data' AND table_name LIKE 'compat\_lc\_\_%'
ORDER BY table_name, ordinal_position;

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
