#!/usr/bin/env bash
# A streaming standby, on clusters of their own (a primary and a standby made
# from it with pg_basebackup -R), both with fetchq preloaded:
# - while in recovery, the standby runs no fetchq worker and logs nothing of
#   fetchq (the workers start only once recovery has finished);
# - a document planned a few seconds ahead on the primary replicates and stays
#   planned on the standby;
# - once the primary fails (an immediate stop) and the standby is promoted, a
#   scheduler serves every database with the extension within seconds,
#   promotes the planned document when it is due, and releases a document
#   picked session-bound by a session of the old primary;
# - a schedule of every second goes on after the failover, each tick from
#   the first to the last pushed once (by either server).
# Uses PATH's pg_config for the binaries (scripts/test.sh puts its private
# install first); $1 (the runner's database) is not used.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
PGBIN=${PGBIN:-$(pg_config --bindir)}
export PGBIN PGUSER=postgres
db=sb_one # for lib/checks.sh; every statement below names its cluster
source "$here/test/lib/checks.sh"
source "$here/test/lib/own_clusters.sh"
own_clusters standby
primary=$dir/primary
standby=$dir/standby

pport=$("$here/scripts/pg_cluster.sh" start "$primary" "wal_level = replica" \
    "max_wal_senders = 4" "hot_standby = on")
