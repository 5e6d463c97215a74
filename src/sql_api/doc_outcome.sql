-- Finishing picked documents (src/sql_api/doc_outcome.cpp)

CREATE FUNCTION fetchq.doc_complete(queue VARCHAR, subject VARCHAR, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_complete' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_complete(queue VARCHAR, subject VARCHAR, payload JSONB,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_complete' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_complete_many(queue VARCHAR, subjects VARCHAR[])
RETURNS INTEGER
AS 'MODULE_PATHNAME', 'fetchq_doc_complete_many' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_kill(queue VARCHAR, subject VARCHAR, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_kill' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_kill(queue VARCHAR, subject VARCHAR, payload JSONB,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_kill' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_drop(queue VARCHAR, subject VARCHAR, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_drop' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_reschedule(queue VARCHAR, subject VARCHAR,
    next_iteration TIMESTAMP WITH TIME ZONE, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reschedule' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_reschedule(queue VARCHAR, subject VARCHAR,
    next_iteration TIMESTAMP WITH TIME ZONE, payload JSONB, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reschedule' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_reject(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reject' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_reject(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, ref_id VARCHAR, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reject' LANGUAGE C VOLATILE;
