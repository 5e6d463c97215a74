-- Per-stream privileges (stream_grant, stream_revoke): what `grantee`, and
-- every role that has its privileges, may do with a stream through fetchq's
-- functions, as a mask of append (1) and read (2). A stream's owner (and a
-- role with its privileges) holds both; nobody else holds anything without a
-- row here. Only the table's owner (the role that created the extension)
-- reads or writes it (row security with no policy); the view
-- fetchq.stream_privileges shows each caller the grants of the streams it
-- may read. A grant goes with its stream (ON DELETE CASCADE); a dropped
-- role's grants no longer apply, and the scheduler removes them.
CREATE TABLE fetchq.stream_grants (
    stream_id INTEGER NOT NULL REFERENCES fetchq.streams (id) ON DELETE CASCADE,
    grantee REGROLE NOT NULL,
    privileges SMALLINT NOT NULL CHECK (privileges BETWEEN 1 AND 3),
    grantor REGROLE NOT NULL,
    granted_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (stream_id, grantee)
);
ALTER TABLE fetchq.stream_grants ENABLE ROW LEVEL SECURITY;

SELECT pg_catalog.pg_extension_config_dump('fetchq.stream_grants', '');
