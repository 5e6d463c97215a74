-- Looking at and emptying queues (src/sql_api/queues/queue_content.cpp)

CREATE FUNCTION fetchq.queue_top(queue VARCHAR, version INTEGER, "limit" INTEGER,
    "offset" INTEGER)
RETURNS TABLE (subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_queue_top' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_status()
RETURNS TABLE (id INTEGER, name VARCHAR, is_active BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_status' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_status(queue VARCHAR)
RETURNS TABLE (id INTEGER, name VARCHAR, is_active BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_status' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_truncate(queue VARCHAR, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_truncate' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_truncate(queue VARCHAR, empty BOOLEAN, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_truncate' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_truncate_all(OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_truncate_all' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_truncate_all(empty BOOLEAN, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_truncate_all' LANGUAGE C VOLATILE;
