-- Document maintenance on demand (src/sql_api/maintenance/mnt.cpp)

CREATE FUNCTION fetchq.mnt_make_pending(queue VARCHAR, "limit" INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_make_pending' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.mnt_reschedule_orphans(queue VARCHAR, "limit" INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_reschedule_orphans' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.mnt_mark_dead(queue VARCHAR, "limit" INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_mark_dead' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.mnt_run(queue VARCHAR, "limit" INTEGER,
    OUT activated_count INTEGER, OUT rescheduled_count INTEGER, OUT killed_count INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_run' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.mnt_run_all("limit" INTEGER)
RETURNS TABLE(queue VARCHAR, activated_count INTEGER, rescheduled_count INTEGER,
    killed_count INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_mnt_run_all' LANGUAGE C VOLATILE;
