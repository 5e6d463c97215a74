-- The catalog of extension fetchq in the current database, one object per
-- line, in an order that does not depend on OIDs: what an update from an
-- older version must leave exactly as a fresh install has it. Covers the
-- extension's schemas and everything in them, the per-queue tables included.
\pset format unaligned
\pset tuples_only on
\pset footer off
SET search_path = pg_catalog;

CREATE TEMPORARY VIEW fetchq_schemas AS
SELECT oid, nspname FROM pg_namespace WHERE nspname IN ('fetchq', 'fetchq_data');

SELECT * FROM (
-- the extension and its members
SELECT 'extension ' || extname || ' ' || extversion || ' relocatable=' || extrelocatable
       || ' schema=' || extnamespace::regnamespace AS line
FROM pg_extension WHERE extname = 'fetchq'
UNION ALL
SELECT 'member ' || pg_describe_object(d.classid, d.objid, d.objsubid)
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'fetchq'
UNION ALL
SELECT 'config-dump ' || c.relid::regclass::text || ' ' || quote_literal(c.cond)
FROM pg_extension e,
     unnest(e.extconfig, e.extcondition) AS c(relid, cond)
WHERE e.extname = 'fetchq'
UNION ALL
-- schemas
SELECT 'schema ' || n.nspname || ' owner=' || pg_get_userbyid(n.nspowner)
       || ' acl=' || coalesce(n.nspacl::text, '-')
FROM pg_namespace n JOIN fetchq_schemas s ON s.oid = n.oid
UNION ALL
-- functions and procedures: the whole definition, owner, privileges, comment
SELECT 'function ' || p.oid::regprocedure::text || ' owner=' || pg_get_userbyid(p.proowner)
       || ' acl=' || coalesce(p.proacl::text, '-')
       || ' comment=' || coalesce(obj_description(p.oid, 'pg_proc'), '-')
       || E'\n' || pg_get_functiondef(p.oid)
FROM pg_proc p JOIN fetchq_schemas s ON s.oid = p.pronamespace
UNION ALL
-- relations (an ACL that every grant left, the owner's alone, is the
-- default one, as NULL is: a REVOKE leaves the first where no GRANT was)
SELECT 'relation ' || c.oid::regclass::text || ' kind=' || c.relkind::text
       || ' persistence=' || c.relpersistence::text || ' owner=' || pg_get_userbyid(c.relowner)
       || ' acl=' || coalesce(nullif(c.relacl, acldefault(
              CASE WHEN c.relkind = 'S' THEN 's' ELSE 'r' END::"char", c.relowner))::text, '-')
       || ' options=' || coalesce(c.reloptions::text, '-')
       || ' rls=' || c.relrowsecurity || '/' || c.relforcerowsecurity
       || ' replident=' || c.relreplident::text
       || ' comment=' || coalesce(obj_description(c.oid, 'pg_class'), '-')
FROM pg_class c JOIN fetchq_schemas s ON s.oid = c.relnamespace
UNION ALL
-- columns, by their place among the live ones
SELECT 'column ' || c.oid::regclass::text || ' #'
       || row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum) || ' ' || a.attname
       || ' ' || format_type(a.atttypid, a.atttypmod)
       || ' notnull=' || a.attnotnull
       || ' default=' || coalesce(pg_get_expr(ad.adbin, ad.adrelid), '-')
       || ' identity=' || a.attidentity::text || ' generated=' || a.attgenerated::text
       || ' collation=' || coalesce(nullif(a.attcollation, 0)::regcollation::text, '-')
       || ' storage=' || a.attstorage::text
       || ' acl=' || coalesce(a.attacl::text, '-')
FROM pg_class c JOIN fetchq_schemas s ON s.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
UNION ALL
SELECT 'index ' || pg_get_indexdef(i.indexrelid)
       || ' options=' || coalesce(ic.reloptions::text, '-')
FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN fetchq_schemas s ON s.oid = ic.relnamespace
UNION ALL
SELECT 'constraint ' || co.conrelid::regclass::text || ' ' || co.conname || ' '
       || pg_get_constraintdef(co.oid)
       || ' deferrable=' || co.condeferrable || '/' || co.condeferred
FROM pg_constraint co JOIN fetchq_schemas s ON s.oid = co.connamespace
UNION ALL
SELECT 'trigger ' || pg_get_triggerdef(t.oid) || ' enabled=' || t.tgenabled::text
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
JOIN fetchq_schemas s ON s.oid = c.relnamespace
WHERE NOT t.tgisinternal
UNION ALL
SELECT 'view ' || c.oid::regclass::text || E'\n' || pg_get_viewdef(c.oid)
FROM pg_class c JOIN fetchq_schemas s ON s.oid = c.relnamespace
WHERE c.relkind IN ('v', 'm')
UNION ALL
SELECT 'policy ' || pol.polrelid::regclass::text || ' ' || pol.polname
       || ' cmd=' || pol.polcmd::text || ' permissive=' || pol.polpermissive
       || ' roles=' || array_to_string(ARRAY(SELECT CASE r WHEN 0 THEN 'public'
                                                    ELSE pg_get_userbyid(r)::text END
                                             FROM unnest(pol.polroles) AS r ORDER BY 1), ',')
       || ' using=' || coalesce(pg_get_expr(pol.polqual, pol.polrelid), '-')
       || ' check=' || coalesce(pg_get_expr(pol.polwithcheck, pol.polrelid), '-')
FROM pg_policy pol JOIN pg_class c ON c.oid = pol.polrelid
JOIN fetchq_schemas s ON s.oid = c.relnamespace
UNION ALL
SELECT 'sequence ' || sq.seqrelid::regclass::text || ' ' || format_type(sq.seqtypid, NULL)
       || ' start=' || sq.seqstart || ' inc=' || sq.seqincrement || ' max=' || sq.seqmax
       || ' min=' || sq.seqmin || ' cache=' || sq.seqcache || ' cycle=' || sq.seqcycle
       || ' owned_by=' || coalesce((SELECT d.refobjid::regclass::text || '.' || a.attname
                                    FROM pg_depend d JOIN pg_attribute a
                                      ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
                                    WHERE d.classid = 'pg_class'::regclass
                                      AND d.objid = sq.seqrelid AND d.deptype = 'a'), '-')
FROM pg_sequence sq JOIN pg_class c ON c.oid = sq.seqrelid
JOIN fetchq_schemas s ON s.oid = c.relnamespace
UNION ALL
SELECT 'type ' || t.oid::regtype::text || ' type=' || t.typtype::text
       || ' owner=' || pg_get_userbyid(t.typowner) || ' acl=' || coalesce(t.typacl::text, '-')
FROM pg_type t JOIN fetchq_schemas s ON s.oid = t.typnamespace
WHERE t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c'
UNION ALL
SELECT 'default-acl ' || pg_get_userbyid(da.defaclrole) || ' ' || da.defaclobjtype::text || ' '
       || da.defaclacl::text
FROM pg_default_acl da JOIN fetchq_schemas s ON s.oid = da.defaclnamespace
UNION ALL
SELECT 'event-trigger ' || evtname || ' ' || evtevent || ' ' || evtfoid::regproc::text
FROM pg_event_trigger
) AS catalog
ORDER BY line COLLATE "C";
