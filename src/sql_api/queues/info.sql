-- Housekeeping (src/sql_api/queues/info.cpp)

-- version: the Fetchq API level clients check; extension_version: this
-- extension's own version (pg_extension.extversion).
CREATE FUNCTION fetchq.info(OUT version VARCHAR, OUT extension_version VARCHAR)
AS 'MODULE_PATHNAME', 'fetchq_info' LANGUAGE C STABLE;

-- Kept for Fetchq clients: CREATE EXTENSION already did the work.
CREATE FUNCTION fetchq.init(OUT was_initialized BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_init' LANGUAGE C VOLATILE;

-- Drops every queue (tables and catalog rows) and clears fetchq.metrics,
-- fetchq.metrics_writes and the queues' jobs. The extension stays: remove
-- it with DROP EXTENSION fetchq CASCADE.
CREATE FUNCTION fetchq.destroy_with_terrible_consequences(OUT was_destroyed BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_destroy_with_terrible_consequences' LANGUAGE C VOLATILE;

-- Schema upgrades of Fetchq 3: ALTER EXTENSION fetchq UPDATE does this job.
CREATE FUNCTION fetchq.upgrade__310__320(OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_upgrade' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.upgrade__320__330(OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_upgrade' LANGUAGE C VOLATILE;
