-- Queue settings and listings: queue_set_max_attempts,
-- queue_set_current_version, queue_set_logs_retention, queue_status,
-- queue_top, as the Node.js client's queue initialisation calls them.
SELECT was_created FROM fetchq.queue_create('compat_adm');
SELECT was_created FROM fetchq.queue_create('compat_adm2');

SELECT * FROM fetchq.queue_set_max_attempts('compat_adm', 3);
SELECT * FROM fetchq.queue_set_current_version('compat_adm', 2);
SELECT * FROM fetchq.queue_set_logs_retention('compat_adm', '1h');
SELECT name, is_active, current_version, max_attempts, logs_retention, metrics_retention, config
FROM fetchq.queues WHERE name LIKE 'compat\_adm%' ORDER BY name;

-- Setting the same values again.
SELECT * FROM fetchq.queue_set_max_attempts('compat_adm', 3);
SELECT * FROM fetchq.queue_set_current_version('compat_adm', 2);
SELECT * FROM fetchq.queue_set_logs_retention('compat_adm', '1h');

-- The new max_attempts applies to rejections.
SELECT * FROM fetchq.queue_set_max_attempts('compat_adm', 1);
SELECT * FROM fetchq.doc_push('compat_adm', 'r1', 0, 0, now(), '{}');
SELECT subject FROM fetchq.doc_pick('compat_adm', 0, 1, '5m');
SELECT * FROM fetchq.doc_reject('compat_adm', 'r1', 'once', '{}');
SELECT subject, status FROM fetchq_data.compat_adm__docs WHERE subject = 'r1';

-- Documents of the current version.
SELECT * FROM fetchq.doc_push('compat_adm', 't1', 2, 1, now(), '{"n": 1}');
SELECT * FROM fetchq.doc_push('compat_adm', 't2', 2, 3, now(), '{"n": 2}');
SELECT * FROM fetchq.doc_push('compat_adm', 't3', 2, 2, now() + interval '1 hour', '{"n": 3}');
SELECT * FROM fetchq.doc_push('compat_adm', 't4', 1, 0, now(), '{"n": 4}');
SELECT subject, version, priority FROM fetchq.doc_pick('compat_adm', 2, 1, '5m');

-- queue_top: documents of a version; the reference gives no order, so whole
-- sets are compared, and sizes of pages.
SELECT subject, payload, version, priority, attempts, iterations,
       created_at IS NOT NULL AS has_created_at, last_iteration, lock_upgrade
FROM fetchq.queue_top('compat_adm', 2, 10, 0) ORDER BY subject;
SELECT subject FROM fetchq.queue_top('compat_adm', 1, 10, 0) ORDER BY subject;
SELECT subject FROM fetchq.queue_top('compat_adm', 0, 10, 0) ORDER BY subject;
SELECT subject FROM fetchq.queue_top('compat_adm', 7, 10, 0) ORDER BY subject;
SELECT count(*) AS page FROM fetchq.queue_top('compat_adm', 2, 2, 0);
SELECT count(*) AS page FROM fetchq.queue_top('compat_adm', 2, 2, 2);
SELECT count(*) AS page FROM fetchq.queue_top('compat_adm', 2, 10, 1);
SELECT count(*) AS page FROM fetchq.queue_top('compat_adm', 2, 0, 0);

-- queue_status: (id, name, is_active) of all queues or of one.
SELECT name, is_active, id = (SELECT q.id FROM fetchq.queues q WHERE q.name = s.name) AS id_is_catalog_id
FROM fetchq.queue_status() AS s WHERE name LIKE 'compat\_adm%' ORDER BY name;
SELECT name, is_active FROM fetchq.queue_status('compat_adm');
UPDATE fetchq.queues SET is_active = false WHERE name = 'compat_adm2';
SELECT name, is_active FROM fetchq.queue_status('compat_adm2');

SELECT was_dropped FROM fetchq.queue_drop('compat_adm');
SELECT was_dropped FROM fetchq.queue_drop('compat_adm2');
SELECT name FROM fetchq.queue_status() WHERE name LIKE 'compat\_adm%';
