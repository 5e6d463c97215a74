#!/usr/bin/env bash
# Deferred counters (queue_set_counters(queue, 'deferred')), on a cluster of
# its own (the crash restart would disturb the other tests):
# - the mode is set, shown in fetchq.queues, and checked;
# - with folds held back, every reader (metric_get*, fetchq.stats, another
#   session right after each commit) adds what shared memory holds, and the
#   counters equal metric_compute after pushes, picks, completions,
#   rejections, kills, a rolled-back transaction, a rolled-back savepoint and
#   the retention; fetchq.counters holds nothing of the queue meanwhile;
# - the scheduler folds them into fetchq.counters;
# - switching modes under load loses and doubles nothing;
# - a clean shutdown folds first (the cumulative counters survive it);
# - after kill -9 of a backend during a load, the status counters equal
#   metric_compute again within two scheduler rounds.
# Uses PATH's pg_config for the binaries; $1 (the runner's database) is not used.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
PGBIN=${PGBIN:-$(pg_config --bindir)}
export PGBIN
dir=$(mktemp -d /tmp/fetchq-deferred.XXXXXX)
cleanup() {
    for p in $(jobs -p); do kill "$p" 2>/dev/null; done
    "$here/scripts/pg_cluster.sh" stop "$dir" >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap cleanup EXIT
port=$("$here/scripts/pg_cluster.sh" start "$dir" "restart_after_crash = on" \
    "fetchq.naptime = 2s") || exit 1
export PGHOST=$dir PGPORT=$port PGUSER=postgres
db=deferred
. "$here/test/lib/checks.sh"
runuser_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

psql -X -q -d postgres -c "CREATE DATABASE $db"
q "SET client_min_messages = warning; CREATE EXTENSION fetchq"

# fold_interval VALUE: sets fetchq.counters_fold_interval and waits until
# the scheduler applies it.
fold_interval() {
    q "ALTER SYSTEM SET fetchq.counters_fold_interval = '$1'" >/dev/null
    q "SELECT pg_reload_conf()" >/dev/null
    wait_applied fetchq.counters_fold_interval "$2"
}

# status counters as metric_get_common reads them, and as metric_compute counts them
got_sql() {
    echo "SELECT cnt || ',' || pln || ',' || pnd || ',' || act || ',' || cpl || ',' || kll
          FROM fetchq.metric_get_common('$1')"
}
want_sql() {
    echo "SELECT cnt || ',' || pln || ',' || pnd || ',' || act || ',' || cpl || ',' || kll
          FROM fetchq.metric_compute('$1')"
}
stats_sql() {
    echo "SELECT cnt || ',' || pln || ',' || pnd || ',' || act || ',' || cpl || ',' || kll
          FROM fetchq.stats WHERE queue = '$1'"
}
same() {
    local what=$1 queue=$2
    local want got stats
    want=$(q "$(want_sql "$queue")")
    got=$(q "$(got_sql "$queue")")
    stats=$(q "$(stats_sql "$queue")")
    check "$what: metric_get_common equals metric_compute" "$got" "$want"
    check "$what: fetchq.stats equals metric_compute" "$stats" "$want"
}

# --- the setting ------------------------------------------------------------
q "SELECT fetchq.queue_create('dq')" >/dev/null
check "a new queue counts exactly" "$(q "SELECT counters_mode FROM fetchq.queues WHERE name = 'dq'")" exact
check "queue_set_counters returns affected_rows" \
    "$(q "SELECT affected_rows FROM fetchq.queue_set_counters('dq', 'deferred')")" 1
check "fetchq.queues shows the mode" "$(q "SELECT counters_mode FROM fetchq.queues WHERE name = 'dq'")" deferred
bad=$(psql -X -q -At -d $db -v VERBOSITY=verbose -c "SELECT fetchq.queue_set_counters('dq', 'lazy')" 2>&1)
check_has "a bad mode is refused with 22023" "$bad" "22023"
missing=$(psql -X -q -At -d $db -c "SELECT fetchq.queue_set_counters('nope', 'exact')" 2>&1)
check_has "a missing queue is refused" "$missing" "does not exist"
q "CREATE ROLE dq_reader LOGIN"
q "SELECT fetchq.queue_grant('dq', 'dq_reader', 'read')" >/dev/null 2>&1 || true
denied=$(psql -X -q -At -d $db -U dq_reader -c "SELECT fetchq.queue_set_counters('dq', 'exact')" 2>&1)
check_has "a role without manage may not switch" "$denied" "permission denied|must|42501"

# --- readers add what shared memory holds -----------------------------------
fold_interval 1h 3600000
q "SELECT fetchq.doc_push('dq', 'd' || i, 0, 0, now(), '{}') FROM generate_series(1, 20) i" >/dev/null
check "another session reads the pushes right after the commit" \
    "$(q "SELECT current_value FROM fetchq.metric_get('dq', 'cnt')")" 20
check "fetchq.counters holds nothing of the deferred queue yet" \
    "$(q "SELECT count(*) FROM fetchq.counters WHERE queue = 'dq'")" 0
check "fetchq.counter_deltas shows what shared memory holds" \
    "$(q "SELECT value FROM fetchq.counter_deltas() WHERE queue = 'dq' AND metric = 'ent'")" 20
same "after pushes" dq
q "CREATE ROLE dq_app LOGIN; GRANT USAGE ON SCHEMA fetchq TO dq_app, dq_reader;
   GRANT SELECT ON fetchq.metrics TO dq_app"
check "a role with SELECT on fetchq.metrics sums the deferred changes in the view" \
    "$(psql -X -q -At -d $db -U dq_app -c "SELECT sum(value) FROM fetchq.metrics WHERE queue = 'dq' AND metric = 'cnt'")" 20
denied=$(psql -X -q -At -d $db -U dq_reader -v VERBOSITY=verbose -c "SELECT * FROM fetchq.counter_deltas()" 2>&1)
check_has "a role without SELECT on fetchq.metrics may not call counter_deltas" "$denied" "42501"
q "SELECT subject FROM fetchq.doc_pick('dq', 0, 8, '5 minutes')" >/dev/null
same "after picks" dq
q "SELECT fetchq.doc_complete('dq', 'd1')" >/dev/null
q "SELECT fetchq.doc_complete('dq', 'd2')" >/dev/null
same "after completions" dq
q "SELECT fetchq.doc_reject('dq', 'd3', 'no', '{}')" >/dev/null
same "after a rejection" dq
q "SELECT fetchq.doc_kill('dq', 'd4')" >/dev/null
q "SELECT fetchq.doc_reschedule('dq', 'd5', now() + interval '1 hour')" >/dev/null
same "after a kill and a reschedule" dq
before=$(q "$(got_sql dq)")
psql -X -q -d $db -c "BEGIN" -c "SELECT fetchq.doc_push('dq', 'rolled', 0, 0, now(), '{}')" \
    -c "SELECT fetchq.doc_complete('dq', 'd6')" -c "ROLLBACK" >/dev/null
check "a rolled-back transaction counts nothing" "$(q "$(got_sql dq)")" "$before"
psql -X -q -d $db -c "BEGIN" -c "SELECT fetchq.doc_push('dq', 'kept', 0, 0, now(), '{}')" \
    -c "SAVEPOINT s" -c "SELECT fetchq.doc_push('dq', 'gone', 0, 0, now(), '{}')" \
    -c "SELECT fetchq.doc_complete('dq', 'd7')" -c "ROLLBACK TO SAVEPOINT s" -c "COMMIT" >/dev/null
same "after a savepoint rolled back" dq
check "the savepoint's push is not counted" "$(q "SELECT current_value FROM fetchq.metric_get('dq', 'ent')")" 21
check "still nothing in fetchq.counters" "$(q "SELECT count(*) FROM fetchq.counters WHERE queue = 'dq'")" 0
# The retention deletes completed documents (the scheduler, as its owner).
q "SELECT fetchq.queue_set_retention('dq', '1 second', NULL)" >/dev/null
wait_for "the retention deleted the completed documents" 30 \
    "SELECT count(*) FROM fetchq_data.dq__docs WHERE status = 3" 0
same "after the retention" dq
# metric_set of a standard counter overwrites what shared memory holds of it.
q "SELECT fetchq.doc_push('dq', 'set' || i, 0, 0, now(), '{}') FROM generate_series(1, 3) i" >/dev/null
q "SELECT fetchq.metric_set('dq', 'pnd', 100)" >/dev/null
check "metric_set of a deferred queue's counter sets it" \
    "$(q "SELECT current_value FROM fetchq.metric_get('dq', 'pnd')")" 100
# metric_reset recounts: what shared memory holds is cancelled with it.
q "SELECT * FROM fetchq.metric_reset('dq')" >/dev/null
same "after metric_reset" dq
check "metric_reset dropped the cumulative counters" \
    "$(q "SELECT current_value FROM fetchq.metric_get('dq', 'ent')")" 0

# --- a fold in an open transaction, and a snapshot older than it --------------
# queue_set_counters folds the queue's changes in its own transaction: until
# it commits, readers count the changes from shared memory; after, from the
# rows it wrote; never both. A REPEATABLE READ reader whose snapshot predates
# that commit keeps counting them from shared memory, and a later fold does
# not drop them while that snapshot lives.
q "SELECT fetchq.doc_push('dq', 'f' || i, 0, 0, now(), '{}') FROM generate_series(1, 5) i" >/dev/null
got_cnt="SELECT current_value FROM fetchq.metric_get('dq', 'cnt')"
PGAPPNAME=dq_gate psql -X -q -d $db -c "SELECT pg_advisory_lock(4242)" -c "SELECT pg_sleep(120)" \
    >/dev/null 2>&1 &
gate=$!
wait_for "the gate holds its lock" 20 \
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND granted" 1
PGAPPNAME=dq_rr psql -X -q -At -d $db -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "$got_cnt" \
    -c "SELECT pg_advisory_lock(4242)" -c "$got_cnt" -c "COMMIT" >"$dir/rr.out" 2>&1 &
rr=$!
wait_for "the REPEATABLE READ reader waits at the gate" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'dq_rr' AND wait_event_type = 'Lock'" 1
PGAPPNAME=dq_gate2 psql -X -q -d $db -c "SELECT pg_advisory_lock(4243)" -c "SELECT pg_sleep(120)" \
    >/dev/null 2>&1 &
gate2=$!
wait_for "the second gate holds its lock" 20 \
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4243 AND granted" 1
PGAPPNAME=dq_fold psql -X -q -d $db -c "BEGIN" -c "SELECT fetchq.queue_set_counters('dq', 'deferred')" \
    -c "SELECT pg_advisory_lock(4243)" -c "COMMIT" >/dev/null 2>&1 &
fold=$!
wait_for "the switching transaction folded and waits" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'dq_fold' AND wait_event_type = 'Lock'" 1
same "while a fold is uncommitted" dq
check "fetchq.counters shows nothing of the uncommitted fold" \
    "$(q "SELECT count(*) FROM fetchq.counters WHERE queue = 'dq' AND slot = 64")" 0
# The second gate gone, the switching transaction commits.
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'dq_gate2'" >/dev/null
wait $gate2
wait $fold
check "the fold committed its row" "$(q "SELECT count(*) FROM fetchq.counters WHERE queue = 'dq' AND slot = 64")" 1
same "after the fold committed" dq
q "SELECT fetchq.doc_push('dq', 'g' || i, 0, 0, now(), '{}') FROM generate_series(1, 3) i" >/dev/null
q "SELECT fetchq.queue_set_counters('dq', 'deferred')" >/dev/null
same "after a second fold while an older snapshot lives" dq
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'dq_gate'" >/dev/null
wait $gate
wait $rr
first=$(sed -n 1p "$dir/rr.out")
second=$(sed -n 3p "$dir/rr.out")
check "the older snapshot counts each change once: its second read adds the 3 pushes since" \
    "$((second - first))" 3

# --- the fold -------------------------------------------------------------------
want=$(q "$(want_sql dq)")
fold_interval 100ms 100
wait_for "the scheduler folded the changes" 20 \
    "SELECT count(*) FROM fetchq.counter_deltas() WHERE queue = 'dq'" 0
check "fetchq.counters holds the folded stripe" \
    "$(q "SELECT count(*) FROM fetchq.counters WHERE queue = 'dq' AND slot = 64")" 1
same "after the fold" dq

# --- switching modes under load ---------------------------------------------------
q "SELECT fetchq.queue_create('sq')" >/dev/null
cat >"$dir/load.sql" <<'SQL'
SELECT fetchq.doc_push('sq', 'l' || :client_id || '_' || nextval('load_seq'), 0, 0, now(), '{}');
SELECT fetchq.doc_complete('sq', subject) FROM fetchq.doc_pick('sq', 0, 1, '5 minutes');
SQL
q "CREATE SEQUENCE load_seq"
"$PGBIN/pgbench" -n -c 4 -T 8 -f "$dir/load.sql" $db >"$dir/load.out" 2>&1 &
load=$!
switches=0
deadline=$((SECONDS + 7))
while [ $SECONDS -lt $deadline ]; do
    q "SELECT fetchq.queue_set_counters('sq', 'deferred')" >/dev/null
    sleep 0.1
    q "SELECT fetchq.queue_set_counters('sq', 'exact')" >/dev/null
    sleep 0.1
    switches=$((switches + 2))
done
wait $load
echo "# $switches switches under load; $(grep -E 'number of transactions actually processed' "$dir/load.out")"
same "after switching modes under load" sq
check "ent counts every push once" "$(q "SELECT current_value FROM fetchq.metric_get('sq', 'ent')")" \
    "$(q "SELECT count(*) FROM fetchq_data.sq__docs")"
check "cpl counts every completion once" "$(q "SELECT current_value FROM fetchq.metric_get('sq', 'cpl')")" \
    "$(q "SELECT count(*) FROM fetchq_data.sq__docs WHERE status = 3")"

# --- a clean shutdown folds first ---------------------------------------------------
q "SELECT fetchq.queue_set_counters('sq', 'deferred')" >/dev/null
fold_interval 1h 3600000
q "SELECT fetchq.doc_push('sq', 'before_stop' || i, 0, 0, now(), '{}') FROM generate_series(1, 5) i" >/dev/null
check "the pushes before the stop wait in shared memory" \
    "$(q "SELECT value FROM fetchq.counter_deltas() WHERE queue = 'sq' AND metric = 'ent'")" 5
ent=$(q "SELECT current_value FROM fetchq.metric_get('sq', 'ent')")
runuser_pg "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
runuser_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null
check "ent survived a clean shutdown" "$(q "SELECT current_value FROM fetchq.metric_get('sq', 'ent')")" "$ent"
same "after a clean shutdown" sq

# --- kill -9 of a backend during a load -----------------------------------------
cat >"$dir/crash.sql" <<'SQL'
SELECT fetchq.doc_push('dq', 'c' || :client_id || '_' || nextval('load_seq'), 0, 0, now(), '{}');
SELECT fetchq.doc_complete('dq', subject) FROM fetchq.doc_pick('dq', 0, 1, '5 minutes');
SQL
"$PGBIN/pgbench" -n -c 3 -T 30 -f "$dir/crash.sql" $db >"$dir/crash.out" 2>&1 &
load=$!
wait_for "the load runs" 20 \
    "SELECT count(*) > 0 FROM fetchq.counter_deltas() WHERE queue = 'dq'" t
victim=$(q "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' LIMIT 1")
kill -9 "$victim"
wait $load 2>/dev/null
deadline=$((SECONDS + 60))
until q "SELECT 1" >/dev/null 2>&1 || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
wait_for "server back after the crash" 5 "SELECT 1" 1
# Two scheduler rounds: naptime is 2 s; a slow machine gets the deadline.
wait_for "status counters equal metric_compute again after the crash" 60 \
    "SELECT ($(got_sql dq)) = ($(want_sql dq))" t
same "after the crash" dq

# --- a full table falls back to the counter row ----------------------------------
q "ALTER SYSTEM SET fetchq.deferred_counter_slots = 1" >/dev/null
runuser_pg "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
runuser_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null
check "one slot" "$(q "SHOW fetchq.deferred_counter_slots")" 1
q "SELECT fetchq.queue_create('fq1'), fetchq.queue_create('fq2')" >/dev/null
q "SELECT fetchq.queue_set_counters('fq1', 'deferred'), fetchq.queue_set_counters('fq2', 'deferred')" >/dev/null
# The scheduler's fold frees the table only every hour; the recount after the
# restart may have taken the slot for a moment: wait until it is free.
wait_for "the slot is free" 30 "SELECT count(*) FROM fetchq.counter_deltas()" 0
q "SELECT fetchq.doc_push('fq1', 'a' || i, 0, 0, now(), '{}') FROM generate_series(1, 4) i" >/dev/null
q "SELECT fetchq.doc_push('fq2', 'b' || i, 0, 0, now(), '{}') FROM generate_series(1, 6) i" >/dev/null
check "the first queue took the slot" \
    "$(q "SELECT string_agg(DISTINCT queue, ',') FROM fetchq.counter_deltas()")" fq1
check "the second queue wrote its counter row" \
    "$(q "SELECT sum(cnt) FROM fetchq.counters WHERE queue = 'fq2'")" 6
same "with a full table (the queue in shared memory)" fq1
same "with a full table (the queue that wrote its row)" fq2

if grep -q PANIC "$dir/server.log"; then fail "a PANIC in the server log"; else ok "no PANIC in the server log"; fi
echo "failures: $failures"
[ "$failures" = 0 ]
