-- Direct counter writes (src/sql_api/counters/metric_write.cpp)

CREATE FUNCTION fetchq.metric_set(queue VARCHAR, metric VARCHAR, value INTEGER,
    OUT current_value INTEGER, OUT was_created BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_metric_set' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_increment(queue VARCHAR, metric VARCHAR, value INTEGER,
    OUT current_value INTEGER, OUT was_created BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_metric_increment' LANGUAGE C VOLATILE;
