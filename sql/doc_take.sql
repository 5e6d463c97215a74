-- doc_take and doc_peek: one document named by its subject. A planned or
-- pending document is taken whatever its place in the queue; any other
-- (active, completed, killed, expired, missing) returns no row.
SET client_min_messages = warning;
SELECT was_created FROM fetchq.queue_create('tk');
SELECT fetchq.doc_push('tk', 'pending_low', 0, 1, now() - interval '1 minute', '{"n": 1}');
SELECT fetchq.doc_push('tk', 'pending_high', 0, 9, now() - interval '1 minute', '{"n": 2}');
SELECT fetchq.doc_push('tk', 'planned', 0, 0, now() + interval '1 day', '{"n": 3}');
SELECT fetchq.doc_push('tk', 'done', 0, 0, now() - interval '1 minute', '{}');
SELECT fetchq.doc_push('tk', 'expired', 0, 0, now() - interval '1 minute', '{}',
                       now() - interval '1 second');
SELECT count(*) FROM fetchq.doc_take('tk', 'done', '1 minute');
SELECT * FROM fetchq.doc_complete('tk', 'done');
SELECT fetchq.doc_push('tk', 'gone', 0, 0, now() - interval '1 minute', '{}');
SELECT count(*) FROM fetchq.doc_take('tk', 'gone', '1 minute');
SELECT * FROM fetchq.doc_kill('tk', 'gone');

-- peek changes nothing
SELECT subject, payload, status, attempts FROM fetchq.doc_peek('tk', 'planned');
SELECT count(*) AS missing FROM fetchq.doc_peek('tk', 'nope');
SELECT count(*) AS named FROM fetchq.doc_peek(queue => 'tk', subject => 'planned');

-- the low-priority pending one, though a pick would take the other first;
-- an untyped duration literal, as doc_pick takes it
SELECT subject, payload, attempts, next_iteration > now() + interval '4 minutes' AS locked
FROM fetchq.doc_take('tk', 'pending_low', '5 minutes');
-- a planned one, long before it is due
SELECT subject, attempts
FROM fetchq.doc_take(queue => 'tk', subject => 'planned', duration => '1 minute', nowait => true);
SELECT subject, status FROM fetchq_data.tk__docs ORDER BY subject;

-- active, completed, killed, expired and missing documents: no row, nothing changed
SELECT count(*) AS active FROM fetchq.doc_take('tk', 'pending_low', '1 minute');
SELECT count(*) AS completed FROM fetchq.doc_take('tk', 'done', '1 minute');
SELECT count(*) AS killed FROM fetchq.doc_take('tk', 'gone', '1 minute');
SELECT count(*) AS expired FROM fetchq.doc_take('tk', 'expired', '1 minute');
SELECT count(*) AS missing FROM fetchq.doc_take('tk', 'nope', '1 minute');
SELECT subject, status, attempts FROM fetchq_data.tk__docs ORDER BY subject;

-- the counters moved as for a pick, from planned or pending
SELECT m.metric, m.current_value = c.value AS agrees
FROM fetchq.metric_get('tk') AS m
JOIN LATERAL (SELECT (to_jsonb(x) ->> m.metric)::bigint AS value
              FROM fetchq.metric_compute('tk') AS x) AS c ON c.value IS NOT NULL
ORDER BY m.metric;
SELECT metric, current_value FROM fetchq.metric_get('tk') WHERE metric IN ('pkd', 'act')
ORDER BY metric;

-- a taken document completes as a picked one
SELECT * FROM fetchq.doc_complete('tk', 'planned');

-- bad input
SELECT * FROM fetchq.doc_take('tk', 'pending_high', 'soon');
SELECT * FROM fetchq.doc_take('tk', 'pending_high', '-1 minute');
SELECT * FROM fetchq.doc_take('no_such_queue', 'a', '1 minute');
SELECT * FROM fetchq.doc_peek('no_such_queue', 'a');
SELECT was_dropped FROM fetchq.queue_drop('tk');
