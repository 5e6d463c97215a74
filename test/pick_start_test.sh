#!/usr/bin/env bash
# Where picks start (ops/shared_memory/pick_start.hpp). Concurrent producers (out-of-order
# commits, higher priorities, rollbacks) and consumers (picks, rolled-back
# picks and savepoints, reschedules) on one queue, with a start from the
# first pick and no renewal: afterwards no due document is left behind the
# start. A document inserted by plain SQL is seen at once with the default
# settings on a queue with no dead prefix, and, from a start, once a renewal
# comes. Under a held xmin horizon the default settings engage a start by
# themselves, and a pick then reads a handful of index entries where a pick
# from the beginning reads every document taken before.
# Env: PGHOST PGPORT PGUSER of a server with shared_preload_libraries =
# 'fetchq'; $1: a database where CREATE EXTENSION fetchq was run.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"
work=$(mktemp -d)
holder=
# The holding session, by its application_name (killing psql would leave its
# backend asleep).
release() {
    q "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'ps_holder'" >/dev/null || true
    [ -n "$holder" ] && wait "$holder" 2>/dev/null || true
    holder=
}
cleanup() {
    release
    rm -rf "$work"
}
trap cleanup EXIT
strict="-c fetchq.pick_start_threshold=0 -c fetchq.pick_start_max_age=-1"

q "SELECT fetchq.queue_create('ps')" >/dev/null

cat >"$work/produce.sql" <<'SQL'
\set kind random(1, 4)
\set s random(1, 1000000000)
\set p random(0, 2)
\set ago random(0, 600)
\set pause random(0, 5)
SELECT CASE :kind
  WHEN 1 THEN (SELECT queued_docs FROM fetchq.doc_push('ps', 'a' || :s, 0, :p, now() - :ago * interval '1 s', '{}'))
  WHEN 2 THEN fetchq.doc_push_many('ps', ARRAY(SELECT 'm' || :s || '_' || g FROM generate_series(1, 5) g)::varchar[], NULL, now() - :ago * interval '1 s', 0, :p)
  ELSE 0 END;
BEGIN;
SELECT fetchq.doc_push('ps', 'slow' || :s, 0, :p, now() - :ago * interval '1 s', '{}') WHERE :kind = 3;
SELECT pg_sleep(:pause / 1000.0) WHERE :kind = 3;
COMMIT;
BEGIN;
SELECT fetchq.doc_push('ps', 'rolled' || :s, 0, 5, now() - interval '1 day', '{}') WHERE :kind = 4;
ROLLBACK;
SQL
# Only picks: nothing but the pushes moves the start back.
cat >"$work/pick.sql" <<'SQL'
\set k random(1, 3)
SELECT count(*) FROM fetchq.doc_pick('ps', 0, :k, '5m');
SQL
# Picks that roll back, in savepoints too, and reschedules.
cat >"$work/consume.sql" <<'SQL'
\set kind random(1, 5)
\set k random(1, 3)
SELECT count(*) FROM fetchq.doc_pick('ps', 0, :k, '5m') WHERE :kind <= 2;
BEGIN;
SELECT count(*) FROM fetchq.doc_pick('ps', 0, :k, '5m') WHERE :kind = 3;
ROLLBACK;
BEGIN;
SAVEPOINT s;
SELECT count(*) FROM fetchq.doc_pick('ps', 0, :k, '5m') WHERE :kind = 4;
ROLLBACK TO SAVEPOINT s;
SELECT count(*) FROM fetchq.doc_pick('ps', 0, 1, '5m') WHERE :kind = 4;
COMMIT;
SELECT fetchq.doc_reschedule('ps', subject, now() - interval '1 hour')
FROM fetchq.doc_pick('ps', 0, 1, '5m') WHERE :kind = 5;
SQL

# Picks until one finds nothing, in a session that never falls back.
drain() {
    local n=1 rounds=0
    while [ "$n" != 0 ] && [ $rounds -lt 10000 ]; do
        n=$(PGOPTIONS="$strict" q "SELECT count(*) FROM fetchq.doc_pick('$1', 0, 100, '5m')")
        rounds=$((rounds + 1))
    done
}

# run CONSUMER_SCRIPT: 10 s of 2 producers and 4 consumers with no fallback,
# then the queue drained: no due document may be left behind the start.
run() {
    PGOPTIONS="$strict" pgbench -n -c 2 -j 2 -T 10 -f "$work/produce.sql" "$db" >"$work/produce.log" 2>&1 &
    local producers=$!
    PGOPTIONS="$strict" pgbench -n -c 4 -j 2 -T 10 -f "$work/$1" "$db" >"$work/consume.log" 2>&1 ||
        fail "consumers: $(tail -5 "$work/consume.log")"
    wait "$producers" || fail "producers: $(tail -5 "$work/produce.log")"
    check_has "... the producers ran" "$(cat "$work/produce.log")" "actually processed: [1-9]"
    check_has "... the consumers ran" "$(cat "$work/consume.log")" "actually processed: [1-9]"
    drain ps
    check "... no due document is left pending after the last pick found none" \
        "$(q "SELECT count(*) FROM fetchq_data.ps__docs WHERE status = 1 AND next_iteration <= now()")" 0
}
echo "# pushes (out of commit order, higher priorities, rollbacks) and picks"
run pick.sql
echo "# the same with picks rolled back, savepoints rolled back and reschedules"
run consume.sql

