-- fetchq.plan_cache_queues: a backend keeps the prepared statements of at
-- most that many queues (the least recently used go at the start of the next
-- fetchq call); a queue whose statements went works as before.

-- The queues whose statements this backend keeps, as its memory contexts show.
CREATE VIEW plan_cache_queues AS
SELECT count(DISTINCT (regexp_match(ident, 'fetchq_data\.(pc_q\d+)__'))[1]) AS queues
FROM pg_backend_memory_contexts
WHERE name = 'CachedPlanSource' AND ident ~ 'fetchq_data\.pc_q\d+__';

SELECT count(*) FROM (SELECT fetchq.queue_create('pc_q' || g) FROM generate_series(1, 8) g) c;

SET fetchq.plan_cache_queues = 2;
SELECT sum(fetchq.doc_push('pc_q' || g, 'a', 0, 0, now(), '{}')) FROM generate_series(1, 8) g;
-- Each push trims before it starts: two kept, plus the last one's own.
SELECT queues <= 3 AS bounded, queues >= 1 AS some FROM plan_cache_queues;

-- The queues whose statements went are prepared again when used.
SELECT subject FROM fetchq.doc_pick('pc_q1', 0, 1, '5 minutes');
SELECT fetchq.doc_complete('pc_q1', 'a');
SELECT subject FROM fetchq.doc_pick('pc_q2', 0, 1, '5 minutes');
SELECT status FROM fetchq_data.pc_q1__docs;

-- A push that delivers into every queue in one call keeps them until the
-- next call (nothing is freed while a call is under way).
SELECT count(*) FROM (SELECT fetchq.route_create('pc_q1', 'pc_q' || g) FROM generate_series(2, 8) g) r;
SELECT fetchq.doc_push('pc_q1', 'routed', 0, 0, now(), '{}');
SELECT count(*) AS routed_copies FROM (
    SELECT 1 FROM fetchq_data.pc_q2__docs WHERE subject LIKE 'routed%' UNION ALL
    SELECT 1 FROM fetchq_data.pc_q8__docs WHERE subject LIKE 'routed%') x;
SELECT fetchq.doc_push('pc_q3', 'b', 0, 0, now(), '{}');
SELECT queues <= 3 AS bounded_again FROM plan_cache_queues;

-- -1: no limit.
SET fetchq.plan_cache_queues = -1;
SELECT sum(fetchq.doc_push('pc_q' || g, 'c', 0, 0, now(), '{}')) FROM generate_series(1, 8) g;
SELECT queues AS kept_without_limit FROM plan_cache_queues;
SET fetchq.plan_cache_queues = -2;
RESET fetchq.plan_cache_queues;

SELECT count(*) FROM (SELECT fetchq.queue_drop('pc_q' || g) FROM generate_series(1, 8) g) d;
DROP VIEW plan_cache_queues;
