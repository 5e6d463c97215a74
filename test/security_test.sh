#!/usr/bin/env bash
# Attacks on fetchq by roles that hold exactly the documented grants, each
# performed for real against the running server; every one must fail.
#   sec_app:     docs/install.md's application grants, plus CREATE on schema
#                fetchq_data (it creates and owns a queue of its own) and a
#                schema of its own for its trigger functions;
#   sec_mallory: LOGIN, no grant on fetchq, CREATE on the database and on
#                schema public.
# Env: PGHOST PGPORT PGUSER (a superuser) of a server with
# shared_preload_libraries = 'fetchq'; $1: a database with the extension.
set -euo pipefail
db=$1
nomnt=${db}_nomnt
squat=${db}_squat

qdb() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
# as ROLE DB SQL: the statement's output, or its error (stderr), as text.
as() { psql -X -q -At -v ON_ERROR_STOP=1 -U "$1" -d "$2" -c "$3" 2>&1 || true; }

source "$(dirname "$0")/lib/checks.sh"
check_lacks() {
    if grep -Eq -- "$3" <<<"$2"; then fail "$1 (/$3/ in: $2)"; else ok "$1"; fi
}

cleanup() {
    psql -X -q -d postgres -c "ALTER SYSTEM RESET fetchq.task_timeout" -c "SELECT pg_reload_conf()" \
        >/dev/null 2>&1 || true
    for d in "$nomnt" "$squat"; do
        PGOPTIONS='-c client_min_messages=warning' psql -X -q -d postgres \
            -c "DROP DATABASE IF EXISTS \"$d\" WITH (FORCE)" >/dev/null 2>&1 || true
    done
    for d in "$db"; do
        psql -X -q -d "$d" -c "DROP OWNED BY sec_app, sec_mallory CASCADE" >/dev/null 2>&1 || true
    done
    psql -X -q -d postgres -c "DROP OWNED BY sec_app, sec_mallory CASCADE" >/dev/null 2>&1 || true
    psql -X -q -d postgres -c "DROP ROLE IF EXISTS sec_app" -c "DROP ROLE IF EXISTS sec_mallory" -c "DROP ROLE IF EXISTS sec_reader" \
        >/dev/null 2>&1 || true
}
trap cleanup EXIT
cleanup

psql -X -q -v ON_ERROR_STOP=1 -d postgres \
    -c "CREATE ROLE sec_app LOGIN" -c "CREATE ROLE sec_mallory LOGIN"

# app_setup DB: docs/install.md's grants for an application role, CREATE on
# fetchq_data, and schema sec_app for its own functions and tables.
app_setup() {
    psql -X -q -v ON_ERROR_STOP=1 -v dbname="$1" -d "$1" <<'SQL'
GRANT USAGE ON SCHEMA fetchq, fetchq_data TO sec_app;
GRANT SELECT ON fetchq.queues, fetchq.metrics TO sec_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA fetchq_data TO sec_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA fetchq_data TO sec_app;
GRANT CREATE ON SCHEMA fetchq_data TO sec_app;
CREATE SCHEMA sec_app AUTHORIZATION sec_app;
GRANT CREATE ON DATABASE :"dbname" TO sec_mallory;
GRANT CREATE ON SCHEMA public TO sec_mallory;
SQL
}
app_setup "$db"

# A queue of the superuser's that sec_app must not be able to touch, and a
# queue of sec_app's own with a trigger that records who runs it and tries
# to leave settings behind in whatever session runs it.
q "SELECT fetchq.queue_create('sec_victim')" >/dev/null
q "SELECT fetchq.queue_create('zz_victim')" >/dev/null
as sec_app "$db" "SELECT fetchq.queue_create('sec_appq')" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -U sec_app -d "$db" <<'SQL'
CREATE TABLE sec_app.seen (who name, at timestamptz DEFAULT now());
CREATE FUNCTION sec_app.leave_settings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO sec_app.seen (who) VALUES (current_user);
    -- a session that keeps these makes every later transaction read-only
    PERFORM set_config('default_transaction_read_only', 'on', false);
    PERFORM set_config('search_path', 'sec_app', false);
    RETURN NEW;
