#!/usr/bin/env bash
# The scheduler vacuums hot queue tables itself (autovacuum off for them):
# past fetchq.vacuum_threshold, at most once per fetchq.vacuum_interval,
# without truncating, without waiting for locks, alongside consumers.
# Env: PGHOST PGPORT PGUSER of a server with shared_preload_libraries = 'fetchq';
# $1: a database where CREATE EXTENSION fetchq was run. Takes about a minute.
set -euo pipefail
db=$1
queue=vacuum_t
docs="fetchq_data.${queue}__docs"
source "$(dirname "$0")/lib/checks.sh"

# check DESCRIPTION SQL EXPECTED: here check runs the statement itself.
check() {
    local got
    got=$(q "$2" 2>&1 || true)
    if [ "$got" = "$3" ]; then ok "$1"; else fail "$1 (wanted '$3', got '$got')"; fi
}

set_guc() {
    q "ALTER SYSTEM SET $1 = '$2'"
    q "SELECT pg_reload_conf()" >/dev/null
}

bg_pids=()
cleanup() {
    for pid in "${bg_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    end_session 'vacuum_%' || true
    for guc in fetchq.vacuum_threshold fetchq.vacuum_interval fetchq.naptime fetchq.log_level; do
        q "ALTER SYSTEM RESET $guc" || true
    done
    q "SELECT pg_reload_conf()" >/dev/null || true
    q "SELECT fetchq.queue_drop('$queue')" >/dev/null 2>&1 || true
    q "ALTER TABLE fetchq.stream_keys RESET (autovacuum_enabled)" >/dev/null 2>&1 || true
    q "SELECT fetchq.stream_drop('vacuum_s')" >/dev/null 2>&1 || true
}
trap cleanup EXIT

# end_session APPLICATION_NAME (a LIKE pattern): ends the background sessions
# of this database that the test started under that name.
end_session() {
    q "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
       WHERE datname = current_database() AND application_name LIKE '$1'" >/dev/null
}

vacuum_count() { q "SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = '$docs'::regclass"; }
task() { q "SELECT $1 FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'vacuum'"; }

# push N documents, pick and complete them all, then delete the completed ones:
# about 3 N dead tuples (pick and complete change indexed columns: no HOT).
churn() {
    local n=$1 tag=$2
    q "SELECT count(*) FROM generate_series(1, $n) g,
         fetchq.doc_push('$queue', '$tag' || g, 0, 0, now() - interval '1 second', '{}')" >/dev/null
    q "SELECT count(*) FROM fetchq.doc_pick('$queue', 0, $n, '5 minutes')" >/dev/null
    q "SELECT fetchq.doc_complete_many('$queue', ARRAY(SELECT subject FROM $docs WHERE status = 2))" \
        >/dev/null
    q "DELETE FROM $docs WHERE status = 3"
}

wait_for "a scheduler runs for the database" 20 \
    "SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = current_database()" t

q "SELECT fetchq.queue_drop('$queue')" >/dev/null 2>&1 || true
q "SELECT was_created FROM fetchq.queue_create('$queue')" >/dev/null
q "ALTER TABLE $docs SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)"
set_guc fetchq.naptime 1s
set_guc fetchq.vacuum_interval 1s
set_guc fetchq.vacuum_threshold 100
wait_applied fetchq.vacuum_threshold 100
errors0=$(task errors)
vacuumed0=$(task rows_total)

# Below the threshold: left alone.
churn 20 small
sleep 3
check "few dead tuples: not vacuumed" "SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = '$docs'::regclass" 0

# Past the threshold: vacuumed, and not truncated although every page is empty.
churn 2000 big
size_before=$(q "SELECT pg_relation_size('$docs')")
wait_for "hot table vacuumed by the scheduler" 30 \
    "SELECT vacuum_count > 0 AND n_dead_tup < 100 FROM pg_stat_user_tables WHERE relid = '$docs'::regclass" t
check "dead tuples were removed" \
    "SELECT (pgs.n_dead_tup < 100)::text FROM pg_stat_user_tables pgs WHERE relid = '$docs'::regclass" true
check "empty table not truncated (TRUNCATE false)" "SELECT pg_relation_size('$docs') = $size_before AND $size_before > 0" t
check "autovacuum did not do it" \
    "SELECT autovacuum_count FROM pg_stat_user_tables WHERE relid = '$docs'::regclass" 0
wait_for "worker_status counts the vacuum" 10 \
    "SELECT rows_total > $vacuumed0 FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'vacuum'" t

