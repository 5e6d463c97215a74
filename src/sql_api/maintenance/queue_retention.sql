-- How long a queue keeps its logs and metrics (src/sql_api/maintenance/queue_retention.cpp)

CREATE FUNCTION fetchq.queue_set_logs_retention(queue VARCHAR, retention VARCHAR,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_logs_retention' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_set_metrics_retention(queue VARCHAR, retention VARCHAR,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_metrics_retention' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_drop_logs(queue VARCHAR, retention VARCHAR,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_logs' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_drop_logs(queue VARCHAR, retention TIMESTAMP WITH TIME ZONE,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_logs' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_drop_logs(queue VARCHAR, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_logs' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_drop_metrics(queue VARCHAR, config JSONB,
    OUT removed_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_metrics' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_drop_metrics(queue VARCHAR, OUT removed_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_metrics' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.utils_ts_retain(table_name VARCHAR, field_name VARCHAR,
    retain VARCHAR, interval_start TIMESTAMP WITH TIME ZONE,
    interval_end TIMESTAMP WITH TIME ZONE, OUT removed_rows BIGINT)
AS 'MODULE_PATHNAME', 'fetchq_utils_ts_retain' LANGUAGE C VOLATILE;

-- fetchq: default time-to-live of documents pushed without expires_at (NULL: none).
CREATE FUNCTION fetchq.queue_set_default_ttl(queue VARCHAR, ttl VARCHAR,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_default_ttl' LANGUAGE C VOLATILE;
