#!/usr/bin/env bash
# The waiting pick (CALL fetchq.doc_pick_wait): returns at once when there
# are documents; otherwise waits holding no snapshot and no transaction id
# (checked from a second session), is woken by the commit that makes a
# document pickable (a push, the scheduler's promotion), goes back to
# waiting when another consumer was faster, returns [] at the timeout, and
# is refused inside a transaction block.
# Env: PGHOST PGPORT PGUSER of a server with shared_preload_libraries =
# 'fetchq'; $1: a database where CREATE EXTENSION fetchq was run.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"
out_dir=$(mktemp -d)
trap 'q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '"'"'pw_gate'"'"'" >/dev/null 2>&1 || true; rm -rf "$out_dir"' EXIT

# waiter NAME QUEUE WAIT: a waiting pick in the background, tagged NAME in
# application_name; its docs go to $out_dir/NAME.
waiter() {
    PGAPPNAME="pw_$1" psql -X -q -At -d "$db" \
        -c "CALL fetchq.doc_pick_wait('$2', 0, 1, '1 minute', '$3', NULL)" >"$out_dir/$1" 2>&1 &
}
# waiting NAME: 1 while that waiter sleeps on the queue's condition variable.
waiting() { echo "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pw_$1' AND wait_event_type = 'Extension'"; }
# subjects NAME: the subjects that waiter returned, or what it printed.
subjects() {
    local docs
    docs=$(cat "$out_dir/$1")
    q "SELECT string_agg(d ->> 'subject', ',') FROM jsonb_array_elements(\$j\$$docs\$j\$::jsonb) AS d" 2>/dev/null ||
        echo "$docs"
}

q "SELECT fetchq.queue_create('pw')" >/dev/null
q "SELECT fetchq.doc_push('pw', 'ready')" >/dev/null
q "CALL fetchq.doc_pick_wait('pw', 0, 10, '1 minute', '10 seconds', NULL)" >"$out_dir/ready"
check "documents there: returned at once" "$(subjects ready)" ready
check "named notation: queue, version, limit, lock, wait" \
    "$(q "CALL fetchq.doc_pick_wait(queue => 'pw', version => 0, \"limit\" => 1, lock => '1 minute', wait => '0 seconds', docs => NULL)")" "[]"
check "... picked as doc_pick picks" "$(q "SELECT status || ' ' || attempts FROM fetchq_data.pw__docs WHERE subject = 'ready'")" "2 1"

echo "# a waiter holds no snapshot and no xid, and a push wakes it"
waiter one pw '30 seconds'
wait_for "the waiter sleeps" 10 "$(waiting one)" 1
check "... with no snapshot (backend_xmin) and no transaction id (backend_xid)" \
    "$(q "SELECT backend_xmin IS NULL AND backend_xid IS NULL FROM pg_stat_activity WHERE application_name = 'pw_one'")" t
q "SELECT fetchq.doc_push('pw', 'pushed')" >/dev/null
wait_for "a push wakes it: it returns the document" 10 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pw_one'" 0
check "... the pushed document" "$(subjects one)" pushed
check "... picked" "$(q "SELECT status FROM fetchq_data.pw__docs WHERE subject = 'pushed'")" 2

echo "# an uncommitted push does not wake; its commit does"
waiter two pw '30 seconds'
wait_for "the waiter sleeps" 10 "$(waiting two)" 1
psql -X -q -At -d "$db" <<SQL >/dev/null
BEGIN;
SELECT fetchq.doc_push('pw', 'in_tx');
SELECT pg_sleep(1);
\! [ "\$(psql -X -q -At -d "$db" -c "$(waiting two)")" = 1 ] && echo still > "$out_dir/two_during"
COMMIT;
SQL
check "still waiting while the push is not committed" "$(cat "$out_dir/two_during" 2>/dev/null)" still
wait_for "the commit wakes it" 10 "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pw_two'" 0
check "... with the document" "$(subjects two)" in_tx

