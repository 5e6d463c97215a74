-- Notifications: queue_create / queue_drop announce the queue; with
-- queue_enable_notify every document move is announced on
-- fetchq__<queue>__<pnd|pln|act|cpl|kll> with the subject as payload (the
-- Node.js client's workers wake up on fetchq__<queue>__pnd).
LISTEN fetchq_queue_create;
LISTEN fetchq_queue_drop;
LISTEN fetchq__compat_ntf__pnd;
LISTEN fetchq__compat_ntf__pln;
LISTEN fetchq__compat_ntf__act;
LISTEN fetchq__compat_ntf__cpl;
LISTEN fetchq__compat_ntf__kll;

SELECT was_created FROM fetchq.queue_create('compat_ntf');

-- Not enabled yet: documents move silently.
SELECT * FROM fetchq.doc_push('compat_ntf', 'n0', '{}');

SELECT * FROM fetchq.queue_enable_notify('compat_ntf');
SELECT * FROM fetchq.queue_enable_notify('compat_ntf');

SELECT * FROM fetchq.doc_push('compat_ntf', 'n1', '{}');
SELECT * FROM fetchq.doc_push('compat_ntf', 'n2', '{}', now() + interval '1 hour');
SELECT subject FROM fetchq.doc_pick('compat_ntf', 0, 1, '5m');
SELECT subject FROM fetchq.doc_pick('compat_ntf', 0, 1, '5m');
SELECT * FROM fetchq.doc_complete('compat_ntf', 'n0');
SELECT * FROM fetchq.doc_kill('compat_ntf', 'n1');
SELECT * FROM fetchq.doc_push('compat_ntf', 'n3', '{}');
SELECT subject FROM fetchq.doc_pick('compat_ntf', 0, 1, '5m');
SELECT * FROM fetchq.doc_reschedule('compat_ntf', 'n3', now() + interval '1 hour');
SELECT * FROM fetchq.doc_push('compat_ntf', 0, now(), '(''n4'', 0, ''{}'', {DATA}), (''n5'', 0, ''{}'', {DATA})');
-- Nothing moves: nothing announced.
SELECT * FROM fetchq.doc_push('compat_ntf', 'n4', '{}');
SELECT * FROM fetchq.doc_complete('compat_ntf', 'n4');

SELECT * FROM fetchq.queue_disable_notify('compat_ntf');
SELECT * FROM fetchq.queue_disable_notify('compat_ntf');
SELECT * FROM fetchq.doc_push('compat_ntf', 'n6', '{}');

-- The Node.js client's wake-up.
NOTIFY fetchq__compat_ntf__pnd, 'true';

SELECT was_dropped FROM fetchq.queue_drop('compat_ntf');
UNLISTEN *;
