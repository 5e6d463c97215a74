#!/usr/bin/env bash
# Untyped parameters, as node-postgres and most drivers send them: every
# overloaded function of schema fetchq, called with 0 to N parameters of
# unknown type (PREPARE p AS SELECT * FROM fetchq.f($1, ..., $n)), resolves
# to the signature listed below or fails; where Fetchq 4 (npm fetchq@4.1.1,
# loaded as test/compat_test.sh loads it) has a function for that shape, the
# extension resolves it to the same signature. Then the one shape whose
# meaning a value could silently change: doc_pick($1, $2) is
# doc_pick(queue, duration), as in Fetchq 4, and refuses a number without a
# unit there (meant as a limit, it would have been a lock of that many
# seconds), from psql and from node-postgres.
# Env: PGHOST PGPORT PGUSER of a superuser; $1: a database with the extension.
set -euo pipefail
db=$1
cd "$(dirname "$0")/.." || exit 1
root=$(pwd -P)
source test/lib/checks.sh
ref_db=untyped_ref_$$
work=$(mktemp -d)
trap 'psql -X -q -d "$db" -c "DROP DATABASE IF EXISTS $ref_db WITH (FORCE)" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# What each shape resolves to: the types of its parameters, or the SQLSTATE
# of the error. Shapes that no function of that name can take (42883: too
# few or too many arguments) are left out.
cat >"$work/expected" <<'LIST'
doc_append/2 (varchar,jsonb)
doc_append/4 (varchar,jsonb,integer,integer)
doc_complete/2 (varchar,varchar)
doc_complete/3 (varchar,varchar,jsonb)
doc_complete/4 (varchar,varchar,jsonb,integer)
doc_drop/2 (varchar,varchar)
doc_drop/3 (varchar,varchar,integer)
doc_kill/2 (varchar,varchar)
doc_kill/3 (varchar,varchar,jsonb)
doc_kill/4 (varchar,varchar,jsonb,integer)
doc_pick/1 (varchar)
doc_pick/2 (varchar,varchar)
doc_pick/4 (varchar,integer,integer,varchar)
doc_pick/5 (varchar,integer,integer,varchar,boolean)
doc_push/2 (varchar,varchar)
doc_push/3 (varchar,varchar,jsonb)
doc_push/4 ERROR 42725
doc_push/6 (varchar,varchar,integer,integer,timestamptz,jsonb)
doc_push/7 (varchar,varchar,integer,integer,timestamptz,jsonb,timestamptz)
doc_reject/4 (varchar,varchar,varchar,jsonb)
doc_reject/5 (varchar,varchar,varchar,jsonb,varchar)
doc_reject/6 (varchar,varchar,varchar,jsonb,varchar,interval)
doc_reject/7 (varchar,varchar,varchar,jsonb,varchar,interval,integer)
doc_reschedule/3 (varchar,varchar,timestamptz)
doc_reschedule/4 (varchar,varchar,timestamptz,jsonb)
doc_reschedule/5 (varchar,varchar,timestamptz,jsonb,integer)
log_error/4 (varchar,varchar,varchar,jsonb)
log_error/5 (varchar,varchar,varchar,jsonb,varchar)
metric_get/1 (varchar)
metric_get/2 (varchar,varchar)
metric_snap/1 (varchar)
metric_snap/2 (varchar,varchar)
mnt/0 ()
mnt/1 (varchar)
mnt_job_run/0 ()
mnt_job_run/1 (integer)
mnt_job_run/2 (varchar,integer)
queue_create_indexes/1 (varchar)
queue_create_indexes/3 (varchar,integer,integer)
queue_drop_logs/1 (varchar)
queue_drop_logs/2 (varchar,varchar)
queue_drop_metrics/1 (varchar)
queue_drop_metrics/2 (varchar,jsonb)
queue_grant/3 (varchar,name,text)
queue_revoke/3 (varchar,name,text)
queue_status/0 ()
queue_status/1 (varchar)
queue_truncate/1 (varchar)
queue_truncate/2 (varchar,boolean)
queue_truncate_all/0 ()
queue_truncate_all/1 (boolean)
stream_grant/3 (varchar,name,text)
stream_revoke/3 (varchar,name,text)
trace/1 (varchar)
trace/2 (varchar,varchar)
LIST

# probe.sql: the resolution of every shape of the overloaded functions.
cat >"$work/probe.sql" <<'SQL'
CREATE FUNCTION pg_temp.probe(f text, n integer) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    args text;
    types text;
