-- Counting documents, resetting counters (src/sql_api/counters/metric_compute.cpp)

CREATE FUNCTION fetchq.metric_compute(queue VARCHAR, OUT cnt INTEGER, OUT pln INTEGER,
    OUT pnd INTEGER, OUT act INTEGER, OUT kll INTEGER, OUT cpl INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_compute' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_compute_all()
RETURNS TABLE (queue VARCHAR, cnt INTEGER, pln INTEGER, pnd INTEGER, act INTEGER,
    cpl INTEGER, kll INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_compute_all' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_reset(queue VARCHAR, OUT cnt INTEGER, OUT pln INTEGER,
    OUT pnd INTEGER, OUT act INTEGER, OUT cpl INTEGER, OUT kll INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_reset' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_reset_all()
RETURNS TABLE (queue VARCHAR, cnt INTEGER, pln INTEGER, pnd INTEGER, act INTEGER,
    cpl INTEGER, kll INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_reset_all' LANGUAGE C VOLATILE;
