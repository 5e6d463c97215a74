-- doc_send (src/sql_api/documents/doc_send.sql): a document named by its
-- queue and subject, as doc_send's depends_on lists them.
CREATE TYPE fetchq.doc_ref AS (queue CHARACTER VARYING, subject CHARACTER VARYING);

-- Waiting documents (doc_send's depends_on). A document that waits on
-- others is in its queue as planned with next_iteration 'infinity', so that
-- promotion, picks and counters need nothing of their own; its row here
-- keeps the next_iteration it was sent with and how many of the documents
-- it waits on are not completed yet. Completing one of them counts it down
-- (an update of this row, so that two completions at once see each other)
-- and the last one makes the document planned or pending again. Only the
-- table's owner (the role that created the extension) reads or writes these
-- tables: row security with no policy. They go with their queue (ON DELETE
-- CASCADE).
CREATE TABLE fetchq.doc_waits (
    queue_id INTEGER NOT NULL REFERENCES fetchq.queues (id) ON DELETE CASCADE,
    subject CHARACTER VARYING(50) NOT NULL,
    next_iteration TIMESTAMP WITH TIME ZONE NOT NULL,
    remaining INTEGER NOT NULL,
    PRIMARY KEY (queue_id, subject)
);
ALTER TABLE fetchq.doc_waits ENABLE ROW LEVEL SECURITY;

-- One row per document waited on and document waiting: completing or
-- killing a document probes the index on what is waited on.
CREATE TABLE fetchq.doc_dependencies (
    queue_id INTEGER NOT NULL REFERENCES fetchq.queues (id) ON DELETE CASCADE,
    subject CHARACTER VARYING(50) NOT NULL,
    dependency_queue_id INTEGER NOT NULL REFERENCES fetchq.queues (id) ON DELETE CASCADE,
    dependency_subject CHARACTER VARYING(50) NOT NULL,
    PRIMARY KEY (queue_id, subject, dependency_queue_id, dependency_subject)
);
CREATE INDEX __fetchq_doc_dependencies_dependency_idx
    ON fetchq.doc_dependencies (dependency_queue_id, dependency_subject);
ALTER TABLE fetchq.doc_dependencies ENABLE ROW LEVEL SECURITY;

-- The queues whose documents some document waited on, ever: only for these
-- does a completion or a kill look at fetchq.doc_dependencies. Every backend
-- caches it (its changes invalidate the caches of the catalog), so a queue
-- that nobody waits on costs nothing.
CREATE TABLE fetchq.awaited_queues (
    queue_id INTEGER PRIMARY KEY REFERENCES fetchq.queues (id) ON DELETE CASCADE
);
ALTER TABLE fetchq.awaited_queues ENABLE ROW LEVEL SECURITY;

SELECT pg_catalog.pg_extension_config_dump('fetchq.doc_waits', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.doc_dependencies', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.awaited_queues', '');

-- Requests (doc_send's reply_to): the queue a doc_reply to the document goes
-- to. created_at is the document's: a row left by an earlier document of the
-- same subject (dropped, purged) does not apply to a new one. doc_reply
-- deletes it; only the table's owner reads or writes it.
CREATE TABLE fetchq.doc_replies (
    queue_id INTEGER NOT NULL REFERENCES fetchq.queues (id) ON DELETE CASCADE,
    subject CHARACTER VARYING(50) NOT NULL,
    reply_to CHARACTER VARYING(40) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (queue_id, subject)
);
ALTER TABLE fetchq.doc_replies ENABLE ROW LEVEL SECURITY;

SELECT pg_catalog.pg_extension_config_dump('fetchq.doc_replies', '');