echo "# two waiters, one document: the other waits on"
waiter three pw '30 seconds'
waiter four pw '30 seconds'
wait_for "both sleep" 10 "SELECT count(*) FROM pg_stat_activity WHERE application_name IN ('pw_three', 'pw_four') AND wait_event_type = 'Extension'" 2
q "SELECT fetchq.doc_push('pw', 'only_one')" >/dev/null
wait_for "one of them returns" 10 "SELECT count(*) FROM pg_stat_activity WHERE application_name IN ('pw_three', 'pw_four')" 1
wait_for "... the other sleeps again" 10 "SELECT count(*) FROM pg_stat_activity WHERE application_name IN ('pw_three', 'pw_four') AND wait_event_type = 'Extension' AND backend_xmin IS NULL" 1
q "SELECT fetchq.doc_push('pw', 'second')" >/dev/null
wait_for "... until the next document" 10 "SELECT count(*) FROM pg_stat_activity WHERE application_name IN ('pw_three', 'pw_four')" 0
check "each got one document" "$( (subjects three; subjects four) | sort | paste -sd, -)" "only_one,second"

echo "# a pick that rolls back wakes the waiters that skipped its documents"
q "SELECT fetchq.doc_push('pw', 'rolled')" >/dev/null
# The holder rolls back once the test opens the gate (an advisory lock that
# another session holds), not after a fixed sleep that a busy machine outruns.
PGAPPNAME=pw_gate psql -X -q -d "$db" -c "SELECT pg_advisory_lock(2829)" -c "SELECT pg_sleep(300)" \
    >/dev/null 2>&1 &
gate=$!
wait_for "the gate is closed" 10 \
    "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
     WHERE a.application_name = 'pw_gate' AND l.locktype = 'advisory' AND l.granted" 1
PGAPPNAME=pw_holder psql -X -q -At -d "$db" <<SQL >/dev/null &
BEGIN;
SELECT count(*) FROM fetchq.doc_pick('pw', 0, 1, '1 minute');
SELECT pg_advisory_xact_lock(2829);
ROLLBACK;
SQL
holder=$!
wait_for "another session holds the document" 10 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pw_holder' AND wait_event = 'advisory'" 1
waiter seven pw '30 seconds'
wait_for "a waiter skipped it and sleeps" 10 "$(waiting seven)" 1
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pw_gate'" >/dev/null
wait "$gate" 2>/dev/null || true
wait "$holder"
wait_for "the rollback wakes it: it picks the document" 10 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pw_seven'" 0
check "... that document" "$(subjects seven)" rolled

echo "# the scheduler's promotion wakes it"
waiter five pw '30 seconds'
wait_for "the waiter sleeps" 10 "$(waiting five)" 1
q "SELECT fetchq.doc_push('pw', 'planned', 0, 0, now() + interval '1 second', '{}')" >/dev/null
wait_for "a planned document, promoted when due, wakes it" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pw_five'" 0
check "... with that document" "$(subjects five)" planned

echo "# timeout, transaction blocks, bad input"
start=$(date +%s%N)
check "nothing within the wait: []" "$(q "CALL fetchq.doc_pick_wait('pw', 0, 1, '1 minute', '1 second', NULL)")" "[]"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "... after the wait, not before" "$([ "$elapsed_ms" -ge 900 ] && echo yes || echo "no ($elapsed_ms ms)")" yes
out=$(psql -X -q -At -d "$db" -c '\set VERBOSITY verbose' -c "BEGIN" \
    -c "CALL fetchq.doc_pick_wait('pw', 0, 1, '1 minute', '1 second', NULL)" 2>&1 || true)
check_has "inside BEGIN: refused at once, with a hint" "$out" "25001: fetchq.doc_pick_wait cannot wait inside a transaction block"
# The hint says what works, as docs/api.md does: a DO block run on its own
# may call it, a function may not.
check_has "... whose hint allows a DO block run outside one, and not a function" "$out" \
    "HINT:  CALL it outside BEGIN ... COMMIT \(from a driver: in autocommit mode\), or from a DO block or procedure that is itself run outside one \(a loop there may COMMIT between calls\), not from a function"
