-- Per-queue privileges (src/sql_api/queues/queue_grants.cpp; the table is in
-- src/schema/03_queue_grants.sql)

-- Gives role (by name or regrole) one or more of push, pick, read and manage
-- on the queue (a text such as 'push, pick', a text array, or 'all'). Only
-- the queue's owner, a role with manage on it, or a superuser may grant.
-- Returns the privileges the role holds on the queue now.
CREATE FUNCTION fetchq.queue_grant(queue VARCHAR, role NAME, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_grant' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.queue_grant(queue VARCHAR, role NAME, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_grant' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.queue_grant(queue VARCHAR, role REGROLE, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_grant' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.queue_grant(queue VARCHAR, role REGROLE, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_grant' LANGUAGE C VOLATILE;

-- Takes privileges away; returns what the role still holds on the queue.
-- When a queue's last grant goes, the queue is back in the all-or-nothing
-- model, where the privileges on its tables decide.
CREATE FUNCTION fetchq.queue_revoke(queue VARCHAR, role NAME, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_revoke' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.queue_revoke(queue VARCHAR, role NAME, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_revoke' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.queue_revoke(queue VARCHAR, role REGROLE, privileges TEXT)
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_revoke' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.queue_revoke(queue VARCHAR, role REGROLE, privileges TEXT[])
RETURNS TEXT[]
AS 'MODULE_PATHNAME', 'fetchq_queue_revoke' LANGUAGE C VOLATILE;

-- Whether role (NULL: the current user) holds privilege on the queue: from
-- its grants, or for a queue without grants from the privileges on its
-- tables (push INSERT, pick UPDATE, read SELECT on its documents; manage:
-- the owner's privileges).
CREATE FUNCTION fetchq.queue_has_privilege(queue VARCHAR, privilege TEXT,
    role REGROLE DEFAULT NULL)
RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_queue_has_privilege' LANGUAGE C STABLE;

-- Empties every backend's cache of queue grants when a change commits.
CREATE FUNCTION fetchq.queue_grants_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_changed' LANGUAGE C;

CREATE TRIGGER fetchq_queue_grants_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.queue_grants FOR EACH STATEMENT EXECUTE FUNCTION fetchq.queue_grants_changed();

-- The grants of the queues the caller may read (security_barrier: a
-- caller's own function in a WHERE clause never sees the others).
CREATE VIEW fetchq.queue_privileges WITH (security_barrier) AS
SELECT g.queue, r.rolname AS role,
       ARRAY(SELECT p.name FROM pg_catalog.unnest(ARRAY['push', 'pick', 'read', 'manage'])
                 WITH ORDINALITY AS p(name, bit)
             WHERE g.privileges & (1 << (p.bit::integer - 1)) <> 0
             ORDER BY p.bit) AS privileges,
       COALESCE(gr.rolname::text, g.grantor::oid::text) AS grantor,
       g.granted_at
FROM fetchq.queue_grants AS g
JOIN pg_catalog.pg_roles AS r ON r.oid = g.grantee
LEFT JOIN pg_catalog.pg_roles AS gr ON gr.oid = g.grantor
WHERE fetchq.queue_has_privilege(g.queue, 'read');

GRANT SELECT ON fetchq.queue_privileges TO PUBLIC;
