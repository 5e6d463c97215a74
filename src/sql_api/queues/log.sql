-- Error log and trace (src/sql_api/queues/log.cpp)

CREATE FUNCTION fetchq.log_error(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, OUT queued_logs BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_log_error' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.log_error(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, ref_id VARCHAR, OUT queued_logs BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_log_error' LANGUAGE C VOLATILE;

-- Every queue's document with this subject and its log rows, numbered
-- (queues by id; in a queue the document, then the logs oldest first).
CREATE FUNCTION fetchq.trace(subject VARCHAR, "order" VARCHAR)
RETURNS TABLE(step INTEGER, created_at TIMESTAMP WITH TIME ZONE, queue VARCHAR,
    type VARCHAR, info VARCHAR, details JSONB)
AS 'MODULE_PATHNAME', 'fetchq_trace' LANGUAGE C STABLE;

CREATE FUNCTION fetchq.trace(subject VARCHAR)
RETURNS TABLE(step INTEGER, created_at TIMESTAMP WITH TIME ZONE, queue VARCHAR,
    type VARCHAR, info VARCHAR, details JSONB)
AS 'MODULE_PATHNAME', 'fetchq_trace' LANGUAGE C STABLE;
