-- Background workers (src/sql_api/shared_memory/worker_status.cpp, src/worker/)

CREATE FUNCTION fetchq.worker_status()
RETURNS TABLE(datname TEXT, pid INTEGER, state TEXT, task TEXT,
    last_run TIMESTAMP WITH TIME ZONE, runs BIGINT, rows_last BIGINT, rows_total BIGINT,
    last_duration_ms DOUBLE PRECISION, errors BIGINT, last_error TEXT,
    next_due TIMESTAMP WITH TIME ZONE, started_at TIMESTAMP WITH TIME ZONE,
    last_error_at TIMESTAMP WITH TIME ZONE, recovered_at TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_worker_status' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.worker_wake() RETURNS VOID
AS 'MODULE_PATHNAME', 'fetchq_worker_wake' LANGUAGE C VOLATILE;

-- A new fetchq database: have the launcher start its scheduler after commit.
SELECT fetchq.worker_wake();
