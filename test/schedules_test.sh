#!/usr/bin/env bash
# Periodic schedules (issue 33), against a running server with the scheduler:
# bad input refused with nothing created; an interval schedule pushing a
# document per tick, each subject made from its tick; a cron schedule's
# first tick; pause and resume; catch_up 'none' and 'all' after missed ticks;
# rights (push needed, only the owner or the queue's owner manage it, a
# schedule whose owner lost push pushes nothing, the owner's triggers run as
# the owner); the schedules go with their queue. "Nothing was pushed" is
# checked after another schedule was seen ticking meanwhile, never after a
# fixed sleep.
# Env: PGHOST (the cluster's directory, which holds server.log) PGPORT PGUSER
# (a superuser); $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

err() {
    psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c '\set VERBOSITY verbose' -c "$1" 2>&1 |
        sed -n 's/^ERROR:  \([0-9A-Z]*\): \(.*\)$/\1 \2/p' | head -1
}
as_role() {
    psql -X -q -At -U "$1" -d "$db" -c '\set VERBOSITY verbose' -c "$2" 2>&1 |
        sed -n 's/^ERROR:  \([0-9A-Z]*\): \(.*\)$/\1 \2/p;/^ERROR\|^DETAIL\|^HINT\|^LOCATION\|^CONTEXT/!p' | head -1
}
roles="sc_app sc_other"
cleanup() {
    psql -X -q -d "$db" -c "ALTER SYSTEM RESET fetchq.naptime" -c "ALTER SYSTEM RESET fetchq.enabled" \
        -c "SELECT pg_reload_conf()" >/dev/null 2>&1 || true
    for r in $roles; do
        psql -X -q -d "$db" -c "DROP OWNED BY $r CASCADE" >/dev/null 2>&1 || true
        psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT
cleanup
docs() { q "SELECT count(*) FROM fetchq_data.$1__docs"; }
# ticked NAME: waits until schedule NAME pushed once more than now.
ticked() {
    local before
    before=$(q "SELECT coalesce(extract(epoch FROM last_at)::text, '') FROM fetchq.schedules WHERE name = '$1'")
    wait_for "schedule $1 ticks again" 30 \
        "SELECT coalesce(extract(epoch FROM last_at)::text, '') <> '$before' FROM fetchq.schedules WHERE name = '$1'" t
}

q "SELECT fetchq.queue_create('sq'); SELECT fetchq.queue_create('sq_clock')" >/dev/null

echo "# bad input: a clear error, nothing created"
check "an invalid cron expression" "$(err "SELECT fetchq.schedule_create('s1', 'sq', '61 * * * *', 'x')")" \
    '22023 invalid cron expression "61 * * * *"'
check "an interval under one second" "$(err "SELECT fetchq.schedule_create('s1', 'sq', '500 milliseconds', 'x')")" \
    '22023 argument every must be at least 1 second'
check "an unknown time zone" \
    "$(err "SELECT fetchq.schedule_create('s1', 'sq', '@daily', 'x', timezone => 'Mars/Olympus')")" \
    '22023 time zone "Mars/Olympus" not recognized'
check "an unknown catch_up" \
    "$(err "SELECT fetchq.schedule_create('s1', 'sq', '@daily', 'x', catch_up => 'some')")" \
    "22023 argument catch_up must be 'none' or 'all'"
check "a missing queue" "$(err "SELECT fetchq.schedule_create('s1', 'sq_nope', '@daily', 'x')")" '42704 queue "sq_nope" does not exist'
check "a subject too long with its tick" \
    "$(err "SELECT fetchq.schedule_create('s1', 'sq', '@daily', repeat('s', 31))" | cut -c1-5)" 22001
check "nothing was created" "$(q "SELECT count(*) FROM fetchq.periodic_schedules")" 0
check "a cron schedule's first tick is the next minute (UTC)" \
    "$(q "SELECT fetchq.schedule_create('s_cron', 'sq', '* * * * *', 'c-{tick}', timezone => 'UTC')
            = date_trunc('minute', now()) + interval '1 minute'")" t
check "a duplicate name" "$(err "SELECT fetchq.schedule_create('s_cron', 'sq', '@daily', 'x')")" \
    '42710 schedule "s_cron" already exists'
q "SELECT fetchq.schedule_drop('s_cron')" >/dev/null

echo "# the scheduler wakes for each tick, however long its naptime"
q "ALTER SYSTEM SET fetchq.naptime = '10min'" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
wait_applied fetchq.naptime 600000
q "SELECT fetchq.queue_create('sq_wake');
   SELECT fetchq.schedule_create('wake', 'sq_wake', '1 second', 'w')" >/dev/null
wait_for "three ticks pushed, though rounds may be 10 minutes apart" 30 \
    "SELECT count(*) >= 3 FROM fetchq_data.sq_wake__docs" t
q "SELECT fetchq.schedule_drop('wake')" >/dev/null
q "ALTER SYSTEM RESET fetchq.naptime" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
wait_applied fetchq.naptime 10000

echo "# an interval schedule pushes a document per tick"
q "SELECT fetchq.schedule_create('clock', 'sq_clock', '1 second', 'tick', '{\"k\": 1}', priority => 3)" >/dev/null
wait_for "it pushed two documents" 30 "SELECT count(*) >= 2 FROM fetchq_data.sq_clock__docs" t
check "their subjects: the template and the tick in ISO 8601 UTC" \
    "$(q "SELECT bool_and(subject ~ '^tick-\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$') FROM fetchq_data.sq_clock__docs")" t
check "each due at its tick, with the payload and priority given" \
    "$(q "SELECT bool_and(to_char(next_iteration AT TIME ZONE 'UTC', '\"tick-\"YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') = subject
                 AND payload = '{\"k\": 1}' AND priority = 3) FROM fetchq_data.sq_clock__docs")" t
check "fetchq.schedules shows it" \
    "$(q "SELECT every || ' ' || paused || ' ' || (next_at > last_at) || ' ' || (last_subject LIKE 'tick-%') FROM fetchq.schedules WHERE name = 'clock'")" \
    "00:00:01 false true true"

echo "# pause and resume"
q "SELECT fetchq.schedule_create('paused', 'sq', '1 second', 'p-{tick}')" >/dev/null
wait_for "the second schedule pushes" 30 "SELECT count(*) > 0 FROM fetchq_data.sq__docs" t
check "schedule_pause" "$(q "SELECT fetchq.schedule_pause('paused')")" t
n=$(docs sq)
ticked clock
ticked clock
check "a paused schedule pushes nothing (while another ticked twice)" "$(docs sq)" "$n"
check "schedule_resume returns its next tick, after now" "$(q "SELECT fetchq.schedule_resume('paused') > now()")" t
wait_for "once resumed, it pushes again" 30 "SELECT count(*) > $n FROM fetchq_data.sq__docs" t
q "SELECT fetchq.schedule_drop('paused')" >/dev/null

echo "# missed ticks: catch_up 'none' pushes the latest, 'all' every one"
q "SELECT fetchq.queue_create('sq_none'); SELECT fetchq.queue_create('sq_all');
   SELECT fetchq.schedule_create('s_none', 'sq_none', '1 hour', 'h');
   SELECT fetchq.schedule_create('s_all', 'sq_all', '1 hour', 'h', catch_up => 'all');
   UPDATE fetchq.periodic_schedules SET next_at = date_trunc('hour', now()) - interval '3 hours'
   WHERE name IN ('s_none', 's_all')" >/dev/null
wait_for "'all' pushes the 4 ticks missed" 30 "SELECT count(*) FROM fetchq_data.sq_all__docs" 4
wait_for "'none' pushes only the latest" 30 "SELECT count(*) FROM fetchq_data.sq_none__docs" 1
check "... the latest one" \
    "$(q "SELECT next_iteration = date_trunc('hour', now()) FROM fetchq_data.sq_none__docs")" t
check "both go on at the next hour" \
    "$(q "SELECT bool_and(next_at = date_trunc('hour', now()) + interval '1 hour') FROM fetchq.schedules WHERE name IN ('s_none', 's_all')")" t

echo "# a cron schedule 150 days behind: its 216,000 missed minutes walked over several rounds, each counted"
q "SELECT fetchq.queue_create('sq_cron_none'); SELECT fetchq.queue_create('sq_cron_all');
   SELECT fetchq.schedule_create('s_cron_none', 'sq_cron_none', '* * * * *', 'm', timezone => 'UTC');
   SELECT fetchq.schedule_create('s_cron_all', 'sq_cron_all', '* * * * *', 'm', catch_up => 'all', timezone => 'UTC');
   UPDATE fetchq.periodic_schedules SET next_at = date_trunc('minute', now()) - interval '150 days'
   WHERE name IN ('s_cron_none', 's_cron_all')" >/dev/null
behind=$(q "SELECT date_trunc('minute', now()) - interval '150 days'")
wait_for "'none' pushes one document" 60 "SELECT count(*) FROM fetchq_data.sq_cron_none__docs" 1
wait_for "'all' pushes the latest 1,000" 60 "SELECT count(*) FROM fetchq_data.sq_cron_all__docs" 1000
check "'none' pushed its latest tick and counts every earlier one as skipped" \
    "$(q "SELECT d.next_iteration = s.last_at AND s.next_at = s.last_at + interval '1 minute'
          AND s.ticks_skipped = extract(epoch FROM s.last_at - '$behind'::timestamptz) / 60
          FROM fetchq_data.sq_cron_none__docs d, fetchq.periodic_schedules s WHERE s.name = 's_cron_none'")" t
check "'all' pushed the 1,000 latest, one a minute, and counts the others as skipped" \
    "$(q "SELECT max(d.next_iteration) = s.last_at AND min(d.next_iteration) = s.last_at - interval '999 minutes'
          AND s.ticks_skipped + s.ticks_pushed = extract(epoch FROM s.last_at - '$behind'::timestamptz) / 60 + 1
          FROM fetchq_data.sq_cron_all__docs d, fetchq.periodic_schedules s WHERE s.name = 's_cron_all'
          GROUP BY s.last_at, s.ticks_skipped, s.ticks_pushed")" t
q "SELECT fetchq.schedule_drop('s_cron_none'); SELECT fetchq.schedule_drop('s_cron_all')" >/dev/null

echo "# rights"
q "CREATE ROLE sc_app LOGIN; CREATE ROLE sc_other LOGIN;
   GRANT USAGE ON SCHEMA fetchq, fetchq_data TO sc_app, sc_other;
   GRANT SELECT ON fetchq.queues, fetchq.metrics TO sc_app, sc_other;
   GRANT CREATE ON SCHEMA fetchq_data TO sc_app" >/dev/null
check "sc_app creates a queue" "$(as_role sc_app "SELECT was_created FROM fetchq.queue_create('sq_app')")" t
# The owner's trigger notes who runs it.
psql -X -q -U sc_app -d "$db" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TABLE fetchq_data.sq_app_seen (who name);
CREATE FUNCTION fetchq_data.sq_app_note() RETURNS trigger LANGUAGE plpgsql AS
  'BEGIN INSERT INTO fetchq_data.sq_app_seen VALUES (current_user); RETURN NEW; END';
CREATE TRIGGER sq_app_note AFTER INSERT ON fetchq_data.sq_app__docs
  FOR EACH ROW EXECUTE FUNCTION fetchq_data.sq_app_note();
SQL
check "a role without push on the queue cannot schedule into it" \
    "$(as_role sc_other "SELECT fetchq.schedule_create('s_other', 'sq_app', '1 second', 'o')")" \
    '42501 permission denied for queue "sq_app"'
check "sc_app grants push to sc_other" \
    "$(as_role sc_app "SELECT fetchq.queue_grant('sq_app', 'sc_other', 'push')")" "{push}"
check "with push (a queue grant) it can" \
    "$(as_role sc_other "SELECT fetchq.schedule_create('s_other', 'sq_app', '1 second', 'o') > now()")" t
wait_for "the schedule pushes" 30 "SELECT count(*) > 0 FROM fetchq_data.sq_app__docs" t
check "the queue owner's trigger ran as that owner, never as the scheduler's superuser" \
    "$(q "SELECT string_agg(DISTINCT who::text, ',') FROM fetchq_data.sq_app_seen")" sc_app
check "the schedule's owner is its creator" "$(q "SELECT owner FROM fetchq.schedules WHERE name = 's_other'")" sc_other
check "another role cannot drop it" "$(as_role sc_other "SELECT fetchq.schedule_drop('clock')")" \
    '42501 permission denied for schedule "clock"'
check "no role writes the catalog by hand" \
    "$(as_role sc_other "UPDATE fetchq.periodic_schedules SET owner = 'sc_other'" | cut -c1-5)" 42501
check "sc_app revokes sc_other's push" \
    "$(as_role sc_app "SELECT fetchq.queue_revoke('sq_app', 'sc_other', 'push')")" "{}"
q "SELECT fetchq.schedule_pause('clock'); SELECT fetchq.schedule_resume('clock')" >/dev/null
ticked clock
n=$(docs sq_app)
ticked clock
ticked clock
check "a schedule whose owner lost push pushes nothing" "$(docs sq_app)" "$n"
# The scheduler says so at WARNING (once a minute), naming schedule and queue.
warning="WARNING:  fetchq: schedule \"s_other\" in database \"$db\" failed: schedule \"s_other\" pushes nothing: its owner may no longer push into queue \"sq_app\""
deadline=$((SECONDS + 30))
until grep -qF "$warning" "$PGHOST/server.log" || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
check "the server log warns that it pushes nothing" "$(grep -qF "$warning" "$PGHOST/server.log" && echo yes)" yes
status() { q "SELECT $1 FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'schedules'"; }
check "worker_status: task schedules fails now, quoting the schedule" \
    "$(status "errors > 0 AND last_error LIKE '%schedule \"s_other\" pushes nothing%' AND recovered_at IS NULL")" t
check "... counts the documents its ticks pushed and knows the next tick" \
    "$(status "rows_total > 0 AND next_due IS NOT NULL")" t
check "the queue's owner may pause it" "$(as_role sc_app "SELECT fetchq.schedule_pause('s_other')")" t
wait_for "worker_status: paused, it fails no more (recovered_at set)" 30 \
    "SELECT recovered_at > last_error_at FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'schedules'" t

echo "# each tick once, across a scheduler restart and fetchq.enabled off and on"
q "SELECT fetchq.queue_create('sq_once');
   SELECT fetchq.schedule_create('once', 'sq_once', '1 second', 'o-{tick}', catch_up => 'all')" >/dev/null
wait_for "the schedule ticks" 30 "SELECT count(*) >= 2 FROM fetchq_data.sq_once__docs" t
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
   WHERE backend_type = 'fetchq scheduler' AND datname = current_database()" >/dev/null
stopped=$(q "SELECT count(*) FROM fetchq_data.sq_once__docs")
wait_for "the launcher starts the scheduler again, which pushes the ticks missed" 90 \
    "SELECT count(*) > $stopped + 2 FROM fetchq_data.sq_once__docs" t
q "ALTER SYSTEM SET fetchq.enabled = off" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
wait_applied fetchq.enabled off
off_at=$(q "SELECT now()")
wait_for "three ticks pass while it is off" 30 "SELECT now() > '$off_at'::timestamptz + interval '3 seconds'" t
q "ALTER SYSTEM RESET fetchq.enabled" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
wait_for "on again, it pushes the ticks of the pause" 30 \
    "SELECT max(next_iteration) > '$off_at'::timestamptz + interval '3 seconds' FROM fetchq_data.sq_once__docs" t
check "ticks_pushed counts the documents, in the same snapshot" \
    "$(q "SELECT (SELECT ticks_pushed FROM fetchq.schedules WHERE name = 'once')
               = (SELECT count(*) FROM fetchq_data.sq_once__docs)")" t
q "SELECT fetchq.schedule_drop('once')" >/dev/null
check "every tick from the first to the last, each once" \
    "$(q "SELECT count(*) = extract(epoch FROM max(next_iteration) - min(next_iteration)) + 1
                 AND count(DISTINCT next_iteration) = count(*)
          FROM fetchq_data.sq_once__docs")" t

echo "# a schedule goes with its queue"
q "SELECT fetchq.queue_drop('sq_app')" >/dev/null
check "dropping the queue dropped its schedule" \
    "$(q "SELECT count(*) FROM fetchq.periodic_schedules WHERE name = 's_other'")" 0
for s in clock s_none s_all; do q "SELECT fetchq.schedule_drop('$s')" >/dev/null; done
check "schedule_drop of a missing one" "$(err "SELECT fetchq.schedule_drop('clock')")" \
    '42704 schedule "clock" does not exist'

exit $((failures > 0))
