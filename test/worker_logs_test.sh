#!/usr/bin/env bash
# What the background workers write to the server log (docs/operations.md,
# "The server log"), and worker_status for a database without the extension.
# Env: PGHOST (the cluster's directory, which holds server.log) PGPORT PGUSER;
# $1: a fresh database where CREATE EXTENSION fetchq was run.
set -euo pipefail
db=$1
log=$PGHOST/server.log
two="${db}_two"   # gets the extension, loses it, is dropped
bare="${db}_bare" # never has it
source "$(dirname "$0")/lib/checks.sh"
qdb() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }

# The server log from byte offset $1 on; mark: the current offset.
since() { tail -c +$(($1 + 1)) "$log"; }
mark() { stat -c %s "$log"; }
# count OFFSET TEXT: lines after OFFSET that contain TEXT.
count() { since "$1" | grep -cF -- "$2" || true; }

# wait_for_log DESCRIPTION SECONDS OFFSET TEXT [N]: N lines (1) after OFFSET.
wait_for_log() {
    local what=$1 secs=$2 from=$3 text=$4 n=${5:-1}
    local deadline=$((SECONDS + secs))
    while [ $SECONDS -lt $deadline ]; do
        if [ "$(count "$from" "$text")" -ge "$n" ]; then
            ok "$what"
            return 0
        fi
        sleep 0.2
    done
    fail "$what (no '$text' in the server log after ${secs}s)"
}

cleanup() {
    psql -X -q -d postgres -c "ALTER SYSTEM RESET fetchq.naptime" \
        -c "ALTER SYSTEM RESET fetchq.log_level" -c "SELECT pg_reload_conf()" >/dev/null 2>&1 || true
    for d in "$two" "$bare"; do
        PGOPTIONS='-c client_min_messages=warning' psql -X -q -d postgres \
            -c "DROP DATABASE IF EXISTS \"$d\" WITH (FORCE)" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT

scheduler="fetchq scheduler for database \"$db\""

# --- start -------------------------------------------------------------------
wait_for_log "the scheduler of the database says it started" 30 0 "LOG:  $scheduler started"
wait_for_log "the launcher said it started" 1 0 "LOG:  fetchq launcher started"

# Rounds every 200 ms: a queue that failed on every round would log each time.
psql -X -q -d postgres -c "ALTER SYSTEM SET fetchq.naptime = '200ms'" \
    -c "SELECT pg_reload_conf()" >/dev/null

# The launcher says when it stops; the postmaster starts it again after 10 s,
# while the queue below fails (the launcher is needed only further down).
launcher_mark=$(mark)
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'fetchq launcher'" >/dev/null

# --- a queue whose maintenance fails on every try ------------------------------
q "SELECT fetchq.queue_create('wl')" >/dev/null
q "CREATE FUNCTION wl_boom() RETURNS trigger LANGUAGE plpgsql AS \$\$BEGIN RAISE EXCEPTION 'wl boom'; END\$\$"
q "CREATE TRIGGER wl_boom BEFORE UPDATE ON fetchq_data.wl__docs FOR EACH ROW EXECUTE FUNCTION wl_boom()"
errors0=$(q "SELECT errors FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'promote'")
fail_mark=$(mark)
# Planned: inserted now, due in 300 ms; its promotion (an UPDATE) raises.
q "SELECT fetchq.doc_push('wl', 'due', 0, 0, clock_timestamp() + interval '300 milliseconds', '{}')" >/dev/null
# The scheduler retries the queue after 1, 2, 4 s: four failures within ~8 s.
wait_for "the queue's maintenance failed four times" 40 \
    "SELECT errors >= $errors0 + 4 FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'promote'" t
failed_line="LOG:  fetchq: maintenance of queue \"wl\" in database \"$db\" failed: wl boom"
check "the first failure is logged, naming the database and the queue" \
    "$(count "$fail_mark" "$failed_line")" 1
check "... and the next ones, within the minute, are not" \
    "$(since "$fail_mark" | grep -c 'queue "wl".* failed' || true)" 1

q "DROP TRIGGER wl_boom ON fetchq_data.wl__docs"
wait_for_log "the recovery is logged (after the queue's next try, up to 8 s later)" 40 \
    "$fail_mark" "LOG:  fetchq: maintenance of queue \"wl\" in database \"$db\" recovered after"
if since "$fail_mark" | grep -qE "queue \"wl\" in database \"$db\" recovered after ([4-9]|[1-9][0-9]+) failures"; then
    ok "... with the count of failures"
else
    fail "... with the count of failures: $(since "$fail_mark" | grep 'recovered after' || true)"
fi
wait_for "the document is promoted" 10 "SELECT status FROM fetchq_data.wl__docs WHERE subject = 'due'" 1

# --- the report of each round: DEBUG1 unless fetchq.log_level says otherwise ----
round_line="$scheduler: 1 documents promoted"
check "the round that promoted it was not logged at the default fetchq.log_level" \
    "$(count "$fail_mark" "$round_line")" 0
psql -X -q -d postgres -c "ALTER SYSTEM SET fetchq.log_level = 'log'" \
    -c "SELECT pg_reload_conf()" >/dev/null
wait_applied fetchq.log_level log
round_mark=$(mark)
q "SELECT fetchq.doc_push('wl', 'due2', 0, 0, clock_timestamp() + interval '1 second', '{}')" >/dev/null
wait_for_log "with fetchq.log_level = log, the round is logged" 20 "$round_mark" "LOG:  $round_line"
psql -X -q -d postgres -c "ALTER SYSTEM RESET fetchq.log_level" -c "SELECT pg_reload_conf()" >/dev/null

wait_for_log "the launcher said it was shutting down" 10 "$launcher_mark" \
    "LOG:  fetchq launcher shutting down"
wait_for_log "... and that it started again" 30 "$launcher_mark" "LOG:  fetchq launcher started"

# --- an unplanned stop -----------------------------------------------------------
stop_mark=$(mark)
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = current_database()" >/dev/null
wait_for_log "a terminated scheduler says it is shutting down" 10 "$stop_mark" \
    "LOG:  $scheduler shutting down"
wait_for_log "... and, restarted, that it started" 30 "$stop_mark" "LOG:  $scheduler started"

# --- databases without the extension -------------------------------------------
db_mark=$(mark)
qdb postgres "CREATE DATABASE \"$bare\"" >/dev/null
qdb postgres "CREATE DATABASE \"$two\"" >/dev/null
qdb "$two" "SET client_min_messages = warning; CREATE EXTENSION fetchq" >/dev/null
wait_for_log "the scheduler of a second database started" 30 "$db_mark" \
    "LOG:  fetchq scheduler for database \"$two\" started"
wait_for_log "the one of a database without the extension says why it stops" 30 "$db_mark" \
    "LOG:  fetchq scheduler for database \"$bare\" will stop because extension \"fetchq\" is not installed"
one_row="SELECT string_agg(state || '/' || (task IS NULL)::text || '/' || (runs IS NULL)::text || '/' || (pid IS NULL)::text, ',') FROM fetchq.worker_status() WHERE datname ="
wait_for "worker_status: one row, with no task, for the database without the extension" 10 \
    "$one_row '$bare'" "no extension/true/true/true"

qdb "$two" "DROP EXTENSION fetchq CASCADE" >/dev/null
wait_for_log "DROP EXTENSION: the scheduler says it stops, and why" 30 "$db_mark" \
    "LOG:  fetchq scheduler for database \"$two\" will stop because extension \"fetchq\" was dropped"
wait_for "worker_status: one row, with no task, after DROP EXTENSION" 10 \
    "$one_row '$two'" "no extension/true/true/true"

# Every CREATE EXTENSION restarts the schedulers of the databases without it:
# those restarts say it at DEBUG1 only.
bare_started=$(q "SELECT started_at FROM fetchq.worker_status() WHERE datname = '$bare'")
qdb "$two" "SET client_min_messages = warning; CREATE EXTENSION fetchq" >/dev/null
wait_for "the database without the extension was looked at again" 30 \
    "SELECT state || '/' || (started_at > '$bare_started') FROM fetchq.worker_status() WHERE datname = '$bare'" \
    "no extension/true"
check "... without a second LOG line" \
    "$(count "$db_mark" "fetchq scheduler for database \"$bare\" will stop")" 1
