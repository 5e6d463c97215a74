-- Streams (stream_create, stream_append, ...): an ordered log per key with
-- gapless offsets in commit order, and per consumer group a committed offset
-- per key. Messages are append-only rows, each payload stored once; an
-- append moves its key's head row (stream_keys.last_offset) and so waits for
-- another append to the key until that one ends. Retention (the scheduler)
-- deletes what every group of a stream committed. The hot tables have no
-- foreign keys (a check per append or commit, and a shared row lock on the
-- stream's row that concurrent appenders turn into multixacts):
-- stream_drop deletes their rows itself, after waiting for the appends under
-- way (a lock of fetchq's own on the stream, src/ops/streams/stream_locks.hpp). Nor
-- CHECK constraints on the offsets: the executor compiles them again for
-- every statement, and the functions, which alone number messages and move
-- offsets, keep them positive.
CREATE TABLE fetchq.streams (
    id SERIAL PRIMARY KEY,
    name CHARACTER VARYING(40) NOT NULL UNIQUE,
    owner REGROLE NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    -- stream_set_max_age: retention also removes messages older than this,
    -- committed or not; NULL (the default): only what every group committed.
    max_age INTERVAL CHECK (max_age > interval '0'),
    -- stream_set_group_max_idle: the scheduler drops a group (its offsets
    -- and leases) that committed nothing and held no lease for this long, as
    -- Kafka expires the offsets of inactive groups; NULL (the default): never.
    group_max_idle INTERVAL CHECK (group_max_idle > interval '0')
);

-- One row per key that ever had a message, with its last offset: what
-- appends number from and stream_claim enumerates.
CREATE TABLE fetchq.stream_keys (
    stream_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    last_offset BIGINT NOT NULL,
    PRIMARY KEY (stream_id, key)
);

CREATE TABLE fetchq.stream_messages (
    stream_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    "offset" BIGINT NOT NULL,
    payload JSONB,
    appended_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (stream_id, key, "offset")
);

-- The groups of a stream: created by their first use (or stream_group_create),
-- dropped by stream_group_drop or, idle, by the scheduler. created_by: the
-- role that registered it (NULL for a group of 0.2.0).
CREATE TABLE fetchq.stream_groups (
    stream_id INTEGER NOT NULL REFERENCES fetchq.streams (id) ON DELETE CASCADE,
    group_name CHARACTER VARYING(40) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    created_by REGROLE,
    PRIMARY KEY (stream_id, group_name)
);

-- A group's committed offset per key (0 when there is no row).
CREATE TABLE fetchq.stream_offsets (
    stream_id INTEGER NOT NULL,
    group_name CHARACTER VARYING(40) NOT NULL,
    key TEXT NOT NULL,
    committed BIGINT NOT NULL,
    committed_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (stream_id, group_name, key)
);

-- Keys leased to a session (stream_claim) until `until`, or until that
-- session ends.
CREATE TABLE fetchq.stream_leases (
    stream_id INTEGER NOT NULL,
    group_name CHARACTER VARYING(40) NOT NULL,
    key TEXT NOT NULL,
    session BIGINT NOT NULL,
    until TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (stream_id, group_name, key)
);

SELECT pg_catalog.pg_extension_config_dump('fetchq.streams', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.streams_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.stream_keys', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.stream_messages', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.stream_groups', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.stream_offsets', '');
