#!/usr/bin/env bash
# Checks what fetchq's notification triggers send: the channels and payloads
# received by a session that LISTENs while it creates a queue, enables its
# notifications and moves documents, and by a second session listening on
# one channel. The varying parts (PIDs, timestamps, ids) are left out.
# Then fetchq.notify_document_data = off: empty payloads on the per-queue
# channels, from a session's SET and from ALTER DATABASE ... SET (in a new
# session and in the scheduler's promotions); no SET of it by a non-superuser.
#
#   PGHOST=... PGPORT=... PGUSER=... test/notify_test.sh DBNAME
#
# DBNAME must have the extension (CREATE EXTENSION fetchq). The test uses the
# queue notify_test_q, drops it when it exists, and drops it at the end; the
# role notify_test_user, dropped at the end; it sets and resets
# fetchq.notify_document_data on DBNAME and restarts DBNAME's scheduler.
# Exits 0 when everything matched, 1 on a mismatch, another non-zero status
# when it could not run (2: usage, no extension).
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: PGHOST=... PGPORT=... PGUSER=... $0 DBNAME" >&2
    exit 2
fi
db=$1
q=notify_test_q
user=notify_test_user
tmp=$(mktemp -d)
listener_pid=
# The listener stops within 0.1 s once "done" exists (at most 30 s anyway).
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    touch "$tmp/done"
    if [ -n "$listener_pid" ]; then wait "$listener_pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
    psql -X -q -d postgres -c "ALTER DATABASE \"$db\" RESET fetchq.notify_document_data" \
        -c "DROP ROLE IF EXISTS $user" >/dev/null 2>&1 || true
}
trap cleanup EXIT

# Every psql is bounded in time; results go nowhere, notifications are kept.
psql_run() { timeout 60 psql -X -q -t -A -v ON_ERROR_STOP=1 -d "$db" "$@"; }

# 'Asynchronous notification "CH" with payload "P" received from server
# process with PID N.' -> 'CH|P'; psql leaves an empty payload out: 'CH|'.
notifications() {
    sed -n -e 's/^Asynchronous notification "\([^"]*\)" with payload "\(.*\)" received from server process with PID [0-9]*\.$/\1|\2/p' \
        -e 's/^Asynchronous notification "\([^"]*\)" received from server process with PID [0-9]*\.$/\1|/p'
}

# fetchq_on_change payloads are JSON: checked by PostgreSQL's parser, then
# reduced to their stable fields.
describe_change() {
    psql_run -v "p=$1" <<'SQL'
SELECT format('%s %s.%s new=%s old=%s', j->>'operation', j->>'schema', j->>'table',
    COALESCE((j->'new_data'->>'name') || '/' || (j->'new_data'->>'max_attempts'), 'null'),
    COALESCE((j->'old_data'->>'name') || '/' || (j->'old_data'->>'max_attempts'), 'null'))
FROM (SELECT :'p'::json AS j) AS s
WHERE (j->>'timestamp')::timestamptz IS NOT NULL AND json_typeof(j->'new_data') IN ('object', 'null');
SQL
}

fail() {
    echo "FAIL: $1" >&2
    exit 1
}

if [ "$(psql_run -c "SELECT count(*) FROM pg_extension WHERE extname = 'fetchq'")" != 1 ]; then
    echo "database $db has no fetchq extension (CREATE EXTENSION fetchq)" >&2
    exit 2
fi
psql_run -c "SELECT fetchq.queue_drop(name) FROM fetchq.queues WHERE name = '$q'" >/dev/null

