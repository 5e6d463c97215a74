#!/usr/bin/env bash
# Background workers, with no client calling any mnt_* function.
# Env: PGHOST PGPORT PGUSER of a server with shared_preload_libraries = 'fetchq';
# $1: a database where CREATE EXTENSION fetchq was run.
set -euo pipefail
db=$1
failures=0
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "$1"; }
qdb() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }

# wait_for DESCRIPTION SECONDS SQL EXPECTED [DB]
wait_for() {
    local what=$1 secs=$2 sql=$3 want=$4 d=${5:-$db} got=""
    local deadline=$((SECONDS + secs))
    while [ $SECONDS -lt $deadline ]; do
        got=$(qdb "$d" "$sql" 2>/dev/null || true)
        if [ "$got" = "$want" ]; then
            echo "ok: $what"
            return 0
        fi
        sleep 0.1
    done
    echo "FAIL: $what (wanted '$want', got '$got' after ${secs}s)"
    failures=$((failures + 1))
    return 0
}

wait_for "a scheduler runs for the database" 20 \
    "SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = current_database()" t
wait_for "a launcher runs" 5 "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq launcher'" 1

q "SELECT was_created FROM fetchq.queue_create('wk')" >/dev/null

# Promotion: a document planned 1 second ahead becomes pickable on its own.
q "SELECT fetchq.doc_push('wk', 'planned1', 0, 0, clock_timestamp() + interval '1 second', '{}')" >/dev/null
wait_for "planned document promoted when due" 15 \
    "SELECT status FROM fetchq_data.wk__docs WHERE subject = 'planned1'" 1
wait_for "pln/pnd counters follow the promotion" 5 \
    "SELECT sum(value) FILTER (WHERE metric = 'pln') || '/' || sum(value) FILTER (WHERE metric = 'pnd') FROM fetchq.metrics WHERE queue = 'wk'" "0/1"

# Orphans: a lock that expires sends the document back to pending, attempts kept.
q "SELECT count(*) FROM fetchq.doc_pick('wk', 0, 1, '1s')" >/dev/null
wait_for "orphan back to pending" 15 \
    "SELECT status || ':' || attempts FROM fetchq_data.wk__docs WHERE subject = 'planned1'" "1:1"
wait_for "orp counter" 5 "SELECT sum(value) FROM fetchq.metrics WHERE queue = 'wk' AND metric = 'orp'" 1

# ... and is killed once its attempts reach max_attempts.
q "UPDATE fetchq.queues SET max_attempts = 2 WHERE name = 'wk'"
q "SELECT count(*) FROM fetchq.doc_pick('wk', 0, 1, '1s')" >/dev/null
wait_for "orphan killed after max_attempts" 15 \
    "SELECT status || ':' || attempts FROM fetchq_data.wk__docs WHERE subject = 'planned1'" "-1:2"

# Session-bound picks come back as soon as the picking session ends:
# a clean disconnect, and pg_terminate_backend.
q "SELECT fetchq.doc_push_many('wk', ARRAY['sb1', 'sb2'])" >/dev/null
q "SELECT count(*) FROM fetchq.doc_pick('wk', 0, 1, '1 hour', true)" >/dev/null
wait_for "session-bound pick released after disconnect" 10 \
    "SELECT count(*) FROM fetchq_data.wk__docs WHERE subject LIKE 'sb_' AND status = 1 AND lock_session IS NULL" 2
psql -X -q -d "$db" -c "SELECT count(*) FROM fetchq.doc_pick('wk', 0, 1, '1 hour', true)" \
    -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
holder=$!
wait_for "a session holds a session-bound pick" 10 \
    "SELECT count(*) FROM fetchq_data.wk__docs WHERE lock_session IS NOT NULL" 1
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()" >/dev/null
wait $holder 2>/dev/null || true
wait_for "session-bound pick released after pg_terminate_backend" 10 \
    "SELECT count(*) FROM fetchq_data.wk__docs WHERE subject LIKE 'sb_' AND status = 1 AND lock_session IS NULL" 2

# A temporary queue disappears once its session has ended.
tmp=$(q "SELECT fetchq.queue_create_temporary()")
wait_for "temporary queue dropped after its session ended" 10 \
    "SELECT count(*) FROM fetchq.queues WHERE name = '$tmp'" 0
wait_for "its tables are gone too" 5 "SELECT to_regclass('fetchq_data.${tmp}__docs') IS NULL" t
wait_for "dropping it was no error for the other tasks" 5 \
    "SELECT coalesce(sum(errors), 0) FROM fetchq.worker_status() WHERE datname = current_database()" 0

