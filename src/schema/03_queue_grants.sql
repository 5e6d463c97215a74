-- Per-queue privileges (queue_grant, queue_revoke): what `grantee`, and every
-- role that has its privileges, may do with `queue` through fetchq's
-- functions, as a mask of push (1), pick (2), read (4) and manage (8). A
-- queue with no row here keeps the all-or-nothing model: the privileges on
-- its tables decide. Only the table's owner (the role that created the
-- extension) reads or writes it (row security with no policy); the view
-- fetchq.queue_privileges shows each caller the grants of the queues it may
-- read. A grant goes with its queue (ON DELETE CASCADE); a dropped role's
-- grants no longer apply, and the scheduler removes them.
CREATE TABLE fetchq.queue_grants (
    queue CHARACTER VARYING(40) NOT NULL
        REFERENCES fetchq.queues (name) ON DELETE CASCADE,
    grantee REGROLE NOT NULL,
    privileges SMALLINT NOT NULL CHECK (privileges BETWEEN 1 AND 15),
    grantor REGROLE NOT NULL,
    granted_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (queue, grantee)
);
ALTER TABLE fetchq.queue_grants ENABLE ROW LEVEL SECURITY;

SELECT pg_catalog.pg_extension_config_dump('fetchq.queue_grants', '');