BEGIN
    SELECT string_agg('$' || i, ', ') INTO args FROM generate_series(1, n) AS i;
    BEGIN
        EXECUTE format('PREPARE probe_p AS SELECT * FROM fetchq.%I(%s)', f, coalesce(args, ''));
    EXCEPTION WHEN OTHERS THEN
        RETURN 'ERROR ' || SQLSTATE;
    END;
    SELECT array_to_string(parameter_types::text[], ',') INTO types
    FROM pg_prepared_statements WHERE name = 'probe_p';
    DEALLOCATE probe_p;
    RETURN '(' || replace(replace(coalesce(types, ''), 'character varying', 'varchar'),
                          'timestamp with time zone', 'timestamptz') || ')';
END $$;
SELECT p.proname || '/' || n || ' ' || pg_temp.probe(p.proname, n)
FROM (SELECT proname, max(pronargs) AS most FROM pg_proc
      WHERE pronamespace = 'fetchq'::regnamespace AND prokind = 'f'
      GROUP BY proname HAVING count(*) > 1) AS p,
     generate_series(0, p.most) AS n
ORDER BY p.proname, n;
SQL
probe() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -f "$work/probe.sql"; }

probe "$db" >"$work/extension.all"
grep -v 'ERROR 42883$' "$work/extension.all" >"$work/extension" || true
if diff -u "$work/expected" "$work/extension" >"$work/diff"; then
    ok "every shape of the $(cut -d/ -f1 "$work/extension.all" | sort -u | wc -l) overloaded functions resolves as listed"
else
    fail "shapes that resolve otherwise than listed (- listed, + now):"
    cat "$work/diff"
fi
ambiguous=$(grep -c ' ERROR ' "$work/extension" || true)
check "the shapes that resolve to no single function fail as not unique (42725)" \
    "$(grep -c ' ERROR 42725$' "$work/extension" || true)" "$ambiguous"

# The casts docs/api.md gives for the other forms of those shapes.
while IFS='|' read -r call want; do
    got=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "PREPARE c AS SELECT * FROM fetchq.$call" \
        -c "SELECT replace(replace(array_to_string(parameter_types::text[], ','), 'character varying', 'varchar'), 'timestamp with time zone', 'timestamptz') FROM pg_prepared_statements WHERE name = 'c'" 2>&1)
    check "$call resolves to ($want)" "$got" "$want"
done <<'CASTS'
doc_pick($1, $2::integer)|varchar,integer
doc_push($1, $2, $3::jsonb, $4::timestamptz)|varchar,varchar,jsonb,timestamptz
doc_push($1, $2::integer, $3::timestamptz, $4)|varchar,integer,timestamptz,varchar
doc_reject($1, $2, $3, $4, $5::interval)|varchar,varchar,varchar,jsonb,interval
doc_reject($1, $2, $3, $4, delay => $5)|varchar,varchar,varchar,jsonb,interval
metric_snap($1, $2::jsonb)|varchar,jsonb
queue_drop_logs($1, $2::timestamptz)|varchar,timestamptz
CASTS

# --- as Fetchq 4 resolves them ----------------------------------------------
ref_version=4.1.1
ref_sha256=af82c628a1d4260af7cb7be658566adcf49838f04ca9c65cf22662f4f09d16df
ref_sql=${FETCHQ_REF_CACHE:-$root/build/ref}/fetchq-$ref_version/client.init.sql
if [ ! -f "$ref_sql" ] || [ "$(sha256sum "$ref_sql" | cut -d' ' -f1)" != "$ref_sha256" ]; then
    file=package/lib/functions/client/client.init.sql
    if (cd "$work" && npm pack --silent "fetchq@$ref_version" >/dev/null 2>&1 &&
        tar -xzf "fetchq-$ref_version.tgz" "$file") &&
        [ "$(sha256sum "$work/$file" | cut -d' ' -f1)" = "$ref_sha256" ]; then
        mkdir -p "$(dirname "$ref_sql")"
        mv "$work/$file" "$ref_sql"
    fi
fi
if [ ! -f "$ref_sql" ]; then
    fail "no Fetchq $ref_version reference (npm pack fetchq@$ref_version failed)"
