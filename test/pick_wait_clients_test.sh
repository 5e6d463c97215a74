#!/usr/bin/env bash
# The worker loops of docs/api.md (doc_pick_wait), in Node (pg) and in
# Python (psycopg 3), run as the docs write them: each is cut out of
# docs/api.md, started in the background on queue 'mail', and must complete
# the documents pushed while it waits. A driver transaction (psycopg without
# autocommit) is refused with 25001, as the docs say.
# Env: PGHOST PGPORT PGUSER of a server with shared_preload_libraries =
# 'fetchq'; $1: a database where CREATE EXTENSION fetchq was run.
# Needs node with the pg module (npm ci of test/node_client into
# build/node_client, as test/node_client_test.sh does) and python3 with
# psycopg 3 (Debian: python3-psycopg, scripts/install-deps.sh).
set -euo pipefail
db=$1
cd "$(dirname "$0")/.." || exit 1
root=$(pwd -P)
source test/lib/checks.sh
work=$(mktemp -d)
pid=""
stop() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        pid=""
    fi
}
trap 'stop; rm -rf "$work"' EXIT
export PGDATABASE=$db

# example LANG: the first ```LANG block of doc_pick_wait's section of docs/api.md.
example() {
    awk -v lang="$1" '
        /^### doc_pick_wait/ { section = 1; next }
        section && /^##/ { exit }
        section && !inside && $0 == "```" lang { inside = 1; next }
        inside && $0 == "```" { exit }
        inside { print }
    ' docs/api.md
}

# The node-postgres of the Fetchq 4 client's lockfile (test/node_client).
source test/lib/node_modules.sh
modules=$(node_modules "$root") || { fail "no node-postgres to run the Node example with"; exit 1; }
python=""
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import psycopg' 2>/dev/null; then python=$p; break; fi
done
[ -n "$python" ] || { fail "no python3 with psycopg 3 (apt-get install python3-psycopg)"; exit 1; }

q "SELECT was_created FROM fetchq.queue_create('mail')" >/dev/null

# run_loop NAME FILE COMMAND...: starts the loop, pushes three documents
# once it waits, and checks that it completed them.
run_loop() {
    local name=$1 file=$2
    shift 2
    [ -s "$file" ] || { fail "$name: no example in docs/api.md"; return; }
    PGAPPNAME=pw_$name "$@" "$file" >"$work/$name.out" 2>&1 &
    pid=$!
    wait_for "$name: the loop waits on the queue" 20 \
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pw_$name' AND wait_event_type = 'Extension'" 1
    q "SELECT fetchq.doc_push_many('mail', ARRAY['${name}1', '${name}2', '${name}3'])" >/dev/null
    wait_for "$name: it completed the three documents pushed while it waited" 30 \
        "SELECT count(*) FROM fetchq_data.mail__docs WHERE subject LIKE '$name%' AND status = 3" 3
    check "$name: ... and said so" "$(grep -c "^sending $name" "$work/$name.out" || true)" 3
    kill -0 "$pid" 2>/dev/null && ok "$name: the loop still runs, waiting again" ||
        fail "$name: the loop ended: $(cat "$work/$name.out")"
    stop
    # Its server session waits on until the end of its wait (it does not
    # look at the client meanwhile): ended here, so that it takes nothing
    # pushed for the next loop.
    q "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'pw_$name'" >/dev/null
    wait_for "$name: its session is gone" 10 \
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pw_$name'" 0
}

example js >"$work/worker.js"
run_loop node "$work/worker.js" env NODE_PATH="$modules" node
example python >"$work/worker.py"
run_loop python "$work/worker.py" "$python"

# A psycopg connection without autocommit: the driver's BEGIN makes the CALL
# run in a transaction block.
out=$("$python" - <<'PY' 2>&1 || true
import psycopg
with psycopg.connect() as conn:
    try:
        conn.execute("CALL fetchq.doc_pick_wait('mail', 0, 1, '2 minutes', '1 second', NULL)")
    except psycopg.Error as e:
        print(e.sqlstate, e.diag.message_primary)
PY
)
check "psycopg without autocommit: refused with 25001" "$out" \
    "25001 fetchq.doc_pick_wait cannot wait inside a transaction block"

q "SELECT was_dropped FROM fetchq.queue_drop('mail')" >/dev/null
echo "pick_wait clients test: $failures failure(s)"
[ "$failures" = 0 ]
