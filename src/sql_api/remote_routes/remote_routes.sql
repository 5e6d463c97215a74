-- Remote routes (src/sql_api/remote_routes/remote_routes.cpp; the tables are
-- in src/schema/09_remote_routes.sql, the design in
-- src/ops/remote_routes/README.md)

-- On the sending database: every document that arrives in source and matches
-- selector is sent, with the pushing transaction's commit, to the queue of
-- the database subscribed under a link: destination reads 'link/queue'.
-- Needs what route_create needs of the source. Returns the route's id.
CREATE FUNCTION fetchq.remote_route_create(source VARCHAR, destination TEXT,
    selector TEXT DEFAULT NULL)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_remote_route_create' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.remote_route_drop(source VARCHAR, destination TEXT)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_remote_route_drop' LANGUAGE C VOLATILE;

-- On the receiving database (a superuser, as CREATE SUBSCRIPTION): subscribes
-- to the link's publication on the sending server; each document is pushed
-- with the rights of as_role.
CREATE FUNCTION fetchq.remote_subscribe(name VARCHAR, conninfo TEXT, as_role REGROLE,
    create_slot BOOLEAN DEFAULT true)
RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_remote_subscribe' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.remote_unsubscribe(name VARCHAR, drop_slot BOOLEAN DEFAULT true)
RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_remote_unsubscribe' LANGUAGE C VOLATILE;

-- Where a document a remote route delivered came from; no row for one that
-- was pushed here.
CREATE FUNCTION fetchq.doc_origin(queue VARCHAR, subject VARCHAR, OUT source_db TEXT,
    OUT seenby TEXT[], OUT link VARCHAR, OUT sent_at TIMESTAMP WITH TIME ZONE,
    OUT arrived_at TIMESTAMP WITH TIME ZONE)
RETURNS SETOF RECORD
AS 'MODULE_PATHNAME', 'fetchq_doc_origin' LANGUAGE C STABLE ROWS 1;

CREATE FUNCTION fetchq.remote_inbox() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_remote_inbox' LANGUAGE C;

CREATE TRIGGER fetchq_remote_inbox BEFORE INSERT ON fetchq.remote_outbox
    FOR EACH ROW EXECUTE FUNCTION fetchq.remote_inbox();
ALTER TABLE fetchq.remote_outbox ENABLE REPLICA TRIGGER fetchq_remote_inbox;

-- Empties every backend's cache of routes when a change of
-- fetchq.remote_routes commits, however it was made.
CREATE FUNCTION fetchq.remote_routes_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_changed' LANGUAGE C;

CREATE TRIGGER fetchq_remote_routes_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.remote_routes FOR EACH STATEMENT EXECUTE FUNCTION fetchq.remote_routes_changed();

-- The sending side: per remote route, its link's slot (made by the receiving
-- database's remote_subscribe) and how far behind it is: the WAL it keeps
-- (lag_bytes) and the walsender's replay lag (NULL while nothing reads it);
-- published: the link's publication carries the outbox (not after a restore
-- until the next remote_route_create to the link).
CREATE VIEW fetchq.remote_route_status WITH (security_barrier) AS
SELECT r.id, r.source, r.link, r.queue, r.link::pg_catalog.text || '/' || r.queue AS destination,
       r.selector, r.owner, r.created_at,
       s.slot_name, COALESCE(s.active, false) AS slot_active, s.wal_status,
       CASE WHEN pg_catalog.pg_is_in_recovery() THEN NULL
            ELSE pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(),
                                            s.confirmed_flush_lsn)::pg_catalog.int8 END
           AS lag_bytes,
       w.replay_lag AS lag_time, w.reply_time,
       EXISTS (SELECT FROM pg_catalog.pg_publication_tables AS t
               WHERE t.pubname = 'fetchq_remote_' || r.link AND t.schemaname = 'fetchq'
                 AND t.tablename = 'remote_outbox') AS published
FROM fetchq.remote_routes AS r
LEFT JOIN pg_catalog.pg_replication_slots AS s
    ON s.slot_name = 'fetchq_remote_' || r.link AND s.database = pg_catalog.current_database()
LEFT JOIN pg_catalog.pg_stat_replication AS w ON w.pid = s.active_pid
WHERE pg_catalog.pg_has_role(r.owner::pg_catalog.oid, 'USAGE')
   OR fetchq.queue_has_privilege(r.source, 'read');

-- The receiving side: per link, what arrived (delivered; skipped: subject
-- already there; looped: back in a database it passed through; refused:
-- as_role may not push) and when the last document arrived.
CREATE VIEW fetchq.remote_subscription_status WITH (security_barrier) AS
SELECT l.link, l.as_role, l.owner, l.created_at, sub.subenabled AS enabled,
       l.delivered, l.skipped, l.looped, l.refused, l.last_arrival, l.last_refusal,
       st.latest_end_time AS last_message
FROM fetchq.remote_subscriptions AS l
LEFT JOIN pg_catalog.pg_subscription AS sub
    ON sub.subname = 'fetchq_remote_' || l.link
   AND sub.subdbid = (SELECT oid FROM pg_catalog.pg_database
                      WHERE datname = pg_catalog.current_database())
LEFT JOIN pg_catalog.pg_stat_subscription AS st ON st.subid = sub.oid AND st.relid IS NULL
WHERE pg_catalog.pg_has_role(l.as_role::pg_catalog.oid, 'USAGE')
   OR pg_catalog.pg_has_role(l.owner::pg_catalog.oid, 'USAGE');

GRANT SELECT ON fetchq.remote_route_status TO PUBLIC;
GRANT SELECT ON fetchq.remote_subscription_status TO PUBLIC;