do_call="DO \$\$ DECLARE d jsonb; BEGIN CALL fetchq.doc_pick_wait('pw', 0, 1, '1 minute', '1 second', d); RAISE NOTICE 'docs %', d; END \$\$"
out=$(psql -X -q -At -d "$db" -c "BEGIN" -c "$do_call" 2>&1 || true)
check_has "... and in a DO block inside BEGIN" "$out" "cannot wait inside a transaction block"
check_has "a DO block of its own may call it (it commits there too)" "$(psql -X -q -At -d "$db" -c "$do_call" 2>&1)" "docs \[\]"
# A worker loop in a DO block, as docs/api.md shows it: pick, complete,
# COMMIT, until a wait brings nothing.
q "SELECT was_created FROM fetchq.queue_create('pw_loop')" >/dev/null
q "SELECT fetchq.doc_push_many('pw_loop', ARRAY['l1', 'l2', 'l3'])" >/dev/null
do_loop="DO \$\$
DECLARE
    d jsonb;
    done integer := 0;
BEGIN
    LOOP
        CALL fetchq.doc_pick_wait('pw_loop', 0, 1, '1 minute', '1 second', d);
        EXIT WHEN d = '[]';
        PERFORM fetchq.doc_complete('pw_loop', d -> 0 ->> 'subject');
        done := done + 1;
        COMMIT;
    END LOOP;
    RAISE NOTICE 'completed %', done;
END \$\$"
check_has "a DO loop with COMMIT between waiting picks works through the queue" \
    "$(psql -X -q -At -d "$db" -c "$do_loop" 2>&1)" "NOTICE:  completed 3"
check "... and each document is completed" \
    "$(q "SELECT string_agg(subject || ':' || status, ',' ORDER BY subject) FROM fetchq_data.pw_loop__docs")" \
    "l1:3,l2:3,l3:3"
check_has "a missing queue" "$(psql -X -q -At -d "$db" -c "CALL fetchq.doc_pick_wait('pw_nope', 0, 1, '1 minute', '1 second', NULL)" 2>&1 || true)" 'queue "pw_nope" does not exist'
check_has "a lock of zero" "$(psql -X -q -At -d "$db" -c "CALL fetchq.doc_pick_wait('pw', 0, 1, '0 seconds', '1 second', NULL)" 2>&1 || true)" "must be longer than zero"
waiter six pw '30 seconds'
wait_for "a waiter sleeps" 10 "$(waiting six)" 1
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'pw_six'" >/dev/null
wait_for "pg_cancel_backend ends its wait" 10 "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pw_six'" 0
check_has "... with the cancel error" "$(cat "$out_dir/six")" "canceling statement due to user request"
# A client that goes away while it waits: its session waits on, unless
# client_connection_check_interval is set (docs/api.md says so).
PGAPPNAME=pw_gone PGOPTIONS="-c client_connection_check_interval=1s" psql -X -q -d "$db" \
    -c "CALL fetchq.doc_pick_wait('pw', 0, 1, '1 minute', '1 minute', NULL)" >/dev/null 2>&1 &
gone=$!
wait_for "a waiter sleeps" 10 "$(waiting gone)" 1
kill "$gone"
wait "$gone" 2>/dev/null || true
wait_for "with client_connection_check_interval, its session ends soon after its client" 10 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pw_gone'" 0
wait
check "the counters agree with the documents" \
    "$(q "SELECT cnt || ' ' || pnd || ' ' || act FROM fetchq.metric_get_common('pw')")" \
    "$(q "SELECT cnt || ' ' || pnd || ' ' || act FROM fetchq.metric_compute('pw')")"

echo
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all waiting pick checks passed"