END $$;
CREATE TRIGGER leave_settings BEFORE UPDATE ON fetchq_data.sec_appq__docs
    FOR EACH ROW EXECUTE FUNCTION sec_app.leave_settings();
SQL

echo "--- 1. catalog tampering: the scheduler acts only on facts no role can forge"
out=$(as sec_app "$db" "UPDATE fetchq.queues SET owner_session = 42 WHERE name = 'sec_victim'")
check "sec_app cannot point owner_session of another's queue at a dead session" \
    "$(q "SELECT owner_session IS NULL FROM fetchq.queues WHERE name = 'sec_victim'")" t
as sec_app "$db" "UPDATE fetchq.queues SET max_attempts = 1, logs_retention = '1s' WHERE name = 'sec_victim'" >/dev/null
check "sec_app cannot change another's queue settings in the catalog" \
    "$(q "SELECT max_attempts || ' ' || logs_retention FROM fetchq.queues WHERE name = 'sec_victim'")" "5 24h"
as sec_app "$db" "UPDATE fetchq.jobs SET settings = '{\"delay\": \"nonsense\"}' WHERE queue IN ('sec_victim', '*')" >/dev/null
check "sec_app cannot change another's jobs, nor the global ones" \
    "$(q "SELECT count(*) FROM fetchq.jobs WHERE settings->>'delay' = 'nonsense'")" 0
as sec_app "$db" "DELETE FROM fetchq.queues WHERE name = 'sec_victim'" >/dev/null
check "sec_app cannot delete another's catalog row" \
    "$(q "SELECT count(*) FROM fetchq.queues WHERE name = 'sec_victim'")" 1
out=$(as sec_app "$db" "INSERT INTO fetchq.temporary_queues VALUES ('sec_victim', 42, 10)")
check_has "sec_app cannot register another's queue as temporary" "$out" "row-level security|permission denied"
for call in "queue_drop('sec_victim')" "queue_truncate('sec_victim')" \
    "queue_set_max_attempts('sec_victim', 1)" "queue_set_logs_retention('sec_victim', '1s')" \
    "queue_set_default_ttl('sec_victim', '1s')" "queue_drop_indexes('sec_victim')"; do
    out=$(as sec_app "$db" "SELECT fetchq.$call")
    # (a role with no privilege on any of the queue's tables is refused
    # before the owner's check: permission denied for queue)
    check_has "sec_app's $call is refused" "$out" \
        'must be owner of queue "sec_victim"|permission denied for queue "sec_victim"'
done
# sec_app still manages its own queue.
out=$(as sec_app "$db" "SELECT affected_rows FROM fetchq.queue_set_max_attempts('sec_appq', 3)")
check "sec_app changes its own queue" "$out" 1
# Rows for a name that has no tables yet: planted settings and jobs would be
# taken over by whoever creates that queue later. With the documented grants
# no role writes fetchq's catalog at all...
for sql in "INSERT INTO fetchq.queues (name, max_attempts, default_ttl) VALUES ('sec_future', 1, '1 second')" \
    "INSERT INTO fetchq.jobs (task, queue, next_iteration, settings) VALUES ('drp', 'sec_future', 'infinity', '{}')" \
    "UPDATE fetchq.queues SET max_attempts = 1" "DELETE FROM fetchq.jobs" \
    "UPDATE fetchq.counters SET cnt = 0" "INSERT INTO fetchq.streams (name, owner) VALUES ('s', 'sec_app')"; do
    check_has "sec_app cannot: ${sql:0:40}..." "$(as sec_app "$db" "$sql")" "permission denied for table"
done
# ... and the row security of fetchq.queues and fetchq.jobs still holds for a
# role that an administrator gives write privileges on them.
q "GRANT INSERT, UPDATE, DELETE ON fetchq.queues, fetchq.jobs TO sec_app;
   GRANT USAGE ON SEQUENCE fetchq.queues_id_seq, fetchq.jobs_id_seq TO sec_app" >/dev/null