# qp DB SQL / qs DB SQL: a statement on the primary / the standby.
qp() { PGHOST=$primary PGPORT=$pport psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
qs() { PGHOST=$standby PGPORT=$sport psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
# on_standby / on_primary WAIT_FOR_IN ARGS...: polls a cluster (lib/checks.sh).
on_standby() { PGHOST=$standby PGPORT=$sport "$@"; }
on_primary() { PGHOST=$primary PGPORT=$pport "$@"; }

# Two databases with the extension and a queue each, one without it.
for d in sb_one sb_two sb_bare; do qp postgres "CREATE DATABASE $d"; done
for d in sb_one sb_two; do
    qp "$d" "SET client_min_messages = warning; CREATE EXTENSION fetchq"
    qp "$d" "SELECT was_created FROM fetchq.queue_create('sq')" >/dev/null
    qp "$d" "SELECT fetchq.doc_push('sq', 'now', '{}')" >/dev/null
done
on_primary wait_for_in "the primary's schedulers run" 30 postgres \
    "SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler'" \
    "sb_one,sb_two"

# --- the standby -------------------------------------------------------------
mkdir -p "$standby"
[ "$(id -u)" = 0 ] && chown postgres: "$standby"
as_pg "$PGBIN/pg_basebackup" -h "$primary" -p "$pport" -U postgres -D "$standby/data" -R \
    -X stream -c fast >"$dir/basebackup.log" 2>&1 || {
    cat "$dir/basebackup.log"
    exit 1
}
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
for attempt in 1 2 3; do
    sport=$(free_port)
    {
        echo "unix_socket_directories = '$standby'"
        echo "port = $sport"
    } >>"$standby/data/postgresql.conf"
    if as_pg "$PGBIN/pg_ctl" -D "$standby/data" -l "$standby/server.log" -w -t 60 start >/dev/null; then
        break
    fi
    if [ "$attempt" = 3 ] || ! grep -q 'could not bind' "$standby/server.log"; then
        echo "FAIL: the standby did not start; end of its log:"
        tail -n 30 "$standby/server.log"
        exit 1
    fi
done
slog=$standby/server.log

check "the standby is in recovery" "$(qs postgres 'SELECT pg_is_in_recovery()')" t
check "the standby preloads fetchq" "$(qs postgres 'SHOW shared_preload_libraries')" fetchq
on_primary wait_for_in "the standby streams from the primary" 30 postgres \
    "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'" 1

# A session of the primary holds a document picked session-bound (until the
# primary fails).
qp sb_one "SELECT fetchq.doc_push('sq', 'held', 0, 10, now(), '{}')" >/dev/null
PGHOST=$primary PGPORT=$pport psql -X -q -d sb_one \
    -c "SELECT count(*) FROM fetchq.doc_pick('sq', 0, 1, '1 hour', true)" \
    -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
holder=$!
on_primary wait_for_in "a session of the primary holds a session-bound pick" 10 sb_one \
    "SELECT status || ':' || (lock_session IS NOT NULL) FROM fetchq_data.sq__docs WHERE subject = 'held'" \
    "2:true"

# No fetchq worker during recovery: watched for a while, as a worker that
# would start would show up at once (the standby has been consistent since
# its start).
seen=""
deadline=$((SECONDS + 4))
while [ $SECONDS -lt $deadline ]; do
    seen+=$(qs postgres "SELECT string_agg(DISTINCT backend_type || '/' || application_name, ' ')
                         FROM pg_stat_activity WHERE backend_type LIKE 'fetchq%'
                            OR application_name LIKE 'fetchq%'")
    sleep 0.2
done
check "no fetchq process on the standby while in recovery" "$(tr ' ' '\n' <<<"$seen" | sort -u | xargs)" ""
check "worker_status() is empty on the standby" \
    "$(qs sb_one 'SELECT count(*) FROM fetchq.worker_status()')" 0

# A schedule of every second on the primary (catch_up 'all'), ticking.
qp sb_one "SELECT fetchq.queue_create('ticks');
           SELECT fetchq.schedule_create('every_second', 'ticks', '1 second', 't', catch_up => 'all')" >/dev/null
on_primary wait_for_in "the primary's schedule ticks" 30 sb_one \
    "SELECT count(*) >= 2 FROM fetchq_data.ticks__docs" t

# A document planned a few seconds ahead (from here to the promotion takes
# about 2 s), in both databases; the standby must have replayed the push.
for d in sb_one sb_two; do
    qp "$d" "SELECT fetchq.doc_push('sq', 'later', 0, 0, clock_timestamp() + interval '8 seconds', '{}')" >/dev/null
done
lsn=$(qp postgres "SELECT pg_current_wal_lsn()")
for d in sb_one sb_two; do
    on_standby wait_for_in "the planned document of $d replicated, planned" 30 "$d" \
        "SELECT status FROM fetchq_data.sq__docs WHERE subject = 'later'" 0
done
on_standby wait_for_in "the standby replayed the primary's WAL" 30 postgres \
    "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn" t
check "the standby reads the queue" \
    "$(qs sb_one "SELECT string_agg(subject || ':' || status, ',' ORDER BY subject) FROM fetchq_data.sq__docs")" \
    "held:2,later:0,now:1"
if grep -qF 'database system is ready to accept read-only connections' "$slog"; then
    ok "the standby accepted read-only connections"
else
    fail "the standby never said it accepts read-only connections"
fi
check "no fetchq worker started in the standby's log" \
    "$(grep -cE 'fetchq (launcher|scheduler for database .*) started' "$slog" || true)" 0
# fetchq_problems: error lines of fetchq's processes, or that name fetchq
# (not the clusters' paths, which the walreceiver's lines quote).
fetchq_problems() {
    grep -vF "$dir" "$slog" | grep -E 'fetchq' | grep -cE 'ERROR|WARNING|FATAL|PANIC' || true
}
check "no fetchq error in the standby's log" "$(fetchq_problems)" 0

# --- the primary fails, the standby is promoted -------------------------------
as_pg "$PGBIN/pg_ctl" -D "$primary/data" -m immediate -w stop >/dev/null
wait "$holder" 2>/dev/null || true
mark=$(stat -c %s "$slog")
as_pg "$PGBIN/pg_ctl" -D "$standby/data" -w -t 60 promote >/dev/null
check "the standby is promoted" "$(qs postgres 'SELECT pg_is_in_recovery()')" f
on_standby wait_for_in "after promotion, a scheduler serves each database with the extension" 15 postgres \
    "SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler'" \
    "sb_one,sb_two"
check "one launcher" \
    "$(qs postgres "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq launcher'")" 1
for d in sb_one sb_two; do
    # Not due yet: still planned (the promotion happened within the 8 s).
    check "$d: the planned document waits for its moment" \
        "$(qs "$d" "SELECT CASE WHEN next_iteration > clock_timestamp() THEN status::text ELSE 'due' END
                    FROM fetchq_data.sq__docs WHERE subject = 'later'")" 0
done
on_standby wait_for_in "the session-bound pick of the old primary's session goes back to pending" 10 sb_one \
    "SELECT status || ':' || (lock_session IS NULL) FROM fetchq_data.sq__docs WHERE subject = 'held'" "1:true"
for d in sb_one sb_two; do
    on_standby wait_for_in "$d: the planned document is promoted to pending when due" 20 "$d" \
        "SELECT status || ':' || (next_iteration <= clock_timestamp()) FROM fetchq_data.sq__docs WHERE subject = 'later'" \
        "1:true"
    # sb_one: 'now', 'later' and 'held' pending; sb_two: 'now' and 'later'.
    on_standby wait_for_in "$d: pln/pnd/act counters follow" 5 "$d" \
        "SELECT sum(value) FILTER (WHERE metric = 'pln') || '/' || sum(value) FILTER (WHERE metric = 'pnd')
                || '/' || coalesce(sum(value) FILTER (WHERE metric = 'act'), 0)
         FROM fetchq.metrics WHERE queue = 'sq'" "$([ "$d" = sb_one ] && echo 0/3/0 || echo 0/2/0)"
    on_standby wait_for_in "$d: worker_status shows the promote task ran" 5 "$d" \
        "SELECT rows_total > 0 FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'promote'" t
done
before=$(qs sb_one "SELECT count(*) FROM fetchq_data.ticks__docs")
on_standby wait_for_in "the promoted server's scheduler goes on with the schedule" 30 sb_one \
    "SELECT count(*) > $before + 2 FROM fetchq_data.ticks__docs" t
check "every tick from the first to the last, each once, across the failover" \
    "$(qs sb_one "SELECT count(*) = extract(epoch FROM max(next_iteration) - min(next_iteration)) + 1
                         AND count(DISTINCT next_iteration) = count(*)
                  FROM fetchq_data.ticks__docs")" t
check "the promoted server is writable through fetchq" \
    "$(qs sb_one "SELECT fetchq.doc_push('sq', 'after', '{}')")" 1
check "log: the launcher started after the promotion" \
    "$(tail -c +$((mark + 1)) "$slog" | grep -c 'fetchq launcher started' || true)" 1
check "no fetchq error in the promoted server's log" "$(fetchq_problems)" 0

echo "standby test: $failures failure(s)"
[ "$failures" = 0 ]
