-- doc_push in each single-document overload, doc_append, and what lands in
-- the docs table. Timestamps are shown only relative to the push.
SELECT was_created FROM fetchq.queue_create('compat_push');

-- (queue, subject): pending now, version 0, priority 0, payload {}.
SELECT * FROM fetchq.doc_push('compat_push', 'p01');
-- The same subject again: nothing queued.
SELECT * FROM fetchq.doc_push('compat_push', 'p01');

-- (queue, subject, payload)
SELECT * FROM fetchq.doc_push('compat_push', 'p02', '{"a": 1, "b": [1, 2, {"c": null}]}');
SELECT * FROM fetchq.doc_push('compat_push', 'p03', '[]');
SELECT * FROM fetchq.doc_push('compat_push', 'p04', '"a string"');
SELECT * FROM fetchq.doc_push('compat_push', 'p02', '{"other": true}');

-- (queue, subject, payload, next_iteration): future is planned, past pending.
SELECT * FROM fetchq.doc_push('compat_push', 'p05', '{"when": "future"}', now() + interval '1 hour');
SELECT * FROM fetchq.doc_push('compat_push', 'p06', '{"when": "past"}', now() - interval '1 hour');
SELECT * FROM fetchq.doc_push('compat_push', 'p07', '{"when": "now"}', now());
SELECT * FROM fetchq.doc_push('compat_push', 'p08', '{}', '2999-12-31 23:59:59+00'::timestamptz);
SELECT * FROM fetchq.doc_push('compat_push', 'p09', '{}', '2000-01-01 00:00:00+00'::timestamptz);

-- (queue, subject, version, priority, next_iteration, payload)
SELECT * FROM fetchq.doc_push('compat_push', 'p10', 0, 0, now(), '{}');
SELECT * FROM fetchq.doc_push('compat_push', 'p11', 1, 5, now(), '{"v": 1}');
SELECT * FROM fetchq.doc_push('compat_push', 'p12', 2, -3, now() + interval '2 days', '{"v": 2}');
SELECT * FROM fetchq.doc_push('compat_push', 'p13', -1, 2147483647, now() - interval '1 day', '{}');
SELECT * FROM fetchq.doc_push('compat_push', 'p11', 1, 5, now(), '{"v": 1}');

-- Subjects and payloads that only need to survive the trip.
SELECT * FROM fetchq.doc_push('compat_push', 'p14 with spaces', '{}');
SELECT * FROM fetchq.doc_push('compat_push', 'p15/ü/日本/😀', '{"text": "ünïcödé 日本語 😀"}');
SELECT * FROM fetchq.doc_push('compat_push', 'p16\back\slash', '{"path": "C:\\dir\\file", "nl": "a\nb"}');
SELECT * FROM fetchq.doc_push('compat_push', 'p17-"double"-quotes', '{"q": "say \"hi\""}');
SELECT * FROM fetchq.doc_push('compat_push', 'p18', '{"deep": {"a": {"b": {"c": [1, 2.5, -3e2, true, false, null]}}}}');
SELECT * FROM fetchq.doc_push('compat_push', 'p19', 'null');
SELECT * FROM fetchq.doc_push('compat_push', 'p20 ', '{"trailing": "space"}');
SELECT * FROM fetchq.doc_push('compat_push', 'p20', '{"trailing": "none"}');
SELECT * FROM fetchq.doc_push('compat_push', 'P20', '{"case": "upper"}');
-- Exactly 50 characters, ASCII and multibyte.
SELECT * FROM fetchq.doc_push('compat_push', repeat('x', 50), '{}');
SELECT * FROM fetchq.doc_push('compat_push', repeat('é', 50), '{}');

SELECT '[' || subject || ']' AS subject, version, priority, status, attempts, iterations, payload,
       jsonb_typeof(payload) AS payload_type, next_iteration > now() AS in_future,
       created_at IS NOT NULL AS has_created_at,
       last_iteration IS NULL AS no_last_iteration,
       lock_upgrade IS NULL AS no_lock_upgrade
FROM fetchq_data.compat_push__docs
ORDER BY subject COLLATE "C";

SELECT next_iteration FROM fetchq_data.compat_push__docs WHERE subject IN ('p08', 'p09')
ORDER BY subject;

-- doc_append: a pending document with a generated (uuid) subject.
SELECT length(subject) AS subject_length FROM fetchq.doc_append('compat_push', '{"appended": 1}');
SELECT length(subject) AS subject_length FROM fetchq.doc_append('compat_push', '{"appended": 2}', 3, 7);
SELECT subject ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' AS is_uuid,
       version, priority, status, attempts, iterations, payload,
       next_iteration <= now() AS due
FROM fetchq_data.compat_push__docs
WHERE payload ? 'appended'
ORDER BY payload->>'appended';

SELECT count(*) AS docs, count(DISTINCT subject) AS subjects FROM fetchq_data.compat_push__docs;

SELECT was_dropped FROM fetchq.queue_drop('compat_push');
