-- Sending documents (src/sql_api/documents/doc_send.cpp)

-- The full push: doc_push's behaviour (unique subject, routes and topics,
-- triggers, counters, privileges, NOTIFY), with every argument named and
-- defaulted but queue and subject, and the payload stored exactly as given
-- (fetchq.fetchq4_quoting is for the Fetchq 4 functions only). New
-- arguments of a push come here, never to doc_push, whose Fetchq 4 calls
-- must keep resolving as they do. depends_on: documents that must be
-- completed before this one may be picked; reply_to: the queue a
-- doc_reply to this document goes to; if_finished: what a completed or
-- killed document of the same subject gets: 'skip' (left alone, 0, as
-- doc_push) or 'requeue' (pending or planned again with this payload,
-- version, priority and next_iteration, attempts 0: 1); flow_key: the
-- document's key for the queue's flow limits (fetchq.queue_set_limits),
-- kept by the copies routes deliver; NULL: not limited per key.
CREATE FUNCTION fetchq.doc_send(queue VARCHAR, subject VARCHAR, payload JSONB DEFAULT '{}',
    version INTEGER DEFAULT 0, priority INTEGER DEFAULT 0,
    next_iteration TIMESTAMP WITH TIME ZONE DEFAULT now(),
    expires_at TIMESTAMP WITH TIME ZONE DEFAULT NULL,
    depends_on fetchq.doc_ref[] DEFAULT NULL, reply_to VARCHAR DEFAULT NULL,
    if_finished TEXT DEFAULT 'skip', flow_key TEXT DEFAULT NULL, OUT queued_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_send' LANGUAGE C VOLATILE;

-- Empties every backend's cache of awaited queues when a change commits.
CREATE FUNCTION fetchq.awaited_queues_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_changed' LANGUAGE C;

CREATE TRIGGER fetchq_awaited_queues_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.awaited_queues FOR EACH STATEMENT EXECUTE FUNCTION fetchq.awaited_queues_changed();

-- The responder's answer to a request sent with reply_to: pushes payload
-- into the request's reply queue under the request's subject (with the
-- caller's rights there: push) and completes the request (active; pick on
-- its queue), in one transaction. Returns 1.
CREATE FUNCTION fetchq.doc_reply(queue VARCHAR, subject VARCHAR, payload JSONB DEFAULT '{}',
    OUT replied_docs INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_doc_reply' LANGUAGE C VOLATILE;
