-- The counter write log (src/sql_api/counters/metric_log.cpp)

CREATE FUNCTION fetchq.metric_log_set(queue VARCHAR, metric VARCHAR, value INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_log_set' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_log_increment(queue VARCHAR, metric VARCHAR, value INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_log_increment' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_log_decrement(queue VARCHAR, metric VARCHAR, value INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_log_decrement' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_log_pack(OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_log_pack' LANGUAGE C VOLATILE;
