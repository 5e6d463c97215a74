-- Counter history (src/sql_api/counters/metric_snap.cpp)

CREATE FUNCTION fetchq.metric_snap(queue VARCHAR, OUT success BOOLEAN, OUT inserts INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_snap' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_snap(queue VARCHAR, metric VARCHAR, OUT success BOOLEAN,
    OUT inserts INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_snap_metric' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_snap(queue VARCHAR, whitelist JSONB, OUT success BOOLEAN,
    OUT inserts INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_snap_whitelist' LANGUAGE C VOLATILE;
