-- fetchq's own errors quote a caller's value whole only up to 64 bytes; a
-- longer one is cut (between UTF-8 characters) and followed by its size, so
-- that a 100 kB argument does not come back whole in the error.
SELECT was_created FROM fetchq.queue_create('error_echo_q');

-- queue names
SELECT * FROM fetchq.queue_create(repeat('x', 100000));
SELECT * FROM fetchq.doc_push(repeat('Q', 100000), 'a');
SELECT * FROM fetchq.doc_pick(repeat('éx', 50000), 0, 1, '5m');
-- at most 64 bytes: still quoted whole
SELECT * FROM fetchq.queue_create(repeat('X', 64));
-- durations
SELECT * FROM fetchq.doc_pick('error_echo_q', 0, 1, repeat('x', 100000));
SELECT * FROM fetchq.queue_set_default_ttl('error_echo_q', repeat('1', 100000) || 'x');
SELECT * FROM fetchq.queue_set_logs_retention('error_echo_q', repeat('x', 100000));
SELECT * FROM fetchq.queue_drop_logs('error_echo_q', repeat('x', 100000));
-- metrics retention: JSON token, unknown keys, durations, retain unit
SELECT * FROM fetchq.queue_set_metrics_retention('error_echo_q', repeat('x', 100000));
SELECT * FROM fetchq.queue_set_metrics_retention('error_echo_q',
    format('[{"from": "1 day", "to": "0s", "retain": "hour", "%s": 1}]', repeat('k', 100000)));
SELECT * FROM fetchq.queue_drop_metrics('error_echo_q',
    format('[{"from": "%s", "to": "0s", "retain": "hour"}]', repeat('x', 100000))::jsonb);
SELECT * FROM fetchq.queue_drop_metrics('error_echo_q',
    format('[{"from": "1 day", "to": "0s", "retain": "%s"}]', repeat('x', 100000))::jsonb);
-- utils_ts_retain: table, column, unit
SELECT * FROM fetchq.utils_ts_retain(repeat('x', 100000), 'created_at', 'hour', now(), now());
SELECT * FROM fetchq.utils_ts_retain(repeat('a.', 50000) || 'a', 'created_at', 'hour', now(), now());
SELECT * FROM fetchq.utils_ts_retain('fetchq_data.error_echo_q__metrics', repeat('x', 100000),
    'hour', now(), now());
SELECT * FROM fetchq.utils_ts_retain('fetchq_data.error_echo_q__metrics', 'created_at',
    repeat('x', 100000), now(), now());
-- trace order
SELECT * FROM fetchq.trace('a', repeat('x', 100000));

SELECT was_dropped FROM fetchq.queue_drop('error_echo_q');
