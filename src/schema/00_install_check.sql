-- Before anything else: refuse schemas that another role could have planted
-- (src/sql_api/install_check.cpp). The check runs from this session's own
-- temporary schema, so that nothing in schema fetchq is resolved or run
-- before it passed.
CREATE FUNCTION pg_temp.fetchq_install_check() RETURNS pg_catalog.void
AS 'MODULE_PATHNAME', 'fetchq_install_check' LANGUAGE C;
SELECT pg_temp.fetchq_install_check();
DROP FUNCTION pg_temp.fetchq_install_check();
