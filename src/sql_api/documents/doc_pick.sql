-- Picking documents (src/sql_api/documents/doc_pick.cpp)

CREATE FUNCTION fetchq.doc_pick(queue VARCHAR, version INTEGER, "limit" INTEGER,
    duration VARCHAR)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick' LANGUAGE C VOLATILE ROWS 10;

CREATE FUNCTION fetchq.doc_pick(queue VARCHAR, duration VARCHAR)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick' LANGUAGE C VOLATILE ROWS 1;

CREATE FUNCTION fetchq.doc_pick(queue VARCHAR)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick' LANGUAGE C VOLATILE ROWS 1;

CREATE FUNCTION fetchq.doc_pick(queue VARCHAR, "limit" INTEGER)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick' LANGUAGE C VOLATILE ROWS 10;

-- fetchq: with session_bound = true the documents go back to pending as soon as
-- the picking session ends (disconnect, crash, pg_terminate_backend).
CREATE FUNCTION fetchq.doc_pick(queue VARCHAR, version INTEGER, "limit" INTEGER,
    duration VARCHAR, session_bound BOOLEAN)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick' LANGUAGE C VOLATILE ROWS 10;

-- fetchq: a pick that waits, up to `wait`, for documents, holding no snapshot
-- while it waits (a procedure: CALL it outside a transaction block, passing
-- NULL for docs). docs: what doc_pick returns, as a jsonb array; [] when
-- nothing came within `wait`.
CREATE PROCEDURE fetchq.doc_pick_wait(queue VARCHAR, version INTEGER, "limit" INTEGER,
    lock INTERVAL, wait INTERVAL, OUT docs JSONB)
AS 'MODULE_PATHNAME', 'fetchq_doc_pick_wait' LANGUAGE C;

-- Internal: in doc_pick's statement, notes where each taken document stood
-- in pick order and whether a pending document not due yet lies before it
-- (so that the next pick starts there) and returns attempts + 1. Called
-- alone it changes nothing.
CREATE FUNCTION fetchq.doc_pick_position(priority INTEGER,
    next_iteration TIMESTAMP WITH TIME ZONE, attempts INTEGER, waits_before BOOLEAN)
RETURNS INTEGER
AS 'MODULE_PATHNAME', 'fetchq_doc_pick_position' LANGUAGE C VOLATILE PARALLEL UNSAFE;