out=$(as sec_app "$db" "INSERT INTO fetchq.queues (name, max_attempts, default_ttl) VALUES ('sec_future', 1, '1 second')")
check_has "sec_app cannot register a queue it has no tables for" "$out" "row-level security"
out=$(as sec_app "$db" "INSERT INTO fetchq.jobs (task, queue, next_iteration, settings) VALUES ('drp', 'sec_future', 'infinity', '{}')")
check_has "sec_app cannot plant jobs for a name it has no tables for" "$out" "row-level security"
out=$(as sec_app "$db" "INSERT INTO fetchq.jobs (task, queue, next_iteration, settings) VALUES ('lgp', '*', '-infinity', '{}')")
check_has "sec_app cannot plant global jobs" "$out" "row-level security|duplicate key"
as sec_app "$db" "INSERT INTO fetchq.jobs (task, queue, next_iteration, settings) VALUES ('lgp', 'sec_appq', '-infinity', '{}')" >/dev/null
check "a log-pack job sec_app plants on its own queue is never claimed by the scheduler" \
    "$(q "SELECT count(*) FROM fetchq.jobs WHERE task = 'lgp' AND queue = 'sec_appq' AND iterations > 0")" 0
# (in the session that owns the temporary queue: the scheduler drops it when
# that session ends)
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -U sec_app -d "$db" 2>&1 <<'SQL' || true
SELECT fetchq.queue_create_temporary() AS tmp \gset
UPDATE fetchq.queues SET name = 'sec_future' WHERE name = :'tmp';
SQL
)
check_has "sec_app cannot rename its temporary queue to a name another role will create" "$out" \
    "row-level security|violates foreign key"
q "REVOKE INSERT, UPDATE, DELETE ON fetchq.queues, fetchq.jobs FROM sec_app;
   REVOKE USAGE ON SEQUENCE fetchq.queues_id_seq, fetchq.jobs_id_seq FROM sec_app" >/dev/null
q "SELECT fetchq.queue_create('sec_future')" >/dev/null
# A catalog row whose tables were dropped by hand is nobody's any more: no
# role takes it over; and a superuser is warned about another role's queue.
q "SELECT fetchq.queue_create('sec_orphan_row')" >/dev/null
q "DROP TABLE fetchq_data.sec_orphan_row__docs, fetchq_data.sec_orphan_row__logs, fetchq_data.sec_orphan_row__metrics"
out=$(as sec_app "$db" "SELECT fetchq.queue_create('sec_orphan_row')")
check_has "sec_app cannot take over a catalog row whose tables were dropped" "$out" \
    'queue "sec_orphan_row" is registered but has no tables'
out=$(psql -X -q -At -d "$db" -c "SELECT was_created FROM fetchq.queue_create('sec_appq')" 2>&1)
check_has "a superuser's queue_create of sec_app's queue warns whose it is" "$out" \
    'WARNING:  queue "sec_appq" exists and belongs to role "sec_app"'
check "the queue created later has its own settings and jobs" \
    "$(q "SELECT max_attempts || ' ' || (default_ttl IS NULL) FROM fetchq.queues WHERE name = 'sec_future'") $(q "SELECT count(*) FROM fetchq.jobs WHERE queue = 'sec_future' AND next_iteration = 'infinity'")" \
    "5 true 0"
# A temporary queue of sec_app's, and a session that ends: the scheduler
# drops that queue, and nothing else.
tmp=$(as sec_app "$db" "SELECT fetchq.queue_create_temporary()")
check_has "sec_app creates a temporary queue" "$tmp" '^tmp_'
wait_for_in "the temporary queue of the ended session is dropped" 30 "$db" \
    "SELECT count(*) FROM fetchq.queues WHERE name = '$tmp'" 0
check "the scheduler did not drop the queue whose owner_session sec_app tried to forge" \
    "$(q "SELECT count(*) FROM fetchq.queues WHERE name = 'sec_victim'") $(q "SELECT to_regclass('fetchq_data.sec_victim__docs') IS NOT NULL")" "1 t"

