-- Who may change a queue (src/sql_api/queues/queue_ownership.cpp)
--
-- The catalog rows of a queue (its settings in fetchq.queues, its jobs in
-- fetchq.jobs) steer what the scheduler does to the queue's documents, so
-- only the role that owns the queue's tables may write them, whatever
-- privileges it was granted on the tables of schema fetchq. Reading stays
-- open to every role that may read the tables.

-- fetchq: true when the current role has the privileges of the owner of the
-- queue's tables; false for a name without tables (queue_create makes the
-- tables before the row, so nobody can register a queue for another role).
CREATE FUNCTION fetchq.queue_is_own(queue VARCHAR) RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_queue_is_own' LANGUAGE C STABLE STRICT PARALLEL SAFE;

ALTER TABLE fetchq.queues ENABLE ROW LEVEL SECURITY;
CREATE POLICY queues_read ON fetchq.queues FOR SELECT USING (true);
CREATE POLICY queues_insert ON fetchq.queues FOR INSERT
    WITH CHECK (fetchq.queue_is_own(name));
CREATE POLICY queues_update ON fetchq.queues FOR UPDATE
    USING (fetchq.queue_is_own(name)) WITH CHECK (fetchq.queue_is_own(name));
CREATE POLICY queues_delete ON fetchq.queues FOR DELETE USING (fetchq.queue_is_own(name));

ALTER TABLE fetchq.jobs ENABLE ROW LEVEL SECURITY;
CREATE POLICY jobs_read ON fetchq.jobs FOR SELECT USING (true);
CREATE POLICY jobs_insert ON fetchq.jobs FOR INSERT WITH CHECK (fetchq.queue_is_own(queue));
CREATE POLICY jobs_update ON fetchq.jobs FOR UPDATE
    USING (fetchq.queue_is_own(queue)) WITH CHECK (fetchq.queue_is_own(queue));
CREATE POLICY jobs_delete ON fetchq.jobs FOR DELETE USING (fetchq.queue_is_own(queue));
