-- The bulk doc_push(queue, version, next_iteration, data) of Fetchq 4, with
-- the tuple text the Node.js client writes:
--   ('subject', priority, 'json payload', {DATA}), ...
-- requires: fetchq.doc_push(varchar, integer, timestamptz, varchar)
SELECT was_created FROM fetchq.queue_create('compat_bulk');

SELECT * FROM fetchq.doc_push('compat_bulk', 0, now(),
    '(''b01'', 0, ''{"n": 1}'', {DATA}), (''b02'', 5, ''{"n": 2}'', {DATA}), (''b03'', -1, ''{}'', {DATA})');

-- Future: planned; another version.
SELECT * FROM fetchq.doc_push('compat_bulk', 3, now() + interval '1 hour',
    '(''b04'', 1, ''{"n": 4}'', {DATA}), (''b05'', 2, ''[1, 2]'', {DATA})');

-- Past: pending.
SELECT * FROM fetchq.doc_push('compat_bulk', 1, now() - interval '1 hour',
    '(''b06'', 0, ''{"n": 6}'', {DATA})');

-- Subjects already there are skipped, the others queued.
SELECT * FROM fetchq.doc_push('compat_bulk', 0, now(),
    '(''b01'', 9, ''{"n": "dup"}'', {DATA}), (''b07'', 0, ''{"n": 7}'', {DATA})');
-- Only known subjects: nothing queued.
SELECT * FROM fetchq.doc_push('compat_bulk', 0, now(), '(''b01'', 0, ''{}'', {DATA})');
-- The same subject twice in one list: queued once, the first one wins.
SELECT * FROM fetchq.doc_push('compat_bulk', 0, now(),
    '(''b08'', 1, ''{"first": true}'', {DATA}), (''b08'', 2, ''{"first": false}'', {DATA})');

-- Quotes escaped the way the Node.js client escapes them (doubled in the
-- tuple text), unicode, backslashes, NULL payload, spacing and newlines.
SELECT * FROM fetchq.doc_push('compat_bulk', 0, now(),
    '(''b09 it''''s'', 0, ''{"text": "it''''s"}'', {DATA}),
     ( ''b10/ü/日本/😀'' ,  3 , ''{"text": "ünïcödé 😀"}'' , {DATA} ),
     (''b11\x'', 0, ''{"path": "C:\\dir"}'', {DATA}),
     (''b12'', 0, NULL, {DATA}),
     (E''b15\tE'''' string'', 0, E''{"e": "\\u00e9"}'', {DATA})');

-- A single tuple with a 50 character subject.
SELECT * FROM fetchq.doc_push('compat_bulk', 0, now(),
    '(''' || repeat('z', 50) || ''', 0, ''{}'', {DATA})');

-- What the Node.js client sends for docs [['b13', 0, {a: "x'y"}], ['b14', 4]]:
SELECT * FROM fetchq.doc_push( 'compat_bulk', 0, NOW(), '( ''b13'', 0, ''{"a":"x''''y"}'', {DATA}), ( ''b14'', 4, ''{}'', {DATA})');

SELECT subject, version, priority, status, attempts, iterations, payload,
       next_iteration > now() AS in_future,
       created_at IS NOT NULL AS has_created_at,
       last_iteration IS NULL AS no_last_iteration,
       lock_upgrade IS NULL AS no_lock_upgrade
FROM fetchq_data.compat_bulk__docs
ORDER BY subject COLLATE "C";

-- Documents pushed together share their next_iteration.
SELECT version, count(DISTINCT next_iteration) AS distinct_next_iterations, count(*) AS docs
FROM fetchq_data.compat_bulk__docs
WHERE subject IN ('b01', 'b02', 'b03', 'b04', 'b05')
GROUP BY version ORDER BY version;

SELECT was_dropped FROM fetchq.queue_drop('compat_bulk');
