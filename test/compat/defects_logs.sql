-- Known, intended differences in logs: Fetchq 4 pastes subject, message
-- and details into SQL text and answers false for anything that breaks it
-- (a quote, NULL details, a missing queue); fetchq stores them or raises a
-- clear error.
-- The differences are recorded in expected_differences/defects_logs.diff.
-- requires: fetchq.log_error(varchar, varchar, varchar, jsonb)
-- requires: fetchq.log_error(varchar, varchar, varchar, jsonb, varchar)
-- requires: fetchq.queue_drop_logs(varchar, varchar)
SELECT was_created FROM fetchq.queue_create('compat_dl');

SELECT * FROM fetchq.log_error('compat_dl', 'it''s', 'subject with a quote', '{}');
SELECT * FROM fetchq.log_error('compat_dl', 's1', 'it''s a message', '{}');
SELECT * FROM fetchq.log_error('compat_dl', 's1', 'details', '{"text": "it''s"}', 'it''s a ref');
SELECT * FROM fetchq.log_error('compat_dl', 's1', 'no details', NULL);
SELECT * FROM fetchq.log_error('compat_dl', NULL, 'no subject', '{}');
SELECT * FROM fetchq.log_error('compat_dl', 's1', NULL, '{}');
SELECT * FROM fetchq.log_error('compat_dl', 's1', repeat('m', 256), '{}');
SELECT * FROM fetchq.log_error('compat_dl_missing', 's1', 'msg', '{}');
SELECT subject, message, details, ref_id FROM fetchq_data.compat_dl__logs ORDER BY id;

SELECT step, type, info FROM fetchq.trace('it''s');

SELECT * FROM fetchq.queue_drop_logs('compat_dl', 'a while'::varchar);
SELECT * FROM fetchq.queue_drop_logs('compat_dl_missing');

SELECT was_dropped FROM fetchq.queue_drop('compat_dl');
