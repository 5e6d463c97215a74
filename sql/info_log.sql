-- info, init, upgrades, destroy, log_error, trace, queue_enable/disable_notify
-- and the notification triggers (their payloads: test/notify_test.sh).
\set VERBOSITY default

-- info: the Fetchq API level, and the extension's own version
SELECT version, extension_version = (SELECT extversion FROM pg_extension
    WHERE extname = 'fetchq') AS is_installed_version
FROM fetchq.info();
SELECT * FROM fetchq.init();
SELECT * FROM fetchq.upgrade__310__320();
SELECT * FROM fetchq.upgrade__320__330();

SELECT was_created FROM fetchq.queue_create('info_log_a');
SELECT was_created FROM fetchq.queue_create('info_log_b');

-- log_error: values are parameters, never SQL text
SELECT * FROM fetchq.log_error('info_log_a', 'it''s "x" \ ü', 'failed: it''s 100% \n ☃',
    '{"why": "quote '' and \\ backslash", "n": 1}');
SELECT * FROM fetchq.log_error('info_log_a', 'it''s "x" \ ü', 'again', NULL, 'ref-ü''1');
SELECT * FROM fetchq.log_error('info_log_b', 'info_log_s2', repeat('m', 255), '{}');
SELECT * FROM fetchq.log_error('info_log_b', repeat('ü', 50), 'fifty characters', '{}');
SELECT id, subject, message, details, ref_id, created_at IS NOT NULL AS has_created_at
FROM fetchq_data.info_log_a__logs ORDER BY id;
SELECT id, subject, length(message) AS message_length FROM fetchq_data.info_log_b__logs
ORDER BY id;

-- log_error: errors
SELECT * FROM fetchq.log_error('info_log_a', 'x', repeat('m', 256), '{}');
SELECT * FROM fetchq.log_error('info_log_a', repeat('ü', 51), 'm', '{}');
SELECT * FROM fetchq.log_error('info_log_nope', 'x', 'm', '{}');
SELECT * FROM fetchq.log_error('Info-Log', 'x', 'm', '{}');
SELECT * FROM fetchq.log_error(NULL, 'x', 'm', '{}');
SELECT * FROM fetchq.log_error('info_log_a', NULL, 'm', '{}');
SELECT * FROM fetchq.log_error('info_log_a', 'x', NULL, '{}');
SELECT * FROM fetchq.log_error('info_log_a', 'x', 'm', '{}', NULL);
SELECT count(*) AS logs_a FROM fetchq_data.info_log_a__logs;

-- trace: the document (if any) then the logs of each queue, in queue order
SELECT * FROM fetchq.doc_push('info_log_a', 'it''s "x" \ ü', '{"p": "ü''"}');
SELECT * FROM fetchq.doc_push('info_log_b', 'it''s "x" \ ü');
SELECT * FROM fetchq.log_error('info_log_b', 'it''s "x" \ ü', 'in b', '{}');
SELECT step, created_at IS NOT NULL AS has_created_at, queue, type, info,
    details - 'created_at' - 'next_iteration' - 'last_iteration' AS details
FROM fetchq.trace('it''s "x" \ ü');
SELECT step, queue, type, info FROM fetchq.trace('it''s "x" \ ü', 'desc');
SELECT step, queue, type, info FROM fetchq.trace('it''s "x" \ ü', 'Asc');
SELECT step, queue, type, info FROM fetchq.trace(repeat('ü', 50), 'DESC');
SELECT count(*) AS no_rows FROM fetchq.trace('info_log_unknown');
SELECT count(*) AS no_rows FROM fetchq.trace(repeat('x', 60));
-- trace: errors (the order is never pasted into SQL)
SELECT * FROM fetchq.trace('x', 'ASC; DROP TABLE fetchq.queues');
SELECT * FROM fetchq.trace('x', '');
SELECT * FROM fetchq.trace('x', NULL);
SELECT * FROM fetchq.trace(NULL);

-- notifications: the catalog trigger comes with the extension, and the one
-- that empties the backends' caches of queue settings, and the one that
-- keeps dead_letter_set_by truthful
SELECT tgname, tgfoid::regprocedure, tgenabled FROM pg_trigger
WHERE tgrelid = 'fetchq.queues'::regclass AND NOT tgisinternal ORDER BY tgname;

