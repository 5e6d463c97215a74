-- Streams (src/sql_api/streams/streams.cpp; the tables are in src/schema/04_streams.sql)

CREATE FUNCTION fetchq.stream_create(name VARCHAR, OUT was_created BOOLEAN,
    OUT stream_id INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_stream_create' LANGUAGE C VOLATILE;

-- Drops the stream with its messages, groups, offsets and leases.
CREATE FUNCTION fetchq.stream_drop(name VARCHAR) RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_stream_drop' LANGUAGE C VOLATILE;

-- The message's offset within its key: 1, 2, 3 ... with no gap, in commit
-- order (a second transaction appending to the key waits for the first).
CREATE FUNCTION fetchq.stream_append(stream VARCHAR, key TEXT, payload JSONB) RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_stream_append' LANGUAGE C VOLATILE;

-- The messages after the group's committed offset of the key, in offset order.
CREATE FUNCTION fetchq.stream_read(stream VARCHAR, group_name VARCHAR, key TEXT,
    "limit" INTEGER DEFAULT 100)
RETURNS TABLE ("offset" BIGINT, payload JSONB, appended_at TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_stream_read' LANGUAGE C VOLATILE;

-- Moves the group's committed offset of the key forward (a lower or equal
-- offset is ignored); returns the committed offset after the call.
CREATE FUNCTION fetchq.stream_commit(stream VARCHAR, group_name VARCHAR, key TEXT,
    "offset" BIGINT)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_stream_commit' LANGUAGE C VOLATILE;

-- The next unread message as {"id": offset, "message": payload}, or NULL.
CREATE FUNCTION fetchq.stream_get(stream VARCHAR, group_name VARCHAR, key TEXT) RETURNS JSONB
AS 'MODULE_PATHNAME', 'fetchq_stream_get' LANGUAGE C VOLATILE;

-- Up to max_keys keys with unread messages for the group, leased to the
-- calling session for `lease` (or until it ends).
CREATE FUNCTION fetchq.stream_claim(stream VARCHAR, group_name VARCHAR,
    max_keys INTEGER DEFAULT 1, lease INTERVAL DEFAULT '30 seconds')
RETURNS TABLE (key TEXT, lease_until TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_stream_claim' LANGUAGE C VOLATILE;

-- Ends this session's lease of the key (NULL: of every key of the group).
CREATE FUNCTION fetchq.stream_release(stream VARCHAR, group_name VARCHAR,
    key TEXT DEFAULT NULL)
RETURNS INTEGER
AS 'MODULE_PATHNAME', 'fetchq_stream_release' LANGUAGE C VOLATILE;

-- Registers a group ahead of its first use: from then on retention keeps
-- every message until the group committed it. True when it was created.
CREATE FUNCTION fetchq.stream_group_create(stream VARCHAR, group_name VARCHAR)
RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_stream_group_create' LANGUAGE C VOLATILE;

-- Drops a consumer group with its offsets and leases (its stream's owner,
-- or the role that registered it). True.
CREATE FUNCTION fetchq.stream_group_drop(stream VARCHAR, group_name VARCHAR)
RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_stream_group_drop' LANGUAGE C VOLATILE STRICT;

-- The scheduler drops a group that committed nothing and held no lease for
-- max_idle (NULL, the default: never).
CREATE FUNCTION fetchq.stream_set_group_max_idle(stream VARCHAR, max_idle INTERVAL)
RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_stream_set_group_max_idle' LANGUAGE C VOLATILE;

-- Retention also removes messages older than max_age, committed or not
-- (NULL, the default: only what every group committed).
CREATE FUNCTION fetchq.stream_set_max_age(stream VARCHAR, max_age INTERVAL) RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_stream_set_max_age' LANGUAGE C VOLATILE;

-- {"create": [{"hash", "message"}...], "commit": [{"hash", "id"}...]}: the
-- actions in the order given, all or nothing; returns the offsets given and
-- committed.
CREATE FUNCTION fetchq.stream_set(stream VARCHAR, group_name VARCHAR, body JSONB) RETURNS JSONB
AS 'MODULE_PATHNAME', 'fetchq_stream_set' LANGUAGE C VOLATILE;

-- Empties every backend's caches of streams, their grants and groups when
-- fetchq.streams, fetchq.stream_grants or fetchq.stream_groups changes.
CREATE FUNCTION fetchq.streams_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_changed' LANGUAGE C;

CREATE TRIGGER fetchq_streams_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.streams FOR EACH STATEMENT EXECUTE FUNCTION fetchq.streams_changed();

-- Every backend remembers the groups it found registered: a group that goes
-- (a delete, its stream's drop) empties those memories. An insert does not.
CREATE TRIGGER fetchq_stream_groups_changed AFTER UPDATE OR DELETE OR TRUNCATE
    ON fetchq.stream_groups FOR EACH STATEMENT EXECUTE FUNCTION fetchq.streams_changed();

-- The same when a stream's grants change (src/sql_api/streams/stream_grants.sql).
CREATE TRIGGER fetchq_stream_grants_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.stream_grants FOR EACH STATEMENT EXECUTE FUNCTION fetchq.streams_changed();

-- One row per stream.
CREATE VIEW fetchq.stream_list AS
SELECT s.name AS stream, s.id AS stream_id, s.owner, s.created_at, s.max_age,
       (SELECT count(*) FROM fetchq.stream_keys AS k WHERE k.stream_id = s.id) AS keys,
       (SELECT count(*) FROM fetchq.stream_messages AS m WHERE m.stream_id = s.id) AS messages,
       (SELECT count(*) FROM fetchq.stream_groups AS g WHERE g.stream_id = s.id) AS groups,
       s.group_max_idle
FROM fetchq.streams AS s;

-- Per stream and group: the messages not yet committed, over every key, and
-- the age of the oldest of them.
CREATE VIEW fetchq.stream_lag AS
SELECT s.name AS stream, g.group_name,
       COALESCE(sum(k.last_offset - COALESCE(o.committed, 0)), 0)::bigint AS lag,
       pg_catalog.now() - min(u.appended_at) AS oldest_unread_age
FROM fetchq.streams AS s
JOIN fetchq.stream_groups AS g ON g.stream_id = s.id
LEFT JOIN fetchq.stream_keys AS k ON k.stream_id = s.id
LEFT JOIN fetchq.stream_offsets AS o
    ON o.stream_id = s.id AND o.group_name = g.group_name AND o.key = k.key
LEFT JOIN LATERAL (SELECT m.appended_at FROM fetchq.stream_messages AS m
                   WHERE m.stream_id = s.id AND m.key = k.key
                     AND m."offset" > COALESCE(o.committed, 0)
                   ORDER BY m."offset" LIMIT 1) AS u ON true
GROUP BY s.name, g.group_name;
