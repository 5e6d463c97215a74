-- Finishing picked documents (src/sql_api/documents/doc_outcome.cpp)

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

-- fetchq: the fenced forms (attempts: act only while the document's attempts
-- still equal it; NULL: no fence), new overloads beside Fetchq 4's.
CREATE FUNCTION fetchq.doc_complete(queue VARCHAR, subject VARCHAR, payload JSONB,
    attempts INTEGER, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_complete' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_kill(queue VARCHAR, subject VARCHAR, payload JSONB,
    attempts INTEGER, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_kill' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_drop(queue VARCHAR, subject VARCHAR, attempts INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_drop' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_reschedule(queue VARCHAR, subject VARCHAR,
    next_iteration TIMESTAMP WITH TIME ZONE, payload JSONB, attempts INTEGER,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reschedule' LANGUAGE C VOLATILE;

-- fetchq: doc_reject with a delay (pickable again that long from now instead
-- of when its lock ends) and a fence.
CREATE FUNCTION fetchq.doc_reject(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, ref_id VARCHAR, delay INTERVAL, attempts INTEGER DEFAULT NULL,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reject' LANGUAGE C VOLATILE;

-- fetchq: the same without ref_id, so that a call may name `delay` alone
-- (`delay => '2 seconds'`). No default anywhere here, nor an attempts
-- argument: either would make this form or Fetchq 4's ambiguous.
CREATE FUNCTION fetchq.doc_reject(queue VARCHAR, subject VARCHAR, message VARCHAR,
    details JSONB, delay INTERVAL, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reject_delayed' LANGUAGE C VOLATILE;

-- fetchq: lease extension of an active document.
CREATE FUNCTION fetchq.doc_extend(queue VARCHAR, subject VARCHAR, duration VARCHAR,
    attempts INTEGER DEFAULT NULL, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_extend' LANGUAGE C VOLATILE;

-- fetchq: a planned, pending or waiting document killed at once (pick on a
-- queue with grants, as doc_kill), with a log row; 0 when it is active,
-- finished or missing. The documents waiting on it are killed with it.
CREATE FUNCTION fetchq.doc_cancel(queue VARCHAR, subject VARCHAR, reason TEXT DEFAULT NULL,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_cancel' LANGUAGE C VOLATILE;

-- fetchq: a killed document back to pending (or planned at next_iteration),
-- attempts 0; doc_retry_many puts back every killed one, or those whose
-- subject is LIKE the pattern (redrive).
CREATE FUNCTION fetchq.doc_retry(queue VARCHAR, subject VARCHAR,
    next_iteration TIMESTAMP WITH TIME ZONE DEFAULT NULL, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_retry' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_retry_many(queue VARCHAR, subject_pattern TEXT DEFAULT NULL,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_retry_many' LANGUAGE C VOLATILE;
