-- A catalog row without its tables (left by a manual INSERT, by a restore
-- of fetchq.queues alone, or by Fetchq 4's queue_get_id): queue_create
-- makes the queue whole and usable.
INSERT INTO fetchq.queues (name, created_at) VALUES ('compat_half', now());
SELECT was_created FROM fetchq.queue_create('compat_half');
SELECT count(*) AS tables FROM pg_catalog.pg_tables
WHERE schemaname = 'fetchq_data' AND tablename LIKE 'compat\_half\_\_%';
SELECT * FROM fetchq.doc_push('compat_half', 'a');
SELECT subject FROM fetchq.doc_pick('compat_half');
SELECT was_dropped FROM fetchq.queue_drop('compat_half');
