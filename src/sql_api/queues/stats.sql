-- Queue statistics (src/sql_api/queues/stats.cpp): documents by status, what is
-- ready to pick and since when, and the counters.

CREATE FUNCTION fetchq.stats(queue VARCHAR,
    OUT queue VARCHAR, OUT planned BIGINT, OUT pending BIGINT, OUT active BIGINT,
    OUT completed BIGINT, OUT killed BIGINT, OUT ready BIGINT,
    OUT oldest_ready_age DOUBLE PRECISION, OUT next_planned_at TIMESTAMP WITH TIME ZONE,
    OUT cnt BIGINT, OUT pln BIGINT, OUT pnd BIGINT, OUT act BIGINT, OUT cpl BIGINT,
    OUT kll BIGINT, OUT ent BIGINT, OUT drp BIGINT, OUT pkd BIGINT, OUT prc BIGINT,
    OUT res BIGINT, OUT rej BIGINT, OUT orp BIGINT, OUT err BIGINT, OUT exp BIGINT, OUT rtn BIGINT)
AS 'MODULE_PATHNAME', 'fetchq_stats' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.stats_all()
RETURNS TABLE (queue VARCHAR, planned BIGINT, pending BIGINT, active BIGINT,
    completed BIGINT, killed BIGINT, ready BIGINT, oldest_ready_age DOUBLE PRECISION,
    next_planned_at TIMESTAMP WITH TIME ZONE,
    cnt BIGINT, pln BIGINT, pnd BIGINT, act BIGINT, cpl BIGINT, kll BIGINT, ent BIGINT,
    drp BIGINT, pkd BIGINT, prc BIGINT, res BIGINT, rej BIGINT, orp BIGINT, err BIGINT,
    exp BIGINT, rtn BIGINT)
AS 'MODULE_PATHNAME', 'fetchq_stats_all' LANGUAGE C VOLATILE ROWS 10;

-- One row per queue whose documents the current role may read, and, after
-- stats_all()'s columns, what kind of queue it is: is_dead_letter_queue (the
-- dead-letter queue of at least one queue: queue_set_dead_letter) and
-- is_subscription (fed by a route from a topic: fetchq.subscriptions). Their
-- ready documents wait for a person or a subscriber that may never come, so
-- a backlog alert leaves them out (docs/operations.md). held_back (last):
-- ready documents the queue's flow limits keep back (fetchq.queue_set_limits).
CREATE VIEW fetchq.stats AS
SELECT s.*,
       EXISTS (SELECT 1 FROM fetchq.queues AS k WHERE k.dead_letter_queue = s.queue)
           AS is_dead_letter_queue,
       EXISTS (SELECT 1 FROM fetchq.subscriptions AS r WHERE r.queue = s.queue)
           AS is_subscription,
       fetchq.queue_held_back(s.queue) AS held_back
FROM fetchq.stats_all() AS s;
-- stats_all() shows each caller the queues it may read.
GRANT SELECT ON fetchq.stats TO PUBLIC;