# At most once per fetchq.vacuum_interval.
set_guc fetchq.vacuum_interval 1h
wait_applied fetchq.vacuum_interval 3600000
count=$(vacuum_count)
churn 500 interval
sleep 4
check "not vacuumed again within fetchq.vacuum_interval" \
    "SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = '$docs'::regclass" "$count"
set_guc fetchq.vacuum_interval 1s
wait_for "vacuumed again once the interval passed" 20 \
    "SELECT vacuum_count > $count FROM pg_stat_user_tables WHERE relid = '$docs'::regclass" t

# SKIP_LOCKED: a table locked by someone else is skipped, the scheduler goes on.
# The lock is taken first and held until the test releases it, however slow
# the machine (churn's statements do not conflict with it).
PGAPPNAME=vacuum_locker psql -X -q -d "$db" -c "BEGIN" -c "LOCK TABLE $docs IN SHARE UPDATE EXCLUSIVE MODE" \
    -c "SELECT pg_sleep(300)" >/dev/null 2>&1 &
bg_pids+=($!)
locker=$!
wait_for "another session locks the table" 20 \
    "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
     WHERE a.application_name = 'vacuum_locker' AND l.relation = '$docs'::regclass
       AND l.mode = 'ShareUpdateExclusiveLock' AND l.granted" 1
count=$(vacuum_count)
churn 500 locked
runs=$(task runs)
wait_for "the scheduler keeps running while the table is locked" 20 \
    "SELECT runs > $runs + 1 FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'vacuum'" t
check "locked table skipped, not waited for" \
    "SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = '$docs'::regclass" "$count"
end_session vacuum_locker
wait "$locker" 2>/dev/null || true
wait_for "vacuumed once the lock is gone" 20 \
    "SELECT vacuum_count > $count FROM pg_stat_user_tables WHERE relid = '$docs'::regclass" t

# A consumer in the middle of a transaction (row locks, RowExclusiveLock)
# neither stops the vacuum nor is blocked by it. The consumer commits when
# the test opens the gate (an advisory lock another session holds).
set_guc fetchq.vacuum_threshold 1000000
wait_applied fetchq.vacuum_threshold 1000000
churn 500 consumer
q "SELECT count(*) FROM generate_series(1, 5) g,
     fetchq.doc_push('$queue', 'held' || g, 0, 0, now() - interval '1 second', '{}')" >/dev/null
PGAPPNAME=vacuum_gate psql -X -q -d "$db" -c "SELECT pg_advisory_lock(2828)" -c "SELECT pg_sleep(300)" \
    >/dev/null 2>&1 &
bg_pids+=($!)
gate=$!
wait_for "the gate is closed" 20 \
    "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
     WHERE a.application_name = 'vacuum_gate' AND l.locktype = 'advisory' AND l.granted" 1
PGAPPNAME=vacuum_consumer psql -X -q -d "$db" -c "BEGIN" \
    -c "SELECT count(*) FROM fetchq.doc_pick('$queue', 0, 1, '5 minutes')" \
    -c "SELECT pg_advisory_xact_lock(2828)" -c "COMMIT" >/dev/null &
bg_pids+=($!)
consumer=$!
wait_for "a consumer picked and waits in its transaction" 20 \
    "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
     WHERE a.application_name = 'vacuum_consumer' AND l.relation = '$docs'::regclass
       AND l.mode = 'RowExclusiveLock' AND a.wait_event_type = 'Lock'" 1
count=$(vacuum_count)
set_guc fetchq.vacuum_threshold 100
wait_for "vacuumed while a consumer holds locks" 20 \
    "SELECT vacuum_count > $count FROM pg_stat_user_tables WHERE relid = '$docs'::regclass" t
check "the consumer was still in its transaction" \
    "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
     WHERE l.relation = '$docs'::regclass AND l.mode = 'RowExclusiveLock' AND a.backend_type = 'client backend'" 1
check "another consumer is not blocked" \
    "SET statement_timeout = '2s'; SELECT count(*) FROM fetchq.doc_pick('$queue', 0, 1, '5 minutes')" 1
end_session vacuum_gate
wait "$gate" 2>/dev/null || true
if wait "$consumer"; then ok "the consumer committed"; else fail "the consumer failed"; fi

