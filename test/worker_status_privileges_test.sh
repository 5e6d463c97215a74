#!/usr/bin/env bash
# Who sees which rows of fetchq.worker_status(): superusers and members of
# pg_read_all_stats see the schedulers of every database, any other role only
# the current database's; a role without USAGE on schema fetchq is refused.
# Env: PGHOST PGPORT PGUSER (a superuser) of a server with
# shared_preload_libraries = 'fetchq'; $1: a database where CREATE EXTENSION
# fetchq was run. Creates a second database and three roles, dropped at the end.
set -euo pipefail
db=$1
other="${db}_other"
plain=fetchq_wsp_plain
stats=fetchq_wsp_stats
none=fetchq_wsp_none
source "$(dirname "$0")/lib/checks.sh"
qdb() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
# as ROLE SQL: one query in $db as ROLE (the test server trusts local roles).
as() { psql -X -q -At -v ON_ERROR_STOP=1 -U "$1" -d "$db" -c "$2"; }


# shellcheck disable=SC2317  # called by the trap
cleanup() {
    qdb postgres "DROP DATABASE IF EXISTS $other WITH (FORCE)" >/dev/null 2>&1 || true
    # The roles hold only the grants made in $db below.
    psql -X -q -d "$db" >/dev/null 2>&1 <<SQL || true
SELECT format('DROP OWNED BY %I', rolname) FROM pg_roles
WHERE rolname IN ('$plain', '$stats', '$none') \gexec
SQL
    qdb postgres "DROP ROLE IF EXISTS $plain, $stats, $none" >/dev/null 2>&1 || true
}
cleanup
trap cleanup EXIT

qdb postgres "CREATE ROLE $plain LOGIN" >/dev/null
qdb postgres "CREATE ROLE $stats LOGIN IN ROLE pg_read_all_stats" >/dev/null
qdb postgres "CREATE ROLE $none LOGIN" >/dev/null
qdb "$db" "GRANT USAGE ON SCHEMA fetchq TO $plain, $stats" >/dev/null
qdb postgres "CREATE DATABASE $other" >/dev/null
qdb "$other" "SET client_min_messages = warning; CREATE EXTENSION fetchq" >/dev/null

# Both schedulers must be in shared memory before anything is compared.
both="SELECT count(DISTINCT datname) FROM fetchq.worker_status() WHERE datname IN ('$db', '$other')"
deadline=$((SECONDS + 30))
got=""
while [ $SECONDS -lt $deadline ]; do
    got=$(qdb "$db" "$both" 2>/dev/null || true)
    [ "$got" = 2 ] && break
    sleep 0.1
done
if [ "$got" != 2 ]; then
    fail "schedulers of $db and $other in worker_status within 30s (got '$got' databases)"
    exit 1
fi
ok "schedulers of $db and $other appear in worker_status"

# Rows of this database, and of others.
rows="SELECT (count(*) FILTER (WHERE datname = current_database()) > 0) || '/' ||
             (count(*) FILTER (WHERE datname = '$other') > 0) FROM fetchq.worker_status()"
check "a superuser sees both databases" "$(qdb "$db" "$rows")" "true/true"
check "a member of pg_read_all_stats sees both databases" "$(as "$stats" "$rows")" "true/true"
check "any other role sees only its current database" "$(as "$plain" "$rows")" "true/false"
check "... and no row of any other database" \
    "$(as "$plain" "SELECT count(*) FROM fetchq.worker_status() WHERE datname <> current_database()")" 0

# No grant at all: EXECUTE comes from PUBLIC, but the schema has no USAGE for it.
check "a role with no grant has EXECUTE (PUBLIC) but no USAGE on schema fetchq" \
    "$(qdb "$db" "SELECT has_function_privilege('$none', 'fetchq.worker_status()', 'EXECUTE') || '/' || has_schema_privilege('$none', 'fetchq', 'USAGE')")" \
    "true/false"
if out=$(psql -X -q -At -v ON_ERROR_STOP=1 -U "$none" -d "$db" -c '\set VERBOSITY verbose' \
    -c "SELECT count(*) FROM fetchq.worker_status()" 2>&1); then
    fail "a role with no grant is refused (it read: $out)"
elif grep -q "42501: permission denied for schema fetchq" <<<"$out"; then
    ok "a role with no grant is refused: permission denied for schema fetchq (42501)"
else
    fail "a role with no grant is refused with 42501 on schema fetchq (got: $out)"
fi

echo "worker_status privileges test: $failures failure(s)"
[ "$failures" = 0 ]
