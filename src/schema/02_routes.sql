-- Routes (route_create, subscribe): every document that arrives in source
-- and matches selector (NULL: every document) is also pushed into
-- destination, in the pushing transaction, with the rights of owner (the
-- role that created the route), checked at delivery. Only the table's owner
-- (the role that created the extension) writes it: row security is on with
-- a read policy only, and route_create and route_drop insert and delete as
-- that owner once they checked the caller's rights. A route goes with
-- either of its queues (ON DELETE CASCADE); a queue with routes cannot be
-- renamed.
CREATE TABLE fetchq.routes (
    id BIGSERIAL PRIMARY KEY,
    source CHARACTER VARYING(40) NOT NULL
        REFERENCES fetchq.queues (name) ON DELETE CASCADE,
    destination CHARACTER VARYING(40) NOT NULL
        REFERENCES fetchq.queues (name) ON DELETE CASCADE,
    selector JSONPATH,
    owner REGROLE NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    UNIQUE (source, destination),
    CHECK (source <> destination)
);
CREATE INDEX __fetchq_routes_destination_idx ON fetchq.routes (destination);
ALTER TABLE fetchq.routes ENABLE ROW LEVEL SECURITY;
CREATE POLICY routes_read ON fetchq.routes FOR SELECT USING (true);

-- The routes out of topics, as subscriptions: temporary when the receiving
-- queue belongs to a session (subscribe_temporary).
CREATE VIEW fetchq.subscriptions AS
SELECT r.id, r.source AS topic, r.destination AS queue, r.selector,
       d.owner_session IS NOT NULL AS temporary, r.owner, r.created_at
FROM fetchq.routes AS r
JOIN fetchq.queues AS t ON t.name = r.source AND t.is_topic
JOIN fetchq.queues AS d ON d.name = r.destination;

SELECT pg_catalog.pg_extension_config_dump('fetchq.routes', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.routes_id_seq', '');