-- enable / disable: (re)create and drop the two document triggers
SELECT * FROM fetchq.queue_enable_notify('info_log_a');
SELECT * FROM fetchq.queue_enable_notify('info_log_a');
SELECT tgname, tgfoid::regprocedure, tgtype FROM pg_trigger
WHERE tgrelid = 'fetchq_data.info_log_a__docs'::regclass ORDER BY tgname;
-- documents move as usual with the triggers on
SELECT * FROM fetchq.doc_push('info_log_a', 'info_log_s1', '{}');
SELECT * FROM fetchq.doc_push('info_log_a', 'info_log_later', 0, 0, now() + interval '1 hour', '{}');
SELECT subject FROM fetchq.doc_pick('info_log_a', 0, 2, '5m') ORDER BY subject;
SELECT * FROM fetchq.doc_complete('info_log_a', 'info_log_s1');
SELECT * FROM fetchq.doc_kill('info_log_a', 'it''s "x" \ ü');
SELECT subject, status FROM fetchq_data.info_log_a__docs ORDER BY subject;
SELECT * FROM fetchq.queue_disable_notify('info_log_a');
SELECT * FROM fetchq.queue_disable_notify('info_log_a');
SELECT count(*) AS triggers_left FROM pg_trigger
WHERE tgrelid = 'fetchq_data.info_log_a__docs'::regclass;
-- the longest queue name: trigger names cut to 63 bytes, still distinct
SELECT was_created FROM fetchq.queue_create('info_log_' || repeat('x', 31));
SELECT * FROM fetchq.queue_enable_notify('info_log_' || repeat('x', 31));
SELECT tgname, length(tgname) FROM pg_trigger
WHERE tgrelid = ('fetchq_data.info_log_' || repeat('x', 31) || '__docs')::regclass
ORDER BY tgname;
SELECT * FROM fetchq.queue_disable_notify('info_log_' || repeat('x', 31));
SELECT was_dropped FROM fetchq.queue_drop('info_log_' || repeat('x', 31));
-- errors
SELECT * FROM fetchq.queue_enable_notify('info_log_nope');
SELECT * FROM fetchq.queue_disable_notify('info_log_nope');
SELECT * FROM fetchq.queue_enable_notify('info_log_"; DROP');
SELECT * FROM fetchq.queue_enable_notify(NULL);
SELECT * FROM fetchq.queue_disable_notify(repeat('x', 41));

-- trigger functions refuse to run outside a row trigger or on other tables
SELECT fetchq.trigger_notify_as_json();
SELECT fetchq.trigger_docs_notify_insert();
CREATE TABLE info_log_t (id int, subject int);
CREATE TRIGGER info_log_stmt AFTER INSERT ON info_log_t
    FOR EACH STATEMENT EXECUTE FUNCTION fetchq.trigger_notify_as_json();
INSERT INTO info_log_t VALUES (1, 1);
DROP TRIGGER info_log_stmt ON info_log_t;
CREATE TRIGGER info_log_ins AFTER INSERT ON info_log_t
    FOR EACH ROW EXECUTE FUNCTION fetchq.trigger_docs_notify_insert();
INSERT INTO info_log_t VALUES (1, 1);
DROP TRIGGER info_log_ins ON info_log_t;
CREATE TRIGGER info_log_upd BEFORE UPDATE ON info_log_t
    FOR EACH ROW EXECUTE FUNCTION fetchq.trigger_docs_notify_update();
INSERT INTO info_log_t VALUES (2, 2);
UPDATE info_log_t SET id = 3;
DROP TRIGGER info_log_upd ON info_log_t;
-- trigger_notify_as_json on any table, BEFORE: the row is kept
CREATE TRIGGER info_log_json BEFORE INSERT OR UPDATE OR DELETE ON info_log_t
    FOR EACH ROW EXECUTE FUNCTION fetchq.trigger_notify_as_json();
INSERT INTO info_log_t VALUES (4, 4);
UPDATE info_log_t SET id = 5 WHERE id = 4;
DELETE FROM info_log_t WHERE id = 5;
SELECT * FROM info_log_t ORDER BY id;
DROP TABLE info_log_t;

-- destroy: every queue and counter goes; the extension stays. Rolled back,
-- since the regression database is shared by all test files.
BEGIN;
SELECT count(*) > 0 AS has_metrics FROM fetchq.metrics WHERE queue = 'info_log_a';
SELECT count(*) AS jobs FROM fetchq.jobs WHERE queue LIKE 'info\_log\_%';
SELECT * FROM fetchq.destroy_with_terrible_consequences();
SELECT count(*) AS queues FROM fetchq.queues;
SELECT count(*) AS tables FROM pg_tables WHERE schemaname = 'fetchq_data';
SELECT count(*) AS metrics FROM fetchq.metrics;
SELECT count(*) AS metrics_writes FROM fetchq.metrics_writes;
SELECT task, queue FROM fetchq.jobs ORDER BY task;
SELECT was_created FROM fetchq.queue_create('info_log_a');
SELECT * FROM fetchq.doc_push('info_log_a', 'after destroy');
SELECT count(*) AS docs FROM fetchq_data.info_log_a__docs;
ROLLBACK;
SELECT name FROM fetchq.queues WHERE name LIKE 'info\_log\_%' ORDER BY name;

SELECT was_dropped FROM fetchq.queue_drop('info_log_a');
SELECT was_dropped FROM fetchq.queue_drop('info_log_b');
