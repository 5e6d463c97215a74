-- Per-stream privileges (src/sql_api/streams/stream_grants.cpp; the table is
-- in src/schema/05_stream_grants.sql)

-- Gives role (by name or regrole) append, read or both ('all') on the
-- stream (a text such as 'append, read', or a text array). Only the
-- stream's owner, a member of it, or a superuser may grant. Returns the
-- privileges the role holds on the stream now.
CREATE FUNCTION fetchq.stream_grant(stream VARCHAR, role NAME, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_stream_grant' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.stream_grant(stream VARCHAR, role NAME, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_stream_grant' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.stream_grant(stream VARCHAR, role REGROLE, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_stream_grant' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.stream_grant(stream VARCHAR, role REGROLE, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_stream_grant' LANGUAGE C VOLATILE;

-- Takes privileges away; returns what the role still holds on the stream.
CREATE FUNCTION fetchq.stream_revoke(stream VARCHAR, role NAME, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_stream_revoke' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.stream_revoke(stream VARCHAR, role NAME, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_stream_revoke' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.stream_revoke(stream VARCHAR, role REGROLE, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_stream_revoke' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.stream_revoke(stream VARCHAR, role REGROLE, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_stream_revoke' LANGUAGE C VOLATILE;

-- Whether role (NULL: the current user) holds privilege (append or read) on
-- the stream: its owner's privileges, or a grant to it or to a role whose
-- privileges it has. False for a missing stream.
CREATE FUNCTION fetchq.stream_has_privilege(stream VARCHAR, privilege TEXT,
    role REGROLE DEFAULT NULL)
RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_stream_has_privilege' LANGUAGE C STABLE;

-- The grants of the streams the caller may read (security_barrier: a
-- caller's own function in a WHERE clause never sees the others).
CREATE VIEW fetchq.stream_privileges WITH (security_barrier) AS
SELECT s.name AS stream, r.rolname AS role,
       ARRAY(SELECT p.name FROM pg_catalog.unnest(ARRAY['append', 'read'])
                 WITH ORDINALITY AS p(name, bit)
             WHERE g.privileges & (1 << (p.bit::integer - 1)) <> 0
             ORDER BY p.bit) AS privileges,
       COALESCE(gr.rolname::text, g.grantor::oid::text) AS grantor,
       g.granted_at
FROM fetchq.stream_grants AS g
JOIN fetchq.streams AS s ON s.id = g.stream_id
JOIN pg_catalog.pg_roles AS r ON r.oid = g.grantee
LEFT JOIN pg_catalog.pg_roles AS gr ON gr.oid = g.grantor
WHERE fetchq.stream_has_privilege(s.name, 'read');

GRANT SELECT ON fetchq.stream_privileges TO PUBLIC;
