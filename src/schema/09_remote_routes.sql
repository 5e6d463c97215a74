-- Remote routes (remote_route_create, remote_subscribe; src/ops/remote_routes/README.md):
-- documents pushed into a queue of this database are delivered into a queue
-- of another database, over PostgreSQL's logical replication. Only the
-- tables' owner (the role that created the extension) reads or writes them:
-- row security with no policy, as fetchq.periodic_schedules; the view
-- fetchq.remote_route_status shows them.

-- On the sending side: every document that arrives in source and matches
-- selector is written to fetchq.remote_outbox for the link `link`, to be
-- pushed into queue `queue` of the database that subscribed under that name.
-- Delivery checks, at each push, that owner may still read source.
CREATE TABLE fetchq.remote_routes (
    id BIGSERIAL PRIMARY KEY,
    source CHARACTER VARYING(40) NOT NULL
        REFERENCES fetchq.queues (name) ON DELETE CASCADE,
    link CHARACTER VARYING(40) NOT NULL,
    queue CHARACTER VARYING(40) NOT NULL,
    selector JSONPATH,
    owner REGROLE NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    UNIQUE (source, link, queue)
);
ALTER TABLE fetchq.remote_routes ENABLE ROW LEVEL SECURITY;

-- The deliveries in flight. On the sending side a row is inserted and
-- deleted again in the pushing transaction: the publication
-- fetchq_remote_<link> (publish = 'insert') sends the insert that logical
-- decoding read from the WAL, and the table stays empty. On the receiving
-- side the subscription fetchq_remote_<link> applies the rows into this same
-- table, where the trigger fetchq_remote_inbox (enabled for replica only)
-- pushes each into its queue and skips the row: nothing is stored here
-- either. No index: nothing looks rows up.
CREATE TABLE fetchq.remote_outbox (
    link CHARACTER VARYING(40) NOT NULL,
    queue CHARACTER VARYING(40) NOT NULL,
    subject TEXT NOT NULL,
    version INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    next_iteration TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at TIMESTAMP WITH TIME ZONE,
    payload JSONB,
    -- The database the document was first pushed in, and every database it
    -- arrived in since, this one last: '<system identifier>/<name>'.
    source_db TEXT NOT NULL,
    seenby TEXT[] NOT NULL,
    route_id BIGINT NOT NULL,
    -- when the pushing transaction wrote it (shortly before its commit)
    sent_at TIMESTAMP WITH TIME ZONE NOT NULL
);
ALTER TABLE fetchq.remote_outbox ENABLE ROW LEVEL SECURITY;

-- On the receiving side: the links this database subscribed to, and the role
-- whose rights every delivery of the link is checked with.
CREATE TABLE fetchq.remote_subscriptions (
    link CHARACTER VARYING(40) PRIMARY KEY,
    as_role REGROLE NOT NULL,
    owner REGROLE NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    delivered BIGINT NOT NULL DEFAULT 0,
    -- subjects already in the queue; documents that came back to a database
    -- they were in (a cycle of routes); documents as_role may not push
    skipped BIGINT NOT NULL DEFAULT 0,
    looped BIGINT NOT NULL DEFAULT 0,
    refused BIGINT NOT NULL DEFAULT 0,
    last_arrival TIMESTAMP WITH TIME ZONE,
    last_refusal TEXT
);
ALTER TABLE fetchq.remote_subscriptions ENABLE ROW LEVEL SECURITY;

-- Where each document delivered by a remote route came from
-- (fetchq.doc_origin). Goes with its queue (the foreign key), with its
-- document at once on queue_truncate, otherwise within seconds: the
-- scheduler removes the rows whose document is gone (task origins,
-- src/ops/remote_routes/README.md). doc_created_at is the delivered
-- document's created_at: a row left by an earlier document of the same
-- subject (completed and purged, dropped, expired, or requeued) does not
-- describe a new one.
CREATE TABLE fetchq.doc_origins (
    queue CHARACTER VARYING(40) NOT NULL
        REFERENCES fetchq.queues (name) ON DELETE CASCADE ON UPDATE CASCADE,
    subject TEXT NOT NULL,
    source_db TEXT NOT NULL,
    seenby TEXT[] NOT NULL,
    link CHARACTER VARYING(40) NOT NULL,
    -- when the sending transaction wrote it to the outbox (its server's
    -- clock), and when it was pushed here
    sent_at TIMESTAMP WITH TIME ZONE,
    arrived_at TIMESTAMP WITH TIME ZONE NOT NULL,
    doc_created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (queue, subject)
);
ALTER TABLE fetchq.doc_origins ENABLE ROW LEVEL SECURITY;

SELECT pg_catalog.pg_extension_config_dump('fetchq.remote_routes', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.remote_routes_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.remote_subscriptions', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.doc_origins', '');
