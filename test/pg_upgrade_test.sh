#!/usr/bin/env bash
# pg_upgrade of a cluster with fetchq, on clusters of their own (both with
# fetchq in shared_preload_libraries, as docs/operations.md says to set it up):
# - no fetchq worker runs in the servers pg_upgrade starts (binary upgrade
#   mode), so no transaction runs in the old cluster after pg_upgrade read its
#   next transaction id (one would have its id given out again in the new one);
# - the new cluster holds the queues, documents, counters, routes, grants and
#   streams of the old one;
# - after ANALYZE, its scheduler serves the database at once and promotes a
#   document that came due during the upgrade; the API works.
# pg_upgrade runs from PostgreSQL 15 to 15 (the same binaries): what fetchq
# does under it does not depend on the versions.
# Uses PATH's pg_config for the binaries (scripts/test.sh puts its private
# install first); $1 (the runner's database) is not used.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
PGBIN=${PGBIN:-$(pg_config --bindir)}
export PGBIN PGUSER=postgres
db=up
source "$here/test/lib/checks.sh"
source "$here/test/lib/own_clusters.sh"
own_clusters pg-upgrade
old=$dir/old
new=$dir/new

port=$("$here/scripts/pg_cluster.sh" start "$old" "fetchq.naptime = '1s'")
export PGHOST=$old PGPORT=$port
qdb() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }

# --- the old cluster -----------------------------------------------------------
qdb postgres "CREATE ROLE up_web LOGIN"
qdb postgres "CREATE DATABASE up"
q "SET client_min_messages = warning; CREATE EXTENSION fetchq"
psql -X -q -v ON_ERROR_STOP=1 -d up >/dev/null <<'SQL'
SELECT fetchq.queue_create('uq');
SELECT fetchq.queue_create('copies');
SELECT fetchq.route_create('uq', 'copies');
SELECT fetchq.doc_push_many('uq', ARRAY['a', 'b', 'c', 'd']);
SELECT count(*) FROM fetchq.doc_pick('uq', 0, 2, '1 hour');
SELECT fetchq.doc_complete('uq', 'a', '{"done": true}');
SELECT fetchq.doc_push('uq', 'later', 0, 0, now() + interval '1 day', '{}');
SELECT fetchq.metric_increment('uq', 'mine', 3);
SELECT fetchq.metric_snap('uq');
GRANT USAGE ON SCHEMA fetchq, fetchq_data TO up_web;
SELECT fetchq.queue_grant('uq', 'up_web', 'push, read');
SELECT fetchq.stream_create('events');
SELECT fetchq.stream_append('events', 'k', jsonb_build_object('n', i)) FROM generate_series(1, 3) i;
SELECT fetchq.stream_commit('events', 'g', 'k', 1);
SQL
wait_for_in "the old cluster's scheduler runs" 30 postgres \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = 'up'" 1
# What the scheduler does of its own first (the snapshot and retention jobs,
# the stream's retention) is done before the snapshot below.
wait_for "the old cluster's jobs ran" 30 \
    "SELECT bool_and(iterations > 0) FROM fetchq.jobs WHERE task IN ('sts', 'drp')" t
wait_for "the old cluster's stream retention ran" 30 \
    "SELECT min(\"offset\") FROM fetchq.stream_messages" 2
# Comes due while the clusters are down.
q "SELECT fetchq.doc_push('uq', 'due', 0, 0, now() + interval '2 seconds', '{}')" >/dev/null

# snapshot: what must be the same after the upgrade (the document that comes
# due meanwhile and the jobs the scheduler runs aside).
snapshot() {
    psql -X -q -At -v ON_ERROR_STOP=1 -d up <<'SQL'
SELECT 'docs', to_jsonb(d)::text FROM fetchq_data.uq__docs d WHERE subject <> 'due' ORDER BY 2;
SELECT 'copies', to_jsonb(d)::text FROM fetchq_data.copies__docs d WHERE subject <> 'due' ORDER BY 2;
SELECT 'history', metric, value FROM fetchq_data.uq__metrics ORDER BY id;
SELECT 'counters', queue, metric, sum(value) FROM fetchq.metrics
WHERE metric NOT IN ('pln', 'pnd') GROUP BY 1, 2, 3 ORDER BY 2, 3;
SELECT 'queues', to_jsonb(q)::text FROM fetchq.queues q ORDER BY id;
SELECT 'routes', source, destination, owner FROM fetchq.routes ORDER BY id;
SELECT 'grants', queue, grantee, privileges FROM fetchq.queue_grants ORDER BY 2, 3;
SELECT 'stream', key, "offset", payload FROM fetchq.stream_messages ORDER BY 2, 3;
SELECT 'offsets', group_name, key, committed FROM fetchq.stream_offsets ORDER BY 2, 3;
SELECT 'privilege', fetchq.queue_has_privilege('uq', 'push', 'up_web'),
       fetchq.queue_has_privilege('uq', 'pick', 'up_web');
SQL
}
snapshot >"$dir/old.out"
check_has "the snapshot covers the documents" "$(cat "$dir/old.out")" '^docs\|.*"status": 3'
"$here/scripts/pg_cluster.sh" stop "$old"