echo "# plain SQL on the queue's table"
# sql_doc QUEUE SUBJECT: a pending document due a day ago, inserted by SQL.
sql_doc() {
    q "INSERT INTO fetchq_data.$1__docs (subject, version, priority, status, next_iteration, payload, created_at)
       VALUES ('$2', 0, 0, 1, now() - interval '1 day', '{}', now())" >/dev/null
}
q "SELECT fetchq.queue_create('ps_plain')" >/dev/null
q "SELECT fetchq.doc_push('ps_plain', 'p' || g, 0, 0, now() - interval '1 minute' + g * interval '1 s', '{}') FROM generate_series(1, 3) g" >/dev/null
check "default settings, no dead prefix: a pick takes the first document" \
    "$(q "SELECT subject FROM fetchq.doc_pick('ps_plain', 0, 1, '5m')")" p1
sql_doc ps_plain by_sql
check "... and a document inserted by SQL before it at once, as Fetchq 4 would" \
    "$(q "SELECT subject FROM fetchq.doc_pick('ps_plain', 0, 1, '5m')")" by_sql

q "SELECT fetchq.doc_push('ps', 'late', 0, 0, now(), '{}')" >/dev/null
check "from a start: a pick takes the last pushed document" \
    "$(PGOPTIONS="$strict" q "SELECT subject FROM fetchq.doc_pick('ps', 0, 1, '5m')")" late
sql_doc ps by_sql
check "... a document inserted by SQL before the start is not seen from it" \
    "$(PGOPTIONS="$strict" q "SELECT count(*) FROM fetchq.doc_pick('ps', 0, 1, '5m')")" 0
renewed=
for _ in $(seq 1 50); do
    got=$(PGOPTIONS="-c fetchq.pick_start_threshold=0 -c fetchq.pick_start_max_age=1000" \
        q "SELECT subject FROM fetchq.doc_pick('ps', 0, 1, '5m')")
    if [ "$got" = by_sql ]; then renewed=yes; break; fi
    sleep 0.2
done
check "... until a pick from the beginning renews the start (fetchq.pick_start_max_age)" \
    "$renewed" yes
# A TRUNCATE drops the start at its commit (ops::note_truncate): rows inserted
# by SQL into the emptied table are seen at once, even without renewals.
for how in "TRUNCATE fetchq_data.ps__docs" "SELECT fetchq.queue_truncate('ps')"; do
    q "SELECT fetchq.doc_push('ps', 'last', 0, 0, now() + interval '1 hour', '{}')" >/dev/null
    q "SELECT fetchq.doc_push('ps', 'late2', 0, 0, now(), '{}')" >/dev/null
    PGOPTIONS="$strict" q "SELECT subject FROM fetchq.doc_pick('ps', 0, 1, '5m')" >/dev/null
    q "$how" >/dev/null
    sql_doc ps after_truncate
    check "after $how, a document inserted by SQL is picked from the start at once" \
        "$(PGOPTIONS="$strict" q "SELECT subject FROM fetchq.doc_pick('ps', 0, 1, '5m')")" after_truncate
done

echo "# under a held xmin horizon: index entries read per pick"
q "SELECT fetchq.queue_create('ps_held')" >/dev/null
q "SELECT count(*) FROM (SELECT fetchq.doc_push('ps_held', 'h' || g, 0, 0,
       now() - interval '1 hour' + g * interval '1 ms', '{}') FROM generate_series(1, 4000) g) AS p" >/dev/null
PGAPPNAME=ps_holder psql -X -q -d "$db" -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SELECT 1" \
    -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
holder=$!
wait_for "a transaction holds the xmin horizon" 10 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ps_holder' AND backend_xmin IS NOT NULL" 1
echo 'SELECT count(*) FROM fetchq.doc_pick('"'ps_held'"', 0, 1, '"'5m'"');' >"$work/pick1.sql"
index_reads() {
    q "SELECT pg_stat_clear_snapshot(); SELECT idx_tup_read FROM pg_stat_user_indexes
       WHERE indexrelname = 'ps_held__docs_pick_idx'" | tail -1
}
# per_pick PICKS OPTIONS: index entries read per pick over PICKS picks with
# those settings.
per_pick() {
    local before after
    before=$(index_reads)
    PGOPTIONS="$2" pgbench -n -c 2 -j 2 -t $(($1 / 2)) -f "$work/pick1.sql" \
        "$db" >"$work/pick.log" 2>&1 || fail "pgbench: $(tail -3 "$work/pick.log")"
    # The backends report their statistics as they exit, before they leave
    # pg_stat_activity; pgbench may return before they are gone.
    local deadline=$((SECONDS + 30))
    while [ "$(q "SELECT count(*) FROM pg_stat_activity
                  WHERE datname = current_database() AND application_name = 'pgbench'")" != 0 ] &&
        [ $SECONDS -lt $deadline ]; do
        sleep 0.1
    done
    after=$(index_reads)
    echo $(((after - before) / $1))
}
from_beginning=$(per_pick 2000 "-c fetchq.pick_start_threshold=-1")
by_default=$(per_pick 1000 "")
echo "index entries read per pick: $from_beginning from the beginning, $by_default then with the default settings"
check "picks from the beginning read the entries of the documents taken before" \
    "$([ "$from_beginning" -gt 500 ] && echo yes || echo "no: $from_beginning")" yes
check "with the default settings a start is engaged: a handful of entries per pick" \
    "$([ "$by_default" -lt 50 ] && echo yes || echo "no: $by_default")" yes
release

[ "$failures" = 0 ]
