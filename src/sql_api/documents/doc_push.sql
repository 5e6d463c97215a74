-- Pushing documents (src/sql_api/documents/doc_push.cpp)

CREATE FUNCTION fetchq.doc_push(queue VARCHAR, subject VARCHAR, version INTEGER,
    priority INTEGER, next_iteration TIMESTAMP WITH TIME ZONE, payload JSONB,
    OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push' LANGUAGE C VOLATILE;

-- fetchq: a document that the scheduler deletes if it is still planned or
-- pending at expires_at (NULL: the queue's default_ttl, if any).
CREATE FUNCTION fetchq.doc_push(queue VARCHAR, subject VARCHAR, version INTEGER,
    priority INTEGER, next_iteration TIMESTAMP WITH TIME ZONE, payload JSONB,
    expires_at TIMESTAMP WITH TIME ZONE, OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_push(queue VARCHAR, subject VARCHAR, OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_push(queue VARCHAR, subject VARCHAR, payload JSONB,
    OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_push(queue VARCHAR, subject VARCHAR, payload JSONB,
    next_iteration TIMESTAMP WITH TIME ZONE, OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push' LANGUAGE C VOLATILE;

-- Fetchq 4's bulk form: data is "('subject', priority, 'payload', {DATA}), ..."
CREATE FUNCTION fetchq.doc_push(queue VARCHAR, version INTEGER,
    next_iteration TIMESTAMP WITH TIME ZONE, data VARCHAR, OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_push_tuples' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_push_many(queue VARCHAR, subjects VARCHAR[],
    payloads JSONB[] DEFAULT NULL, next_iteration TIMESTAMP WITH TIME ZONE DEFAULT now(),
    version INTEGER DEFAULT 0, priority INTEGER DEFAULT 0)
RETURNS INTEGER
AS 'MODULE_PATHNAME', 'fetchq_doc_push_many' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_append(queue VARCHAR, payload JSONB, version INTEGER,
    priority INTEGER, OUT subject VARCHAR)
AS 'MODULE_PATHNAME', 'fetchq_doc_append' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_append(queue VARCHAR, payload JSONB, OUT subject VARCHAR)
AS 'MODULE_PATHNAME', 'fetchq_doc_append' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.doc_upsert(queue VARCHAR, subject VARCHAR, version INTEGER,
    priority INTEGER, next_iteration TIMESTAMP WITH TIME ZONE, payload JSONB,
    OUT queued_docs INTEGER, OUT updated_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_upsert' LANGUAGE C VOLATILE;