# --- the new cluster and pg_upgrade ---------------------------------------------
mkdir -p "$new"
[ "$(id -u)" = 0 ] && chown postgres: "$new"
as_pg "$PGBIN/initdb" -D "$new/data" -A trust -U postgres --no-sync --encoding=UTF8 \
    --locale=C.UTF-8 >"$new/initdb.log"
# What operations.md asks for before pg_upgrade: the library installed for
# the new server (the same PGBIN here) and preloaded there.
grep -E "^(listen_addresses|shared_preload_libraries|fsync|max_worker_processes|log_line_prefix|fetchq\.)" \
    "$old/data/postgresql.conf" >>"$new/data/postgresql.conf"
echo "unix_socket_directories = '$new'" >>"$new/data/postgresql.conf"
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
if (cd "$dir" && as_pg env -u PGHOST -u PGPORT "$PGBIN/pg_upgrade" --retain -b "$PGBIN" -B "$PGBIN" \
    -d "$old/data" -D "$new/data" -p "$(free_port)" -P "$(free_port)" >"$dir/pg_upgrade.out" 2>&1); then
    ok "pg_upgrade"
else
    fail "pg_upgrade: $(tail -n 20 "$dir/pg_upgrade.out")"
fi
logs=$(find "$new/data/pg_upgrade_output.d" -name log -type d | head -n 1)
check "no fetchq worker in the servers pg_upgrade ran" \
    "$(cat "$logs"/pg_upgrade_server.log | grep -cE 'fetchq (launcher|scheduler)' || true)" 0
# pg_upgrade gave the new cluster the old one's next transaction id as it
# read it before starting the old server: no transaction may have run there
# since.
given=$(sed -nE 's/.*pg_resetwal" -f -x ([0-9]+) .*/\1/p' "$logs/pg_upgrade_utility.log")
last=$(as_pg "$PGBIN/pg_controldata" "$old/data" | sed -nE "s/^Latest checkpoint's NextXID: +[0-9]+:([0-9]+)$/\1/p")
check_has "pg_upgrade's log gives the new cluster's next transaction id" "$given" '^[0-9]+$'
check "no transaction ran in the old cluster during pg_upgrade (next id $given)" "$last" "$given"

# --- the upgraded cluster ------------------------------------------------------------
nport=$(free_port)
echo "port = $nport" >>"$new/data/postgresql.conf"
as_pg "$PGBIN/pg_ctl" -D "$new/data" -l "$new/server.log" -w -t 60 start >/dev/null
export PGHOST=$new PGPORT=$nport
wait_for_in "the new cluster's scheduler serves the database" 15 postgres \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = 'up'" 1
as_pg env PGHOST="$new" PGPORT="$nport" "$PGBIN/vacuumdb" -U postgres --all --analyze-only -q
ok "ANALYZE of every database"
snapshot >"$dir/new.out"
if d=$(diff -u "$dir/old.out" "$dir/new.out"); then
    ok "the new cluster holds what the old one held ($(wc -l <"$dir/old.out") lines)"
else
    fail "the new cluster differs: $d"
fi
wait_for "the document that came due during the upgrade is promoted" 20 \
    "SELECT status FROM fetchq_data.uq__docs WHERE subject = 'due'" 1
check "push on the new cluster (routed too)" \
    "$(q "SELECT fetchq.doc_push('uq', 'new', 0, 100, now(), '{}'); SELECT count(*) FROM fetchq_data.copies__docs WHERE subject = 'new'")" \
    "$(printf '1\n1')"
check "pick and complete on the new cluster" \
    "$(q "SELECT string_agg(subject, ',') FROM fetchq.doc_pick('uq', 0, 1, '1 minute'); SELECT fetchq.doc_complete('uq', 'new')")" \
    "$(printf 'new\n1')"
check "the queue grant works on the new cluster" \
    "$(psql -X -q -At -v ON_ERROR_STOP=1 -d up -c "SET ROLE up_web" -c "SELECT fetchq.doc_push('uq', 'web', '{}')")" 1
check "stream append continues on the new cluster" "$(q "SELECT fetchq.stream_append('events', 'k', '{}')")" 4
q "SELECT fetchq.doc_push('uq', 'soon', 0, 0, clock_timestamp() + interval '1 second', '{}')" >/dev/null
wait_for "the new cluster's scheduler promotes a planned document" 20 \
    "SELECT status FROM fetchq_data.uq__docs WHERE subject = 'soon'" 1
if grep -E "PANIC|TRAP:" "$new/server.log"; then
    fail "the new server's log shows a PANIC or an assertion"
fi
echo "pg_upgrade test: $failures failure(s)"
[ "$failures" = 0 ]