# Planned or pending documents past their expiry are deleted and counted.
q "SELECT fetchq.doc_push('wk', 'exp1', 0, 0, now() + interval '1 hour', '{}', clock_timestamp() + interval '1 second')" >/dev/null
q "SELECT fetchq.doc_push('wk', 'exp2', 0, 0, now(), '{}', clock_timestamp() + interval '1 second')" >/dev/null
wait_for "expired documents deleted" 15 \
    "SELECT count(*) FROM fetchq_data.wk__docs WHERE subject LIKE 'exp_'" 0
wait_for "exp counter" 5 "SELECT sum(value) FROM fetchq.metrics WHERE queue = 'wk' AND metric = 'exp'" 2

# The periodic jobs run on their schedule: 'drp' applies the log retention,
# 'sts' writes counter snapshots into <queue>__metrics.
q "INSERT INTO fetchq_data.wk__logs (created_at, subject, message) VALUES (now() - interval '2 days', 'old', 'stale')" >/dev/null
q "SELECT fetchq.queue_set_logs_retention('wk', '1 day')" >/dev/null
q "UPDATE fetchq.jobs SET settings = '{\"delay\": \"1s\"}', next_iteration = now() WHERE queue = 'wk' AND task IN ('drp', 'sts')" >/dev/null
wait_for "log retention applied by the scheduler" 20 \
    "SELECT count(*) FROM fetchq_data.wk__logs WHERE subject = 'old'" 0
wait_for "metric snapshots written by the scheduler" 20 \
    "SELECT count(*) > 0 FROM fetchq_data.wk__metrics WHERE metric = 'cnt'" t

# worker_status reports the rounds.
wait_for "worker_status shows the promotion" 5 \
    "SELECT rows_total > 0 FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'promote'" t