wait_for_log "the second database's scheduler started again" 30 "$db_mark" \
    "LOG:  fetchq scheduler for database \"$two\" started" 2

qdb postgres "DROP DATABASE \"$two\"" >/dev/null
wait_for_log "DROP DATABASE: the scheduler says it stops, and why" 10 "$db_mark" \
    "LOG:  fetchq scheduler for database \"$two\" will stop because of DROP DATABASE"

# --- queues dropped while the scheduler works on them: nothing to report ------
# The scheduler lists the queues when a round starts, then maintains them in
# name order. aa_slow's trigger holds the round (until the test says go)
# while wl_gone_NN, listed after it with documents due meanwhile, are
# dropped: reaching them, the scheduler finds them gone and says nothing.
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL'
CREATE TABLE public.wl_go (go boolean);
CREATE FUNCTION public.wl_hold() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1..400 LOOP
        EXIT WHEN EXISTS (SELECT 1 FROM public.wl_go);
        PERFORM pg_sleep(0.05);
    END LOOP;
    RETURN NULL;
END $$;
SELECT fetchq.queue_create('wl_gone_' || i) FROM generate_series(10, 29) i;
SELECT fetchq.doc_push('wl_gone_' || i, 'due', 0, 0, now() + interval '3 seconds', '{}')
FROM generate_series(10, 29) i;
SELECT fetchq.queue_create('aa_slow');
CREATE TRIGGER wl_hold AFTER UPDATE ON fetchq_data.aa_slow__docs
    FOR EACH STATEMENT EXECUTE FUNCTION public.wl_hold();
SELECT fetchq.doc_push('aa_slow', 'due', 0, 0, now() + interval '1 second', '{}');
SQL
wait_for "the scheduler is held in aa_slow's maintenance" 30 \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler'
       AND datname = current_database() AND wait_event = 'PgSleep'" 1
wait_for "the documents of the queues listed after it are due" 30 \
    "SELECT max(next_iteration) <= now() FROM fetchq_data.wl_gone_29__docs" t
gone_mark=$(mark)
q "SELECT count(*) FROM (SELECT fetchq.queue_drop('wl_gone_' || i) FROM generate_series(10, 29) i) d" >/dev/null
released=$(q "SELECT now()")
q "INSERT INTO public.wl_go VALUES (true)" >/dev/null
wait_for "the scheduler finished that round" 30 \
    "SELECT bool_or(last_run > '$released') FROM fetchq.worker_status()
     WHERE datname = current_database() AND task = 'promote'" t
check "aa_slow's document was promoted after the hold" \
    "$(q "SELECT status FROM fetchq_data.aa_slow__docs")" 1
check "the queues dropped meanwhile: no failure logged" "$(count "$gone_mark" 'wl_gone_')" 0
q "SELECT fetchq.queue_drop('aa_slow'); DROP TABLE public.wl_go; DROP FUNCTION public.wl_hold()" >/dev/null

q "SELECT was_dropped FROM fetchq.queue_drop('wl')" >/dev/null
echo "worker logs test: $failures failure(s)"
[ "$failures" = 0 ]
