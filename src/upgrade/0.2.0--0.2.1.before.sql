-- Update from 0.2.0, first part: what the catalog of 0.2.0 has otherwise,
-- before the objects of 0.2.1 are created or replaced.

-- Appends no longer check a foreign key from their key's row to the stream
-- (PostgreSQL checks it again at every update of a row this transaction
-- wrote): stream_drop deletes the keys itself, after waiting for the appends
-- under way on a lock of the stream.
ALTER TABLE fetchq.stream_keys DROP CONSTRAINT stream_keys_stream_id_fkey;

-- Who set a queue's dead-letter queue: each copy into it is checked against
-- that role's rights. Rows set under 0.2.0 get NULL, which stands for the
-- queue's owner.
ALTER TABLE fetchq.queues ADD COLUMN dead_letter_set_by REGROLE;

-- doc_send's references to documents (src/schema/06_doc_dependencies.sql).
CREATE TYPE fetchq.doc_ref AS (queue CHARACTER VARYING, subject CHARACTER VARYING);

-- Waiting documents (src/schema/06_doc_dependencies.sql).
CREATE TABLE fetchq.doc_waits (
    queue_id INTEGER NOT NULL REFERENCES fetchq.queues (id) ON DELETE CASCADE,
    subject CHARACTER VARYING(50) NOT NULL,
    next_iteration TIMESTAMP WITH TIME ZONE NOT NULL,
    remaining INTEGER NOT NULL,
    PRIMARY KEY (queue_id, subject)
);
ALTER TABLE fetchq.doc_waits ENABLE ROW LEVEL SECURITY;

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

CREATE TABLE fetchq.awaited_queues (
    queue_id INTEGER PRIMARY KEY REFERENCES fetchq.queues (id) ON DELETE CASCADE
);
ALTER TABLE fetchq.awaited_queues ENABLE ROW LEVEL SECURITY;

SELECT pg_catalog.pg_extension_config_dump('fetchq.doc_waits', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.doc_dependencies', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.awaited_queues', '');

CREATE TABLE fetchq.doc_replies (
    queue_id INTEGER NOT NULL REFERENCES fetchq.queues (id) ON DELETE CASCADE,
    subject CHARACTER VARYING(50) NOT NULL,
    reply_to CHARACTER VARYING(40) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (queue_id, subject)
);
ALTER TABLE fetchq.doc_replies ENABLE ROW LEVEL SECURITY;

SELECT pg_catalog.pg_extension_config_dump('fetchq.doc_replies', '');
