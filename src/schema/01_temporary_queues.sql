-- Temporary queues and the session that owns each (its pid and start time,
-- see queue_create_temporary). The scheduler drops a queue listed here once
-- that session ended, so no role may write it: row security is on with no
-- policy, which leaves it to the table's owner (the role that created the
-- extension) whatever privileges a role was granted on schema fetchq.
-- queue_create_temporary inserts as that owner; the row goes with its queue.
CREATE TABLE fetchq.temporary_queues (
    name CHARACTER VARYING(40) PRIMARY KEY
        REFERENCES fetchq.queues (name) ON DELETE CASCADE,
    session_key BIGINT NOT NULL,
    created_by OID NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    -- dropped also once nothing moved its documents (its counters) for this
    -- long (queue_create_temporary's idle_timeout; NULL: only with its session)
    idle_timeout INTERVAL CHECK (idle_timeout > '0'::interval)
);
ALTER TABLE fetchq.temporary_queues ENABLE ROW LEVEL SECURITY;
SELECT pg_catalog.pg_extension_config_dump('fetchq.temporary_queues', '');
