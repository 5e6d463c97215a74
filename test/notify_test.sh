#!/usr/bin/env bash
# Checks what fetchq's notification triggers send: the channels and payloads
# received by a session that LISTENs while it creates a queue, enables its
# notifications and moves documents, and by a second session listening on
# one channel. The varying parts (PIDs, timestamps, ids) are left out.
#
#   PGHOST=... PGPORT=... PGUSER=... test/notify_test.sh DBNAME
#
# DBNAME must have the extension (CREATE EXTENSION fetchq). The test uses the
# queue notify_test_q, drops it when it exists, and drops it at the end.
# Exits 0 when everything matched, 1 on a mismatch, another non-zero status
# when it could not run (2: usage, no extension).
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: PGHOST=... PGPORT=... PGUSER=... $0 DBNAME" >&2
    exit 2
fi
db=$1
q=notify_test_q
tmp=$(mktemp -d)
listener_pid=
# The listener stops within 0.1 s once "done" exists (at most 30 s anyway).
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    touch "$tmp/done"
    if [ -n "$listener_pid" ]; then wait "$listener_pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# Every psql is bounded in time; results go nowhere, notifications are kept.
psql_run() { timeout 60 psql -X -q -t -A -v ON_ERROR_STOP=1 -d "$db" "$@"; }

# 'Asynchronous notification "CH" with payload "P" received from server
# process with PID N.' -> 'CH|P'
notifications() {
    sed -n 's/^Asynchronous notification "\([^"]*\)" with payload "\(.*\)" received from server process with PID [0-9]*\.$/\1|\2/p'
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
exit $status