# A second session listening on the pending channel until the writer is done.
psql_run >"$tmp/listener.out" 2>&1 <<SQL &
LISTEN fetchq__${q}__pnd;
\! touch $tmp/ready
\! i=0; while [ ! -f $tmp/done ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done
SELECT 1;
SQL
listener_pid=$!
for _ in $(seq 300); do [ -f "$tmp/ready" ] && break; sleep 0.1; done
[ -f "$tmp/ready" ] || fail "the listener session did not start"

psql_run >"$tmp/writer.out" 2>&1 <<SQL || { cat "$tmp/writer.out" >&2; fail "the writer session failed"; }
LISTEN fetchq_on_change;
LISTEN fetchq__${q}__pln;
LISTEN fetchq__${q}__pnd;
LISTEN fetchq__${q}__act;
LISTEN fetchq__${q}__cpl;
LISTEN fetchq__${q}__kll;
SELECT was_created FROM fetchq.queue_create('$q');
SELECT success FROM fetchq.queue_enable_notify('$q');
SELECT fetchq.doc_push('$q', 'a1');
SELECT fetchq.doc_push('$q', 'it''s "b" \ ü', '{"x": 1}');
SELECT fetchq.doc_push('$q', 'later', 0, 0, now() + interval '1 hour', '{}');
SELECT subject FROM fetchq.doc_pick('$q', 0, 1, '5m');
SELECT subject FROM fetchq.doc_pick('$q', 0, 1, '5m');
SELECT fetchq.doc_complete('$q', 'a1');
SELECT fetchq.doc_reschedule('$q', 'it''s "b" \ ü', now() + interval '1 hour');
SELECT fetchq.doc_push('$q', 'c');
SELECT subject FROM fetchq.doc_pick('$q', 0, 1, '5m');
SELECT fetchq.doc_kill('$q', 'c');
SELECT fetchq.doc_push_many('$q', ARRAY['m1', 'm2']);
BEGIN;
SELECT fetchq.doc_push('$q', 'rolled back');
ROLLBACK;
UPDATE fetchq.queues SET max_attempts = 3 WHERE name = '$q';
SELECT success FROM fetchq.queue_disable_notify('$q');
SELECT fetchq.doc_push('$q', 'silent');
SELECT was_dropped FROM fetchq.queue_drop('$q');
SQL
touch "$tmp/done"
wait "$listener_pid" || fail "the listener session failed: $(cat "$tmp/listener.out")"
listener_pid=

# The writer's notifications, with the JSON ones described.
: >"$tmp/writer.got"
while IFS= read -r line; do
    channel=${line%%|*}
    payload=${line#*|}
    if [ "$channel" = fetchq_on_change ]; then
        described=$(describe_change "$payload") || fail "invalid JSON payload: $payload"
        [ -n "$described" ] || fail "unexpected JSON payload: $payload"
        payload=$described
    fi
    printf '%s|%s\n' "$channel" "$payload" >>"$tmp/writer.got"
done < <(notifications <"$tmp/writer.out")

cat >"$tmp/writer.expected" <<EOF
fetchq_on_change|INSERT fetchq.queues new=$q/5 old=null
fetchq__${q}__pnd|a1
fetchq__${q}__pnd|it's "b" \ ü
fetchq__${q}__pln|later
fetchq__${q}__act|a1
fetchq__${q}__act|it's "b" \ ü
fetchq__${q}__cpl|a1
fetchq__${q}__pln|it's "b" \ ü
fetchq__${q}__pnd|c
fetchq__${q}__act|c
fetchq__${q}__kll|c
fetchq__${q}__pnd|m1
fetchq__${q}__pnd|m2
fetchq_on_change|UPDATE fetchq.queues new=$q/3 old=$q/5
fetchq_on_change|DELETE fetchq.queues new=null old=$q/3
EOF

notifications <"$tmp/listener.out" >"$tmp/listener.got"
cat >"$tmp/listener.expected" <<EOF
fetchq__${q}__pnd|a1
fetchq__${q}__pnd|it's "b" \ ü
fetchq__${q}__pnd|c
fetchq__${q}__pnd|m1
fetchq__${q}__pnd|m2
EOF

status=0
for who in writer listener; do
    if diff -u "$tmp/$who.expected" "$tmp/$who.got" >"$tmp/$who.diff"; then
        echo "ok: $who session received $(wc -l <"$tmp/$who.got") notifications as expected:"
        sed 's/^/    /' "$tmp/$who.got"
    else
        echo "FAIL: $who session notifications differ (expected vs got):" >&2
        cat "$tmp/$who.diff" >&2
        status=1
    fi
done

# ------------------------------------------ fetchq.notify_document_data = off

# check DESCRIPTION EXPECTED-FILE GOT-FILE
check() {
    if diff -u "$2" "$3" >"$tmp/check.diff"; then
        echo "ok: $1:"
        sed 's/^/    /' "$3"
    else
        echo "FAIL: $1 (expected vs got):" >&2
        cat "$tmp/check.diff" >&2
        status=1
    fi
}

# A session's SET (by a superuser): the same kinds of moves, no subject in any
# payload until RESET. PostgreSQL folds identical notifications of one
# transaction into one: the two documents of doc_push_many give one empty pnd.
psql_run >"$tmp/off.out" 2>&1 <<SQL || { cat "$tmp/off.out" >&2; fail "the session with the setting off failed"; }
LISTEN fetchq__${q}__pln;
LISTEN fetchq__${q}__pnd;
LISTEN fetchq__${q}__act;
LISTEN fetchq__${q}__cpl;
LISTEN fetchq__${q}__kll;
SELECT was_created FROM fetchq.queue_create('$q');
SELECT success FROM fetchq.queue_enable_notify('$q');
SET fetchq.notify_document_data = off;
SELECT fetchq.doc_push('$q', 'secret1');
SELECT subject FROM fetchq.doc_pick('$q', 0, 1, '5m');
SELECT fetchq.doc_complete('$q', 'secret1');
SELECT fetchq.doc_push('$q', 'secret2', 0, 0, now() + interval '1 hour', '{}');
SELECT fetchq.doc_push('$q', 'secret3');
SELECT subject FROM fetchq.doc_pick('$q', 0, 1, '5m');
SELECT fetchq.doc_kill('$q', 'secret3');
SELECT fetchq.doc_push_many('$q', ARRAY['secret4', 'secret5']);
RESET fetchq.notify_document_data;
SELECT fetchq.doc_push('$q', 'visible');
SQL
notifications <"$tmp/off.out" >"$tmp/off.got"
cat >"$tmp/off.expected" <<EOF
fetchq__${q}__pnd|
fetchq__${q}__act|
fetchq__${q}__cpl|
fetchq__${q}__pln|
fetchq__${q}__pnd|
fetchq__${q}__act|
fetchq__${q}__kll|
fetchq__${q}__pnd|
fetchq__${q}__pnd|visible
EOF
check "SET fetchq.notify_document_data = off empties the payloads, RESET brings the subject back" \
    "$tmp/off.expected" "$tmp/off.got"

# Only a superuser may change it; anyone may read it.
psql_run -c "SET client_min_messages = warning" -c "DROP ROLE IF EXISTS $user" \
    -c "CREATE ROLE $user LOGIN"
if out=$(timeout 60 psql -X -q -t -A -v ON_ERROR_STOP=1 -U "$user" -d "$db" \
    -c '\set VERBOSITY verbose' -c "SET fetchq.notify_document_data = off" 2>&1); then
    echo "FAIL: a non-superuser could SET fetchq.notify_document_data" >&2
    status=1
elif grep -q '42501: permission denied to set parameter "fetchq.notify_document_data"' <<<"$out"; then
    echo "ok: a non-superuser cannot SET fetchq.notify_document_data (42501)"
else
    echo "FAIL: a non-superuser's SET did not fail with 42501: $out" >&2
    status=1
fi
got=$(timeout 60 psql -X -q -t -A -U "$user" -d "$db" -c "SHOW fetchq.notify_document_data" 2>&1)
if [ "$got" = on ]; then
    echo "ok: a non-superuser reads fetchq.notify_document_data: on by default"
else
    echo "FAIL: SHOW fetchq.notify_document_data as a non-superuser gave: $got" >&2
    status=1
fi

# Per database: new sessions send empty payloads, and so does the scheduler
# once restarted (it reads the database's settings when it connects).
psql_run -c "ALTER DATABASE \"$db\" SET fetchq.notify_document_data = off"
scheduler="SELECT pid FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = current_database()"
old_pid=$(psql_run -c "$scheduler")
[ -n "$old_pid" ] || fail "no scheduler runs for $db"
psql_run -c "SELECT pg_terminate_backend($old_pid)" >/dev/null
new_pid=
deadline=$((SECONDS + 30))
while [ -z "$new_pid" ] && [ $SECONDS -lt $deadline ]; do
    sleep 0.1
    new_pid=$(psql_run -c "$scheduler AND pid <> $old_pid")
done
[ -n "$new_pid" ] || fail "the scheduler of $db did not come back within 30 s"

rm -f "$tmp/ready" "$tmp/done"
psql_run >"$tmp/db_off.out" 2>&1 <<SQL &
LISTEN fetchq__${q}__pnd;
\! touch $tmp/ready
\! i=0; while [ ! -f $tmp/done ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done
SELECT 1;
SQL
listener_pid=$!
for _ in $(seq 300); do [ -f "$tmp/ready" ] && break; sleep 0.1; done
[ -f "$tmp/ready" ] || fail "the listener session did not start"
# One new session: the setting it has, its PID, then a planned and a pending push.
writer=$(psql_run -c "SHOW fetchq.notify_document_data" -c "SELECT pg_backend_pid()" \
    -c "SELECT fetchq.doc_push('$q', 'secret6', 0, 0, clock_timestamp() + interval '1 second', '{}')" \
    -c "SELECT fetchq.doc_push('$q', 'secret7')") || fail "the writer session failed"
writer_pid=$(sed -n 2p <<<"$writer")
promoted=
deadline=$((SECONDS + 30))
while [ "$promoted" != 1 ] && [ $SECONDS -lt $deadline ]; do
    sleep 0.1
    promoted=$(psql_run -c "SELECT status FROM fetchq_data.${q}__docs WHERE subject = 'secret6'")
done
touch "$tmp/done"
wait "$listener_pid" || fail "the listener session failed: $(cat "$tmp/db_off.out")"
listener_pid=
[ "$promoted" = 1 ] || fail "the scheduler did not promote the planned document within 30 s"
{
    echo "writer session setting: $(sed -n 1p <<<"$writer")"
    # 'CH|P|PID', the PID told as the writer session or the scheduler.
    sed -n -e 's/^Asynchronous notification "\([^"]*\)" with payload "\(.*\)" received from server process with PID \([0-9]*\)\.$/\1|\2|\3/p' \
        -e 's/^Asynchronous notification "\([^"]*\)" received from server process with PID \([0-9]*\)\.$/\1||\2/p' \
        <"$tmp/db_off.out" | sed -e "s/|$writer_pid\$/|writer session/" -e "s/|$new_pid\$/|scheduler/"
} >"$tmp/db_off.got"
cat >"$tmp/db_off.expected" <<EOF
writer session setting: off
fetchq__${q}__pnd||writer session
fetchq__${q}__pnd||scheduler
EOF
check "ALTER DATABASE ... SET fetchq.notify_document_data = off empties the payloads of new sessions and of the scheduler" \
    "$tmp/db_off.expected" "$tmp/db_off.got"

psql_run -c "ALTER DATABASE \"$db\" RESET fetchq.notify_document_data" -c "DROP ROLE $user" \
    -c "SELECT was_dropped FROM fetchq.queue_drop('$q')" >/dev/null
exit $status
