-- One document by its subject (src/sql_api/documents/doc_take.cpp)

-- Takes the document for processing whatever its place in the queue: a
-- planned or pending one becomes active, as doc_pick makes it; an active,
-- completed, killed or missing one returns no row. Waits for a transaction
-- that holds the row; with nowait => true such a row is no row at once.
CREATE FUNCTION fetchq.doc_take(queue VARCHAR, subject VARCHAR, duration VARCHAR,
    nowait BOOLEAN DEFAULT false)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    attempts INTEGER, iterations BIGINT, created_at TIMESTAMP WITH TIME ZONE,
    last_iteration TIMESTAMP WITH TIME ZONE, next_iteration TIMESTAMP WITH TIME ZONE,
    lock_upgrade TIMESTAMP WITH TIME ZONE, flow_key TEXT)
AS 'MODULE_PATHNAME', 'fetchq_doc_take' LANGUAGE C VOLATILE ROWS 1;

-- The document as it is, changing nothing; no row when there is none.
-- flow_key (the last column of both): the key doc_send gave it.
CREATE FUNCTION fetchq.doc_peek(queue VARCHAR, subject VARCHAR)
RETURNS TABLE(subject VARCHAR, payload JSONB, version INTEGER, priority INTEGER,
    status INTEGER, attempts INTEGER, iterations BIGINT,
    created_at TIMESTAMP WITH TIME ZONE, last_iteration TIMESTAMP WITH TIME ZONE,
    next_iteration TIMESTAMP WITH TIME ZONE, lock_upgrade TIMESTAMP WITH TIME ZONE,
    expires_at TIMESTAMP WITH TIME ZONE, flow_key TEXT)
AS 'MODULE_PATHNAME', 'fetchq_doc_peek' LANGUAGE C STABLE ROWS 1;