echo "--- 2. settings of an owner's trigger stay in its own unit of work"
# sec_appq's document is due first: the scheduler runs the trigger, then
# must still promote zz_victim's document (a read-only session could not).
as sec_app "$db" "SELECT fetchq.doc_push('sec_appq', 'a1', 0, 0, clock_timestamp() + interval '1 second', '{}')" >/dev/null
q "SELECT fetchq.doc_push('zz_victim', 'v1', 0, 0, clock_timestamp() + interval '3 seconds', '{}')" >/dev/null
wait_for_in "the scheduler ran sec_appq's trigger" 20 "$db" \
    "SELECT status FROM fetchq_data.sec_appq__docs WHERE subject = 'a1'" 1
check "the trigger ran as sec_app, not as the scheduler's superuser" \
    "$(q "SELECT string_agg(DISTINCT who::text, ',') FROM sec_app.seen")" sec_app
wait_for_in "a later queue is still maintained (the trigger's settings did not stay)" 20 "$db" \
    "SELECT status FROM fetchq_data.zz_victim__docs WHERE subject = 'v1'" 1
q "SELECT fetchq.doc_push('zz_victim', 'v2', 0, 0, clock_timestamp() + interval '1 second', '{}')" >/dev/null
wait_for_in "... and in the next rounds too" 20 "$db" \
    "SELECT status FROM fetchq_data.zz_victim__docs WHERE subject = 'v2'" 1

# A trigger that sleeps, or keeps an advisory lock for the rest of the
# scheduler's life: bounded by fetchq.task_timeout, and dropped.
psql -X -q -v ON_ERROR_STOP=1 -U sec_app -d "$db" >/dev/null <<'SQL'
CREATE FUNCTION sec_app.stall() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.subject = 'slow' THEN PERFORM pg_sleep(60); END IF;
    IF NEW.subject = 'lock' THEN PERFORM pg_advisory_lock(424242); END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER stall BEFORE UPDATE ON fetchq_data.sec_appq__docs
    FOR EACH ROW EXECUTE FUNCTION sec_app.stall();
SQL
psql -X -q -d postgres -c "ALTER SYSTEM SET fetchq.task_timeout = '2s'" -c "SELECT pg_reload_conf()" >/dev/null
wait_applied fetchq.task_timeout 2000
as sec_app "$db" "SELECT fetchq.doc_push('sec_appq', 'lock', 0, 0, clock_timestamp() + interval '1 second', '{}')" >/dev/null
wait_for_in "the scheduler ran the trigger that takes an advisory lock" 20 "$db" \
    "SELECT status FROM fetchq_data.sec_appq__docs WHERE subject = 'lock'" 1
wait_for_in "... and does not keep the lock after the unit" 10 "$db" \
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 424242" 0
as sec_app "$db" "SELECT fetchq.doc_push('sec_appq', 'slow', 0, 0, clock_timestamp() + interval '1 second', '{}')" >/dev/null
q "SELECT fetchq.doc_push('zz_victim', 'v3', 0, 0, clock_timestamp() + interval '2 seconds', '{}')" >/dev/null
wait_for_in "a trigger that sleeps does not hold up the other queues (fetchq.task_timeout)" 15 "$db" \
    "SELECT status FROM fetchq_data.zz_victim__docs WHERE subject = 'v3'" 1
psql -X -q -d postgres -c "ALTER SYSTEM RESET fetchq.task_timeout" -c "SELECT pg_reload_conf()" >/dev/null
as sec_app "$db" "DROP TRIGGER stall ON fetchq_data.sec_appq__docs" >/dev/null

# A superuser's mnt_run_all / mnt in a database whose scheduler is off.
PGOPTIONS='-c client_min_messages=warning' psql -X -q -v ON_ERROR_STOP=1 -d postgres \
    -c "DROP DATABASE IF EXISTS \"$nomnt\"" -c "CREATE DATABASE \"$nomnt\"" \
    -c "ALTER DATABASE \"$nomnt\" SET fetchq.enabled = off"