# A cancel does not kill the scheduler; a terminate does, and it comes back.
pid=$(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = current_database()")
q "SELECT pg_cancel_backend($pid)" >/dev/null
q "SELECT fetchq.doc_push('wk', 'after_cancel', 0, 0, clock_timestamp() + interval '500 milliseconds', '{}')" >/dev/null
wait_for "cancelled scheduler still promotes" 10 "SELECT status FROM fetchq_data.wk__docs WHERE subject = 'after_cancel'" 1
wait_for "and is the same process" 2 \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = current_database() AND pid = $pid" 1
q "SELECT pg_terminate_backend($pid)" >/dev/null
wait_for "terminated scheduler restarted" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = current_database() AND pid <> $pid" 1
q "SELECT fetchq.doc_push('wk', 'planned2', 0, 0, clock_timestamp() + interval '1 second', '{}')" >/dev/null
wait_for "restarted scheduler promotes" 15 "SELECT status FROM fetchq_data.wk__docs WHERE subject = 'planned2'" 1

# fetchq.enabled = off stops the work; on again resumes it (SIGHUP reload).
q "ALTER SYSTEM SET fetchq.enabled = off"
q "SELECT pg_reload_conf()" >/dev/null
# Not a fixed sleep, which a busy machine outruns: the postmaster re-read the
# file (a new session shows off; it signals every process before it accepts
# the next session), then the scheduler is seen asleep on its latch, from
# which the first thing it does is to apply the file, before any round.
wait_for "the server read fetchq.enabled = off" 30 "SELECT setting FROM pg_settings WHERE name = 'fetchq.enabled'" off
wait_for "the scheduler sleeps between rounds" 30 \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = current_database() AND wait_event_type = 'Extension'" 1
q "SELECT fetchq.doc_push('wk', 'planned3', 0, 0, clock_timestamp() + interval '500 milliseconds', '{}')" >/dev/null
sleep 2
got=$(q "SELECT status FROM fetchq_data.wk__docs WHERE subject = 'planned3'")
if [ "$got" = 0 ]; then echo "ok: disabled workers leave planned documents alone"; else echo "FAIL: disabled workers promoted ($got)"; failures=$((failures + 1)); fi
q "ALTER SYSTEM RESET fetchq.enabled"
q "SELECT pg_reload_conf()" >/dev/null
wait_for "re-enabled workers promote" 20 "SELECT status FROM fetchq_data.wk__docs WHERE subject = 'planned3'" 1

# Another database gets its scheduler after CREATE EXTENSION on a running server.
other="${db}_other"
qdb postgres "DROP DATABASE IF EXISTS $other" >/dev/null
qdb postgres "CREATE DATABASE $other" >/dev/null
qdb "$other" "SET client_min_messages = warning; CREATE EXTENSION fetchq" >/dev/null
wait_for "scheduler starts after CREATE EXTENSION" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = '$other'" 1 postgres
qdb "$other" "SELECT was_created FROM fetchq.queue_create('wk2')" >/dev/null
qdb "$other" "SELECT fetchq.doc_push('wk2', 'p', 0, 0, clock_timestamp() + interval '1 second', '{}')" >/dev/null
wait_for "two databases maintained at once" 15 "SELECT status FROM fetchq_data.wk2__docs WHERE subject = 'p'" 1 "$other"

# DROP EXTENSION stops the scheduler of that database; CREATE brings it back.
qdb "$other" "DROP EXTENSION fetchq CASCADE" >/dev/null
wait_for "scheduler leaves after DROP EXTENSION" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = '$other'" 0 postgres
qdb "$other" "SET client_min_messages = warning; CREATE EXTENSION fetchq" >/dev/null
wait_for "scheduler back after CREATE EXTENSION again" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = '$other'" 1 postgres

# Renaming and dropping a database with a running scheduler just works.
if qdb postgres "ALTER DATABASE $other RENAME TO ${other}_renamed" >/dev/null; then
    echo "ok: ALTER DATABASE RENAME with a running scheduler"
else
    echo "FAIL: ALTER DATABASE RENAME"; failures=$((failures + 1)); other_now=$other
fi
other_now=${other_now:-${other}_renamed}
if qdb postgres "DROP DATABASE $other_now" >/dev/null; then
    echo "ok: DROP DATABASE with a running scheduler"
else
    echo "FAIL: DROP DATABASE"; failures=$((failures + 1))
fi

# Monitoring: a trigger that raises on a queue's documents is one cause: each
# failed round of the queue counts once, under the task whose step failed
# (promote: the UPDATE of a due planned document), not under every task of
# the round. worker_status says when it failed, and when the task recovered.
q "SELECT was_created FROM fetchq.queue_create('wk_err')" >/dev/null
q "CREATE FUNCTION wk_boom() RETURNS trigger LANGUAGE plpgsql AS \$\$BEGIN RAISE EXCEPTION 'wk boom'; END\$\$"
q "CREATE TRIGGER wk_boom BEFORE UPDATE ON fetchq_data.wk_err__docs FOR EACH ROW EXECUTE FUNCTION wk_boom()"
status() {
    q "SELECT $1 FROM fetchq.worker_status() WHERE datname = current_database() AND task = '$2'"
}
all_errors="SELECT sum(errors) FROM fetchq.worker_status() WHERE datname = current_database()"
promote0=$(status errors promote)
all0=$(q "$all_errors")
pushed_at=$(q "SELECT clock_timestamp()")
q "SELECT fetchq.doc_push('wk_err', 'due', 0, 0, clock_timestamp() + interval '300 milliseconds', '{}')" >/dev/null
# Retried after 1, 2, 4 s: three failed rounds within some 8 s.
wait_for "the failing queue shows under promote, with the time of its error" 40 \
    "SELECT errors >= $promote0 + 3 AND last_error LIKE '%wk boom%' AND last_error_at > '$pushed_at'
       AND recovered_at IS NULL FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'promote'" t
# Read together: the errors of every task grew by those of promote alone.
got=$(q "WITH w AS (SELECT task, errors FROM fetchq.worker_status() WHERE datname = current_database())
         SELECT ((SELECT sum(errors) FROM w) - $all0) || '/' || ((SELECT errors FROM w WHERE task = 'promote') - $promote0)")
if [ "${got%/*}" = "${got#*/}" ]; then
    echo "ok: each failed round counted once, under promote only ($got)"
else
    echo "FAIL: errors of all tasks / of promote grew by $got"; failures=$((failures + 1))
fi
got=$(q "SELECT string_agg(task || ':' || errors || ':' || (last_error_at IS NULL), ',' ORDER BY task)
         FROM fetchq.worker_status() WHERE datname = current_database() AND task IN ('orphans', 'expire', 'purge')")
if [ "$got" = "expire:0:true,orphans:0:true,purge:0:true" ]; then
    echo "ok: orphans, expire and purge show no error"
else
    echo "FAIL: orphans, expire and purge: $got"; failures=$((failures + 1))
fi
q "DROP TRIGGER wk_boom ON fetchq_data.wk_err__docs"
fixed_at=$(q "SELECT clock_timestamp()")
# The queue's next try comes after its backoff (up to 8 s here).
wait_for "once the trigger is gone, promote shows when it recovered" 40 \
    "SELECT recovered_at > '$fixed_at' AND recovered_at > last_error_at AND last_error LIKE '%wk boom%'
       FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'promote'" t
wait_for "... and the document is promoted" 10 "SELECT status FROM fetchq_data.wk_err__docs WHERE subject = 'due'" 1
q "SELECT was_dropped FROM fetchq.queue_drop('wk_err')" >/dev/null

q "SELECT was_dropped FROM fetchq.queue_drop('wk')" >/dev/null
echo "worker test: $failures failure(s)"
[ "$failures" = 0 ]
