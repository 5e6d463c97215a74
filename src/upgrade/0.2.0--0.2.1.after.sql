-- Update from 0.2.0, last part: the privileges that the documented grants of
-- earlier versions gave on fetchq's catalog.
--
-- docs/install.md of 0.2.0 and earlier told administrators to grant SELECT,
-- INSERT, UPDATE, DELETE on every table of schema fetchq (and USAGE on its
-- sequences) to application roles. From 0.2.1 fetchq reads and writes its
-- catalog itself, as the extension's owner, and a write privilege on one of
-- those tables only lets a role rewrite what fetchq keeps for every role, or
-- lock the table in any mode (ACCESS EXCLUSIVE included) and so make every
-- other role's call wait.
--
-- Streams get privileges of their own (fetchq.stream_grants): a role that
-- could append to every stream through the old grants (INSERT on
-- fetchq.stream_messages) gets append on each existing stream, and one that
-- could read and commit (SELECT on fetchq.stream_messages and INSERT on
-- fetchq.stream_offsets) gets read, granted by the stream's owner; a stream
-- created from now on is its owner's alone until it grants.
INSERT INTO fetchq.stream_grants (stream_id, grantee, privileges, grantor)
SELECT s.id, r.oid::pg_catalog.regrole,
       (CASE WHEN pg_catalog.has_table_privilege(r.oid, 'fetchq.stream_messages', 'INSERT')
             THEN 1 ELSE 0 END
        OPERATOR(pg_catalog.|)
        CASE WHEN pg_catalog.has_table_privilege(r.oid, 'fetchq.stream_messages', 'SELECT')
              AND pg_catalog.has_table_privilege(r.oid, 'fetchq.stream_offsets', 'INSERT')
             THEN 2 ELSE 0 END)::pg_catalog.int2,
       s.owner
FROM fetchq.streams AS s
CROSS JOIN pg_catalog.pg_roles AS r
WHERE r.oid OPERATOR(pg_catalog.<>) s.owner::pg_catalog.oid
  AND NOT r.rolsuper
  AND r.rolname !~ '^pg_'
  AND (pg_catalog.has_table_privilege(r.oid, 'fetchq.stream_messages', 'INSERT')
       OR (pg_catalog.has_table_privilege(r.oid, 'fetchq.stream_messages', 'SELECT')
           AND pg_catalog.has_table_privilege(r.oid, 'fetchq.stream_offsets', 'INSERT')))
ON CONFLICT DO NOTHING;

-- Then every privilege but SELECT on the catalog's tables (and USAGE and
-- UPDATE on their sequences) goes, from every role but the table's owner,
-- PUBLIC included, with what those roles granted on from them (CASCADE). On
-- the tables of streams' messages, keys, offsets and leases, SELECT goes
-- too from the roles that held a write privilege there (the old streams
-- block): it would let them read every stream's messages; a role that only
-- reads them (a dashboard) keeps it.
DO $fetchq_revoke$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT pg_catalog.format('REVOKE %s%s ON %s %s FROM %s CASCADE', a.privilege_type,
                   CASE WHEN a.attname IS NULL THEN ''
                        ELSE pg_catalog.format(' (%I)', a.attname) END,
                   CASE c.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END,
                   c.oid::pg_catalog.regclass,
                   CASE a.grantee WHEN 0 THEN 'PUBLIC'
                        ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END)
                   AS statement
        FROM pg_catalog.pg_class AS c
        CROSS JOIN LATERAL (
            SELECT NULL::pg_catalog.name AS attname, e.grantee, e.privilege_type
            FROM pg_catalog.aclexplode(c.relacl) AS e
            UNION ALL
            SELECT t.attname, e.grantee, e.privilege_type
            FROM pg_catalog.pg_attribute AS t, pg_catalog.aclexplode(t.attacl) AS e
            WHERE t.attrelid = c.oid AND t.attnum > 0 AND NOT t.attisdropped) AS a
        WHERE c.relnamespace = 'fetchq'::pg_catalog.regnamespace
          AND a.grantee <> c.relowner
          AND ((c.relkind IN ('r', 'p')
                AND c.relname IN ('queues', 'jobs', 'counters', 'custom_counters',
                                  'metrics_writes', 'queue_grants', 'routes',
                                  'temporary_queues', 'streams', 'stream_groups')
                AND a.privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE',
                                         'REFERENCES', 'TRIGGER'))
            OR (c.relkind IN ('r', 'p')
                AND c.relname IN ('stream_keys', 'stream_messages', 'stream_offsets',
                                  'stream_leases')
                AND (a.privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE',
                                          'REFERENCES', 'TRIGGER')
                     OR (a.privilege_type = 'SELECT' AND EXISTS (
                         SELECT 1 FROM pg_catalog.aclexplode(c.relacl) AS w
                         WHERE w.grantee = a.grantee
                           AND w.privilege_type IN ('INSERT', 'UPDATE', 'DELETE')))))
            OR (c.relkind = 'S' AND a.privilege_type IN ('USAGE', 'UPDATE')))
        ORDER BY 1
    LOOP
        EXECUTE r.statement;
    END LOOP;
END
$fetchq_revoke$;

-- A REVOKE in an extension's script also records the privileges it leaves as
-- the extension's initial ones (pg_init_privs), and pg_dump leaves those out
-- of a dump: the SELECT an administrator gave would be lost by a dump and
-- restore. A fresh install records none for these tables and sequences.
DELETE FROM pg_catalog.pg_init_privs AS p
USING pg_catalog.pg_class AS c
WHERE p.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass AND p.objoid = c.oid
  AND c.relnamespace = 'fetchq'::pg_catalog.regnamespace AND c.relkind IN ('r', 'p', 'S');
