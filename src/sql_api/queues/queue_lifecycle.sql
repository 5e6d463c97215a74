-- Queue lifecycle (src/sql_api/queues/queue_lifecycle.cpp)

CREATE FUNCTION fetchq.queue_create(queue VARCHAR, OUT was_created BOOLEAN, OUT queue_id INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_create' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_drop(queue VARCHAR, OUT was_dropped BOOLEAN, OUT queue_id INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_get_id(queue VARCHAR, OUT queue_id BIGINT)
AS 'MODULE_PATHNAME', 'fetchq_queue_get_id' LANGUAGE C VOLATILE;

-- fetchq: a queue owned by the calling session; usable with every doc_*
-- function; dropped by the scheduler within seconds after the session ends,
-- or (with an idle_timeout) once nothing was pushed into or picked from it
-- for that long.
CREATE FUNCTION fetchq.queue_create_temporary(idle_timeout INTERVAL DEFAULT NULL)
RETURNS VARCHAR
AS 'MODULE_PATHNAME', 'fetchq_queue_create_temporary' LANGUAGE C VOLATILE;