else
    psql -X -q -d "$db" -c "CREATE DATABASE $ref_db" >/dev/null
    psql -X -q -v ON_ERROR_STOP=1 -d "$ref_db" -c 'SET client_min_messages = warning' \
        -c 'CREATE EXTENSION "uuid-ossp"' -f "$ref_sql" -c 'SELECT fetchq.init()' >/dev/null 2>&1 ||
        fail "could not install Fetchq $ref_version in $ref_db"
    probe "$ref_db" | grep -v ' ERROR ' >"$work/reference" || true
    # Every shape that Fetchq 4 resolves, the extension resolves the same.
    n=$(wc -l <"$work/reference")
    missing=$(comm -23 <(sort "$work/reference") <(sort "$work/extension.all"))
    if [ "$n" -gt 20 ] && [ -z "$missing" ]; then
        ok "the $n shapes Fetchq $ref_version resolves resolve to the same signatures"
    else
        fail "shapes of Fetchq $ref_version ($n) that resolve otherwise here: $missing"
    fi
fi

# --- doc_pick($1, $2) -----------------------------------------------------------
q "SELECT was_created FROM fetchq.queue_create('prio')" >/dev/null
q "SELECT fetchq.doc_push_many('prio', ARRAY['p1', 'p2', 'p3', 'p4'])" >/dev/null
active="SELECT count(*) FROM fetchq_data.prio__docs WHERE status = 2"
pw="PREPARE pw AS SELECT subject FROM fetchq.doc_pick(\$1, \$2)"
out=$(psql -X -q -At -d "$db" -c '\set VERBOSITY verbose' -c "$pw" -c "EXECUTE pw('prio', 5)" 2>&1 || true)
check_has "untyped doc_pick(\$1, \$2) with 5: refused, a number without a unit" "$out" \
    'ERROR:  22023: argument duration of doc_pick\(queue, duration\) is a number without a unit: "5"'
check_has "... with a hint for a limit and for a lock" "$out" \
    "HINT:  For a limit, pass an integer \(\\\$2::integer\) or call doc_pick\(queue, version, limit, duration\); for a lock, write its unit"
check "... and nothing picked" "$(q "$active")" 0
check "with '5m' it is the lock of one document" \
    "$(psql -X -q -At -d "$db" -c "$pw" -c "EXECUTE pw('prio', '5m')" | wc -l)/$(q "SELECT count(*) FROM fetchq_data.prio__docs
        WHERE status = 2 AND next_iteration BETWEEN now() + interval '4 minutes' AND now() + interval '6 minutes'")" 1/1
check "typed, doc_pick('prio', 2) is the limit" "$(q "SELECT count(*) FROM fetchq.doc_pick('prio', 2)")" 2
# Every other duration reads a bare number as seconds, as Fetchq 4 did.
q "SELECT count(*) FROM fetchq.doc_pick('prio', 0, 1, '30')" >/dev/null
check "a bare number elsewhere is seconds: doc_pick(queue, 0, 1, '30') locks for 30 s" \
    "$(q "SELECT count(*) FROM fetchq_data.prio__docs WHERE status = 2
          AND next_iteration BETWEEN now() + interval '29 seconds' AND now() + interval '31 seconds'")" 1

# --- the same from node-postgres, which sends untyped parameters ----------------
source test/lib/node_modules.sh
if modules=$(node_modules "$root"); then
    q "SELECT fetchq.doc_push_many('prio', ARRAY['n1', 'n2'])" >/dev/null
    cat >"$work/untyped.js" <<'JS'
const { Client } = require('pg');
(async () => {
    const client = new Client();
    await client.connect();
    const out = [];
    try {
        await client.query('SELECT * FROM fetchq.doc_pick($1, $2)', ['prio', 5]);
        out.push('picked');
    } catch (err) {
        out.push(err.code);
    }
    const lock = await client.query('SELECT * FROM fetchq.doc_pick($1, $2)', ['prio', '5m']);
    out.push(lock.rows.length);
    const limit = await client.query('SELECT * FROM fetchq.doc_pick($1, $2::integer)', ['prio', 5]);
    out.push(limit.rows.length);
    console.log(out.join(' '));
    await client.end();
})().catch((err) => {
    console.error(err.message);
    process.exit(1);
});
JS
    check "node-postgres: doc_pick(\$1, \$2) with 5 refused (22023), with '5m' one document, with \$2::integer the limit" \
        "$(PGDATABASE=$db NODE_PATH=$modules timeout -k 5 60 node "$work/untyped.js" 2>&1)" "22023 1 1"
else
    fail "no node-postgres to check the untyped calls of a Node client"
fi

q "SELECT was_dropped FROM fetchq.queue_drop('prio')" >/dev/null
echo "untyped parameters test: $failures failure(s)"
[ "$failures" = 0 ]