qdb "$nomnt" "CREATE EXTENSION fetchq"
app_setup "$nomnt"
as sec_app "$nomnt" "SELECT fetchq.queue_create('sec_appq')" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -U sec_app -d "$nomnt" >/dev/null <<'SQL'
CREATE TABLE sec_app.seen (who name, at timestamptz DEFAULT now());
CREATE FUNCTION sec_app.leave_settings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO sec_app.seen (who) VALUES (current_user);
    PERFORM set_config('default_transaction_read_only', 'on', false);
    PERFORM set_config('work_mem', '64kB', false);
    RETURN NEW;
END $$;
CREATE TRIGGER leave_settings BEFORE UPDATE ON fetchq_data.sec_appq__docs
    FOR EACH ROW EXECUTE FUNCTION sec_app.leave_settings();
SELECT fetchq.doc_push('sec_appq', 'a1', 0, 0, now() + interval '1 hour', '{}');
SELECT fetchq.doc_push('sec_appq', 'a2', 0, 0, now() + interval '1 hour', '{}');
SQL
# due_now DB: sec_appq's planned documents become due (its triggers stay quiet).
due_now() {
    qdb "$1" "SET session_replication_role = replica;
              UPDATE fetchq_data.sec_appq__docs SET next_iteration = now() - interval '1 second'
              WHERE status = 0"
}
due_now "$nomnt"
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$nomnt" \
    -c "SELECT activated_count FROM fetchq.mnt_run_all(100) WHERE queue = 'sec_appq'" \
    -c "SHOW default_transaction_read_only" -c "SHOW work_mem" 2>&1 | tr '\n' ' ')
check "a superuser's mnt_run_all keeps none of the trigger's settings" "$out" "2 off 4MB "
check "mnt_run_all ran the owner's trigger as the owner" \
    "$(qdb "$nomnt" "SELECT string_agg(DISTINCT who::text, ',') FROM sec_app.seen")" sec_app
as sec_app "$nomnt" "SELECT fetchq.doc_push('sec_appq', 'a3', 0, 0, now() + interval '1 hour', '{}')" >/dev/null
qdb "$nomnt" "TRUNCATE sec_app.seen"
due_now "$nomnt"
qdb "$nomnt" "UPDATE fetchq.jobs SET next_iteration = now() - interval '1 second' WHERE queue = 'sec_appq'"
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$nomnt" -c "SELECT processed > 0 FROM fetchq.mnt()" \
    -c "SHOW default_transaction_read_only" 2>&1 | tr '\n' ' ')
check "a superuser's mnt() keeps none of the trigger's settings" "$out" "t off "
check "mnt() ran the owner's trigger as the owner" \
    "$(qdb "$nomnt" "SELECT string_agg(DISTINCT who::text, ',') FROM sec_app.seen")" sec_app
# Other calls a superuser makes on a queue: its owner's triggers run as the owner.
psql -X -q -v ON_ERROR_STOP=1 -U sec_app -d "$nomnt" >/dev/null <<'SQL'
CREATE FUNCTION sec_app.record_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO sec_app.seen (who) VALUES (current_user);
    RETURN NULL;
END $$;
CREATE TRIGGER record_snap AFTER INSERT ON fetchq_data.sec_appq__metrics
    FOR EACH STATEMENT EXECUTE FUNCTION sec_app.record_user();
CREATE TRIGGER record_logs AFTER DELETE ON fetchq_data.sec_appq__logs
    FOR EACH STATEMENT EXECUTE FUNCTION sec_app.record_user();
CREATE TRIGGER record_truncate AFTER TRUNCATE ON fetchq_data.sec_appq__docs
    FOR EACH STATEMENT EXECUTE FUNCTION sec_app.record_user();
SQL
qdb "$nomnt" "TRUNCATE sec_app.seen"
for call in "metric_snap('sec_appq')" "metric_snap('sec_appq', 'cnt')" \
    "queue_drop_logs('sec_appq', '0s')" "queue_truncate('sec_appq')"; do
    qdb "$nomnt" "SELECT fetchq.$call" >/dev/null
