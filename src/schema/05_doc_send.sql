-- doc_send (src/sql_api/documents/doc_send.sql): a document named by its
-- queue and subject, as doc_send's depends_on lists them.
CREATE TYPE fetchq.doc_ref AS (queue CHARACTER VARYING, subject CHARACTER VARYING);
