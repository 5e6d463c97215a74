#!/usr/bin/env bash
# The published Fetchq 4 Node.js client (npm fetchq 4.1.1, unchanged) against
# fetchq, with the client's own maintenance switched off: the server's
# scheduler promotes planned and rescheduled documents. The client pushes,
# runs its workers (complete, reject, throw, reschedule, kill, drop, pushMany,
# append, upsert, forward), and the test checks final statuses, attempts,
# payloads (quotes, backslashes, unicode), log rows and counters; then again
# as an application role with docs/install.md's grants.
# See test/node_client/run.js.
#
#   PGHOST=... PGPORT=... PGUSER=postgres test/node_client_test.sh DBNAME
#
# DBNAME must have the extension, on a server with
# shared_preload_libraries = 'fetchq'. The client is installed with npm ci
# (test/node_client/package-lock.json) into build/node_client, once.
# Exits 0 when everything matched, 1 on a mismatch or a timeout, 2 on usage.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: PGHOST=... PGPORT=... PGUSER=... $0 DBNAME" >&2
    exit 2
fi
db=$1
cd "$(dirname "$0")/.." || exit 1
root=$(pwd -P)
src=$root/test/node_client
cache=$root/build/node_client

for cmd in node npm; do
    if ! command -v "$cmd" >/dev/null; then
        echo "FAIL: $cmd is not installed (scripts/install-deps.sh installs it)"
        exit 1
    fi
done

# Reinstall only when the lockfile changed.
stamp=$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$cache/.installed" 2>/dev/null)" != "$stamp" ]; then
    echo "installing the fetchq Node client (npm ci) into $cache"
    rm -rf "$cache"
    mkdir -p "$cache"
    cp "$src/package.json" "$src/package-lock.json" "$cache/"
    if ! (cd "$cache" && timeout -k 5 300 npm ci --ignore-scripts --no-audit --no-fund \
        --loglevel=error --cache "$root/build/npm-cache"); then
        echo "FAIL: npm ci of the fetchq client did not succeed (is the npm registry reachable?)"
        exit 1
    fi
    echo "$stamp" >"$cache/.installed"
fi
version=$(node -p "require('$cache/node_modules/fetchq/package.json').version")
if [ "$version" != 4.1.1 ]; then
    echo "FAIL: installed fetchq client is $version, wanted 4.1.1"
    exit 1
fi

# run_client DB: the client's test in DB, as $PGUSER.
run_client() {
    local status=0
    NODE_PATH=$cache/node_modules timeout -k 5 120 node --no-deprecation "$src/run.js" "$1" || status=$?
    if [ "$status" = 124 ] || [ "$status" = 137 ]; then
        echo "FAIL: the Node client test did not finish within 120 s"
    fi
    return "$status"
}
status=0
run_client "$db" || status=$?

# The same as an application role with the grants docs/install.md documents
# (section 5: the application block and the Node client's columns, read from
# the file), CREATE on fetchq_data, and pg_read_all_stats for the test's own
# look at pg_stat_activity; in a database of its own.
app_db=${db}_app
cleanup_app() {
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS \"$app_db\" WITH (FORCE)" \
        -c "DROP ROLE IF EXISTS nc_app" >/dev/null 2>&1 || true
}
trap cleanup_app EXIT
cleanup_app
section5=$(awk '/^## 5\./ {on = 1; next} /^## 6\./ {on = 0} on' "$root/docs/install.md")
block() {
    awk -v pat="$1" '/^```sql/ {inb = 1; text = ""; next}
        /^```/ && inb {inb = 0; if (text ~ pat) {printf "%s", text; exit}; next}
        inb {text = text $0 "\n"}' <<<"$section5"
}
grants="$(block "GRANT USAGE ON SCHEMA fetchq, fetchq_data TO app")
$(block "is_active")"
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE ROLE nc_app LOGIN" -c "CREATE DATABASE \"$app_db\"" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d "$app_db" >/dev/null <<SQL
CREATE EXTENSION fetchq;
${grants//TO app/TO nc_app}
GRANT CREATE ON SCHEMA fetchq_data TO nc_app;
GRANT pg_read_all_stats TO nc_app;
SQL
echo "--- as role nc_app, with the documented grants"
PGUSER=nc_app run_client "$app_db" || status=$?
exit "$status"
