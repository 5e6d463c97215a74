#!/usr/bin/env bash
# Crash safety, on a cluster of its own (a crash restart would disturb the
# other tests, and its log rightly shows a killed process):
# - kill -9 of a backend holding picked documents: after the crash restart no
#   committed document is lost, session-bound documents come back at once,
#   ordinary ones when their lock expires;
# - an immediate shutdown loses no committed document, and the scheduler
#   comes back with the server.
# Uses PATH's pg_config for the binaries (scripts/test.sh puts its private
# install first); $1 (the runner's database) is not used.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
PGBIN=${PGBIN:-$(pg_config --bindir)}
export PGBIN
dir=$(mktemp -d /tmp/fetchq-crash.XXXXXX)
failures=0
cleanup() {
    "$here/scripts/pg_cluster.sh" stop "$dir" || true
    rm -rf "$dir"
}
trap cleanup EXIT

port=$("$here/scripts/pg_cluster.sh" start "$dir" "restart_after_crash = on")
export PGHOST=$dir PGPORT=$port PGUSER=postgres
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d crash -c "$1"; }

wait_for() {
    local what=$1 secs=$2 sql=$3 want=$4 got=""
    local deadline=$((SECONDS + secs))
    while [ $SECONDS -lt $deadline ]; do
        got=$(q "$sql" 2>/dev/null || true)
        if [ "$got" = "$want" ]; then echo "ok: $what"; return 0; fi
        sleep 0.2
    done
    echo "FAIL: $what (wanted '$want', got '$got' after ${secs}s)"
    failures=$((failures + 1))
}

psql -X -q -d postgres -c "CREATE DATABASE crash"
q "SET client_min_messages = warning; CREATE EXTENSION fetchq"
q "SELECT was_created FROM fetchq.queue_create('cq')" >/dev/null
q "SELECT fetchq.doc_push_many('cq', ARRAY(SELECT 'd' || i FROM generate_series(1, 20) i))" >/dev/null

# A consumer picks 3 documents session-bound (1 hour lock) and 3 the
# ordinary way (10 s lock: still held when the test looks, even on a busy
# machine), commits, and is then killed with SIGKILL.
PGAPPNAME=crash_consumer psql -X -q -d crash \
    -c "SELECT count(*) FROM fetchq.doc_pick('cq', 0, 3, '1 hour', true)" \
    -c "SELECT count(*) FROM fetchq.doc_pick('cq', 0, 3, '10s')" \
    -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
consumer=$!
wait_for "consumer picked and sleeps" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'crash_consumer' AND query LIKE '%pg_sleep(60)%'" 1
wait_for "consumer holds 6 documents" 10 "SELECT count(*) FROM fetchq_data.cq__docs WHERE status = 2" 6
victim=$(q "SELECT pid FROM pg_stat_activity WHERE application_name = 'crash_consumer'")
kill -9 "$victim"
wait "$consumer" 2>/dev/null || true

# The postmaster restarts every process and recovers.
deadline=$((SECONDS + 60))
until q "SELECT 1" >/dev/null 2>&1 || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
wait_for "server back after the crash" 5 "SELECT 1" 1
wait_for "no committed document lost" 5 "SELECT count(*) FROM fetchq_data.cq__docs" 20
wait_for "session-bound documents back to pending after the crash" 20 \
    "SELECT count(*) FROM fetchq_data.cq__docs WHERE status = 2 AND lock_session IS NOT NULL" 0
wait_for "expired ordinary locks back to pending" 60 \
    "SELECT count(*) FROM fetchq_data.cq__docs WHERE status = 2" 0
wait_for "every document pending again, attempts kept" 5 \
    "SELECT count(*) || ':' || sum(attempts) FROM fetchq_data.cq__docs WHERE status = 1" "20:6"
wait_for "scheduler running again" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = 'crash'" 1

# Immediate shutdown: committed documents survive, the scheduler comes back.
q "SELECT fetchq.doc_push('cq', 'late', 0, 0, now() + interval '2 seconds', '{}')" >/dev/null
runuser_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
runuser_pg "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
runuser_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null
wait_for "committed push survived an immediate shutdown" 10 \
    "SELECT count(*) FROM fetchq_data.cq__docs" 21
wait_for "planned document promoted after the restart" 20 \
    "SELECT status FROM fetchq_data.cq__docs WHERE subject = 'late'" 1

if grep -E "PANIC|TRAP:" "$dir/server.log"; then
    echo "FAIL: the server log shows a PANIC or an assertion"
    failures=$((failures + 1))
else
    echo "ok: no PANIC in the server log (the SIGKILL above is expected)"
fi
echo "crash test: $failures failure(s)"
[ "$failures" = 0 ]