done
check "a superuser's metric_snap, queue_drop_logs and queue_truncate run the owner's triggers as the owner" \
    "$(qdb "$nomnt" "SELECT string_agg(DISTINCT who::text, ',') || ' ' || count(*) FROM sec_app.seen")" \
    "sec_app 4"
# trace() reads every queue: as each owner, even when a table was replaced by
# a view that calls the owner's function.
psql -X -q -v ON_ERROR_STOP=1 -U sec_app -d "$nomnt" >/dev/null <<'SQL'
CREATE FUNCTION sec_app.who_reads() RETURNS text LANGUAGE sql AS
    $$ INSERT INTO sec_app.seen (who) VALUES (current_user) RETURNING 'read' $$;
ALTER TABLE fetchq_data.sec_appq__logs RENAME TO sec_appq__logs_real;
CREATE VIEW fetchq_data.sec_appq__logs AS
    SELECT id, created_at, subject, sec_app.who_reads()::varchar AS message, details, ref_id
    FROM fetchq_data.sec_appq__logs_real;
INSERT INTO fetchq_data.sec_appq__logs_real (subject, message) VALUES ('a1', 'x');
SQL
qdb "$nomnt" "TRUNCATE sec_app.seen"
qdb "$nomnt" "SELECT count(*) FROM fetchq.trace('a1')" >/dev/null
check "a superuser's trace reads each queue as its owner" \
    "$(qdb "$nomnt" "SELECT string_agg(DISTINCT who::text, ',') FROM sec_app.seen")" sec_app
# metric_reset rewrites counters and locks the documents: it takes UPDATE.
psql -X -q -d "$nomnt" -c "CREATE ROLE sec_reader" -c "GRANT USAGE ON SCHEMA fetchq, fetchq_data TO sec_reader" \
    -c "GRANT SELECT ON ALL TABLES IN SCHEMA fetchq, fetchq_data TO sec_reader" >/dev/null 2>&1 || true
out=$(psql -X -q -At -d "$nomnt" -c "SET ROLE sec_reader" -c "SELECT * FROM fetchq.metric_reset('sec_appq')" 2>&1 || true)
check_has "a role that may only read a queue cannot reset its counters" "$out" "permission denied"
psql -X -q -d "$nomnt" -c "DROP OWNED BY sec_reader" -c "DROP ROLE sec_reader" >/dev/null 2>&1 || true
out=$(as sec_mallory "$nomnt" "SELECT * FROM fetchq.mnt_run('sec_appq', 10)")
check_has "a role without grants cannot run maintenance" "$out" "permission denied"

echo "--- 3. schema squatting before CREATE EXTENSION"
for schema in fetchq fetchq_data; do
    PGOPTIONS='-c client_min_messages=warning' psql -X -q -v ON_ERROR_STOP=1 -d postgres \
        -c "DROP DATABASE IF EXISTS \"$squat\"" -c "CREATE DATABASE \"$squat\"" \
        -c "GRANT CREATE ON DATABASE \"$squat\" TO sec_mallory"
    as sec_mallory "$squat" "CREATE SCHEMA $schema" >/dev/null
    # mallory's bait: an operator that a name check in the script would pick
    psql -X -q -U sec_mallory -d "$squat" >/dev/null 2>&1 <<SQL || true
CREATE FUNCTION $schema.bait(varchar, text) RETURNS boolean LANGUAGE sql
    AS 'SELECT true';
CREATE OPERATOR $schema.~ (LEFTARG = varchar, RIGHTARG = text, FUNCTION = $schema.bait);
SQL
    out=$(psql -X -q -v ON_ERROR_STOP=1 -d "$squat" -c "CREATE EXTENSION fetchq" 2>&1 || true)
    check_has "CREATE EXTENSION refuses schema $schema made by sec_mallory" "$out" \
        "schema \"$schema\" .*owned by role \"sec_mallory\""
    check_has "... and says what to do" "$out" "HINT: .*drop or rename it"
    check "... and installs nothing" \
        "$(qdb "$squat" "SELECT count(*) FROM pg_extension WHERE extname = 'fetchq'")" 0
