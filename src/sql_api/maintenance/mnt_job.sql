-- Maintenance jobs (src/sql_api/maintenance/mnt_job.cpp)

CREATE FUNCTION fetchq.mnt_job_pick(lock_duration VARCHAR, "limit" INTEGER)
RETURNS TABLE(id INTEGER, task VARCHAR, queue VARCHAR, attempts INTEGER, iterations BIGINT,
    next_iteration TIMESTAMP WITH TIME ZONE, last_iteration TIMESTAMP WITH TIME ZONE,
    settings JSONB, payload JSONB)
AS 'MODULE_PATHNAME', 'fetchq_mnt_job_pick' LANGUAGE C VOLATILE ROWS 10;

CREATE FUNCTION fetchq.mnt_job_reschedule(id INTEGER, delay VARCHAR, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_mnt_job_reschedule' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.mnt_job_run(lock_duration VARCHAR, "limit" INTEGER,
    OUT success BOOLEAN, OUT processed INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_job_run' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.mnt_job_run("limit" INTEGER, OUT success BOOLEAN, OUT processed INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_job_run' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.mnt_job_run(OUT success BOOLEAN, OUT processed INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_job_run' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.mnt(lock_duration VARCHAR, OUT processed INTEGER, OUT packed INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.mnt(OUT processed INTEGER, OUT packed INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt' LANGUAGE C VOLATILE;