# A held xmin horizon: once a vacuum ran under it, the next ones are skipped
# (they would read the table to remove nothing), until it moves.
set_guc fetchq.vacuum_threshold 100
set_guc fetchq.log_level log
PGAPPNAME=vacuum_holder psql -X -q -d "$db" -c "BEGIN ISOLATION LEVEL REPEATABLE READ" \
    -c "SELECT 1" -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
bg_pids+=($!)
holder=$!
wait_for "a transaction holds the xmin horizon" 10 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'vacuum_holder' AND backend_xmin IS NOT NULL" 1
# Once no older transaction runs in the database, the horizon stays where the
# holder keeps it: the first vacuum under it is the last one until it moves.
wait_for "the holder's transaction is the oldest of the database" 30 \
    "SELECT count(*) FROM pg_stat_activity a, pg_stat_activity h
     WHERE h.application_name = 'vacuum_holder' AND a.datname = current_database()
       AND (age(a.backend_xmin) > age(h.backend_xmin) OR age(a.backend_xid) > age(h.backend_xmin))" 0
count=$(vacuum_count)
churn 500 held1
wait_for "vacuumed once under the held horizon" 20 \
    "SELECT vacuum_count > $count FROM pg_stat_user_tables WHERE relid = '$docs'::regclass" t
count=$(vacuum_count)
churn 500 held2
sleep 5
check "... then skipped: nothing is removable while the horizon has not moved" \
    "SELECT vacuum_count = $count AND n_dead_tup > 100 FROM pg_stat_user_tables WHERE relid = '$docs'::regclass" t
end_session vacuum_holder
wait "$holder" 2>/dev/null || true
wait_for "vacuumed again once the horizon moved" 20 \
    "SELECT vacuum_count > $count AND n_dead_tup < 100 FROM pg_stat_user_tables WHERE relid = '$docs'::regclass" t
set_guc fetchq.log_level debug1

# The streams' tables too: every append updates its key's head row. An
# append prunes the head row's page before updating it, so how many dead
# versions it leaves behind depends on the load (others pinning the page make
# pruning give up): a quiet machine may leave fewer than the threshold. A
# snapshot held meanwhile keeps every version, so the appends leave one dead
# version each, loaded or not.
q "SELECT fetchq.stream_drop('vacuum_s')" >/dev/null 2>&1 || true
q "SELECT was_created FROM fetchq.stream_create('vacuum_s')" >/dev/null
q "ALTER TABLE fetchq.stream_keys SET (autovacuum_enabled = false)"
keys_count=$(q "SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = 'fetchq.stream_keys'::regclass")
PGAPPNAME=vacuum_stream_holder psql -X -q -d "$db" -c "BEGIN ISOLATION LEVEL REPEATABLE READ" \
    -c "SELECT 1" -c "SELECT pg_sleep(300)" >/dev/null 2>&1 &
bg_pids+=($!)
holder=$!
wait_for "a transaction holds the xmin horizon while the stream is appended to" 10 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'vacuum_stream_holder' AND backend_xmin IS NOT NULL" 1
for round in 1 2 3 4 5 6; do
    q "SELECT count(fetchq.stream_append('vacuum_s', 'k' || g % 3, '{}')) FROM generate_series(1, 100) g" \
        >/dev/null
done
wait_for "the appends left more dead head rows than fetchq.vacuum_threshold" 10 \
    "SELECT n_dead_tup > 100 FROM pg_stat_user_tables WHERE relid = 'fetchq.stream_keys'::regclass" t
# Dropped while the snapshot still keeps every version: once the stream is
# gone nothing reads its head rows (the stream's retention would, and prune
# their pages, taking the count under the threshold again before the
# scheduler looks).
q "SELECT fetchq.stream_drop('vacuum_s')" >/dev/null
end_session vacuum_stream_holder
wait "$holder" 2>/dev/null || true
# A vacuum under the held snapshot, if the scheduler ran one, removed nothing
# (n_dead_tup stays above the threshold) and the scheduler skips the table
# until the horizon moves: the vacuum after that removes them.
wait_for "the streams' head rows are vacuumed by the scheduler" 30 \
    "SELECT vacuum_count > $keys_count AND n_dead_tup < 100
     FROM pg_stat_user_tables WHERE relid = 'fetchq.stream_keys'::regclass" t
check "... and not by autovacuum" \
    "SELECT autovacuum_count FROM pg_stat_user_tables WHERE relid = 'fetchq.stream_keys'::regclass" 0

check "no vacuum errors" \
    "SELECT errors FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'vacuum'" "$errors0"

echo "vacuum test: $failures failure(s)"
[ "$failures" = 0 ]