done
PGOPTIONS='-c client_min_messages=warning' psql -X -q -d postgres \
    -c "DROP DATABASE IF EXISTS \"$squat\"" -c "CREATE DATABASE \"$squat\"" >/dev/null
qdb "$squat" "CREATE SCHEMA fetchq; GRANT CREATE ON SCHEMA fetchq TO sec_mallory"
out=$(psql -X -q -v ON_ERROR_STOP=1 -d "$squat" -c "CREATE EXTENSION fetchq" 2>&1 || true)
check_has "CREATE EXTENSION refuses a schema fetchq that sec_mallory may create objects in" \
    "$out" 'lets role "sec_mallory" create objects'
qdb "$squat" "REVOKE CREATE ON SCHEMA fetchq FROM sec_mallory; GRANT CREATE ON SCHEMA fetchq TO sec_mallory"
as sec_mallory "$squat" "CREATE FUNCTION fetchq.planted_before() RETURNS int LANGUAGE sql AS 'SELECT 1'" >/dev/null
qdb "$squat" "REVOKE CREATE ON SCHEMA fetchq FROM sec_mallory"
out=$(psql -X -q -v ON_ERROR_STOP=1 -d "$squat" -c "CREATE EXTENSION fetchq" 2>&1 || true)
check_has "CREATE EXTENSION refuses a schema fetchq that holds objects sec_mallory made there" \
    "$out" 'holds 1 object\(s\) of other roles, such as role "sec_mallory"'
qdb "$squat" "DROP FUNCTION fetchq.planted_before()"
check "CREATE EXTENSION works once the schema is gone" \
    "$(qdb "$squat" "DROP SCHEMA fetchq; CREATE EXTENSION fetchq;
                     SELECT nspowner::regrole FROM pg_namespace WHERE nspname = 'fetchq'" 2>&1)" \
    postgres
out=$(as sec_mallory "$squat" "CREATE FUNCTION fetchq.planted() RETURNS int LANGUAGE sql AS 'SELECT 1'")
check_has "sec_mallory cannot plant objects in the installed schemas" "$out" "permission denied"

echo "--- 4. a role's own errors keep their message"
psql -X -q -v ON_ERROR_STOP=1 -U sec_app -d "$db" >/dev/null <<'SQL'
CREATE TABLE sec_app.audit (subject text);
CREATE FUNCTION sec_app.audit_push() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audit (subject) VALUES (NEW.subject);  -- unqualified: not found
    RETURN NEW;
END $$;
SELECT fetchq.queue_create('sec_audited');
CREATE TRIGGER audit_push BEFORE INSERT ON fetchq_data.sec_audited__docs
    FOR EACH ROW EXECUTE FUNCTION sec_app.audit_push();
SQL
out=$(psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -U sec_app -d "$db" \
    -c "\\set VERBOSITY verbose" -c "SELECT fetchq.doc_push('sec_audited', 's1', 0, 0, now(), '{}')" 2>&1 || true)
check_has "the trigger's own error comes back" "$out" 'ERROR:  42P01: relation "audit" does not exist'
check_lacks "... not as a missing queue" "$out" 'queue "sec_audited" does not exist'
check_has "... with a context line naming the queue" "$out" 'fetchq queue "sec_audited"'
out=$(as sec_app "$db" "SELECT fetchq.doc_push('sec_nosuch', 's1', 0, 0, now(), '{}')")
check_has "a missing queue still says so" "$out" 'queue "sec_nosuch" does not exist'
out=$(psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "SELECT fetchq.queue_create('sec_gone')" \
    -c "SELECT fetchq.doc_push('sec_gone', 's1', 0, 0, now(), '{}')" \
    -c "DROP TABLE fetchq_data.sec_gone__docs" \
    -c "SELECT fetchq.doc_push('sec_gone', 's2', 0, 0, now(), '{}')" 2>&1 || true)
check_has "a queue whose table was dropped after its statement was prepared says so" "$out" \
    'queue "sec_gone" does not exist'

echo
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "every attack failed"
