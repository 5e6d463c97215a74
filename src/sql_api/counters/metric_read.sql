-- Reading counters (src/sql_api/counters/metric_read.cpp)

CREATE FUNCTION fetchq.metric_get(queue VARCHAR, metric VARCHAR, OUT current_value INTEGER,
    OUT last_update TIMESTAMP WITH TIME ZONE, OUT does_exists BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_metric_get' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_get(queue VARCHAR)
RETURNS TABLE (metric VARCHAR, current_value BIGINT, last_update TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_metric_get_queue' LANGUAGE C VOLATILE ROWS 20;

CREATE FUNCTION fetchq.metric_get_total(metric VARCHAR, OUT current_value INTEGER,
    OUT does_exists BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_metric_get_total' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_get_common(queue VARCHAR,
    OUT cnt INTEGER, OUT pnd INTEGER, OUT pln INTEGER, OUT act INTEGER, OUT cpl INTEGER,
    OUT kll INTEGER, OUT ent INTEGER, OUT drp INTEGER, OUT pkd INTEGER, OUT prc INTEGER,
    OUT res INTEGER, OUT rej INTEGER, OUT orp INTEGER, OUT err INTEGER,
    -- fetchq's own: documents deleted because they expired
    OUT exp INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_get_common' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.metric_get_all()
RETURNS TABLE (queue VARCHAR, cnt INTEGER, pnd INTEGER, pln INTEGER, act INTEGER,
    cpl INTEGER, kll INTEGER, ent INTEGER, drp INTEGER, pkd INTEGER, prc INTEGER,
    res INTEGER, rej INTEGER, orp INTEGER, err INTEGER, exp INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_metric_get_all' LANGUAGE C VOLATILE;
