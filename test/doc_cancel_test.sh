#!/usr/bin/env bash
# doc_cancel (issue 31, point 3): a planned, pending or waiting document is
# killed at once, with a row in its queue's log; the documents waiting on it
# are killed with it; an active, finished or missing one is left alone (0).
# The counters equal metric_compute's after each cancel; no copy goes to the
# dead-letter queue; the privilege is doc_kill's (pick).
# Env: PGHOST PGPORT PGUSER (a superuser); $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

err() {
    local out
    out=$(psql -X -q -At -d "$db" -c '\set VERBOSITY verbose' -c "$1" 2>&1 |
        sed -n 's/^ERROR:  \([0-9A-Z]*\): \(.*\)$/\1 \2/p' | head -1 || true)
    echo "${out:-no error}"
}
# agree QUEUE...: the counters of metric_get_common that differ from metric_compute's.
agree() {
    local out="" q1
    for q1 in "$@"; do
        out+=$(q "SELECT string_agg(format('%s %s: %s<>%s', '$q1', c.metric, c.value, x.value), '; ')
                  FROM (SELECT 'cnt' AS metric, cnt AS value FROM fetchq.metric_get_common('$q1')
                        UNION ALL SELECT 'pln', pln FROM fetchq.metric_get_common('$q1')
                        UNION ALL SELECT 'pnd', pnd FROM fetchq.metric_get_common('$q1')
                        UNION ALL SELECT 'act', act FROM fetchq.metric_get_common('$q1')
                        UNION ALL SELECT 'kll', kll FROM fetchq.metric_get_common('$q1')
                        UNION ALL SELECT 'cpl', cpl FROM fetchq.metric_get_common('$q1')) AS c
                  JOIN LATERAL (SELECT (to_jsonb(m) ->> c.metric)::bigint AS value
                                FROM fetchq.metric_compute('$q1') AS m) AS x ON true
                  WHERE c.value IS DISTINCT FROM x.value")
    done
    echo "${out:-agree}"
}
status() { q "SELECT status FROM fetchq_data.$1__docs WHERE subject = '$2'"; }
ref() { echo "ARRAY[$(printf "('%s')," "$@" | sed 's/,$//')]::fetchq.doc_ref[]"; }

q "SELECT fetchq.queue_create('cq'); SELECT fetchq.queue_create('cq_dead');
   SELECT fetchq.queue_set_dead_letter('cq', 'cq_dead')" >/dev/null

echo "--- planned and pending: killed at once"
q "SELECT fetchq.doc_push('cq', 'planned', 0, 0, now() + interval '1 hour', '{}');
   SELECT fetchq.doc_push('cq', 'pending', 0, 0, now() - interval '1 minute', '{}')" >/dev/null
check "a planned document: 1" "$(q "SELECT fetchq.doc_cancel('cq', 'planned', 'not needed')")" 1
check "it is killed" "$(status cq planned)" -1
check "counters agree after cancelling a planned one" "$(agree cq)" agree
check "pln 0, kll 1" "$(q "SELECT pln, kll FROM fetchq.metric_get_common('cq')")" "0|1"
check "a pending document, no reason: 1" "$(q "SELECT affected_rows FROM fetchq.doc_cancel('cq', 'pending')")" 1
check "it is killed" "$(status cq pending)" -1
check "counters agree after cancelling a pending one" "$(agree cq)" agree
check "pnd 0, kll 2, nothing processed" \
    "$(q "SELECT pnd, kll, prc FROM fetchq.metric_get_common('cq')")" "0|2|0"
check "the log says why" \
    "$(q "SELECT string_agg(subject || '=' || message, ',' ORDER BY subject) FROM fetchq_data.cq__logs")" \
    "pending=cancelled,planned=cancelled: not needed"
check "a pick no longer sees it" "$(q "SELECT count(*) FROM fetchq.doc_pick('cq', 0, 10, '1m')")" 0
check "no dead-letter copy: a cancel is deliberate" "$(q "SELECT count(*) FROM fetchq_data.cq_dead__docs")" 0
check "cancelled again: 0" "$(q "SELECT fetchq.doc_cancel('cq', 'planned')")" 0

echo "--- active, completed, missing: left alone"
q "SELECT fetchq.doc_push('cq', 'active', '{}'); SELECT fetchq.doc_push('cq', 'done', '{}')" >/dev/null
q "SELECT count(*) FROM fetchq.doc_pick('cq', 0, 2, '10m')" >/dev/null
q "SELECT fetchq.doc_complete('cq', 'done')" >/dev/null
check "an active document: 0" "$(q "SELECT fetchq.doc_cancel('cq', 'active', 'too late')")" 0
check "it stays active" "$(status cq active)" 2
check "a completed document: 0" "$(q "SELECT fetchq.doc_cancel('cq', 'done')")" 0
check "it stays completed" "$(status cq done)" 3
check "a missing document: 0" "$(q "SELECT fetchq.doc_cancel('cq', 'nobody')")" 0
check "no log row for them" "$(q "SELECT count(*) FROM fetchq_data.cq__logs")" 2
check "counters agree" "$(agree cq)" agree
check "the worker stops an active one itself: doc_kill" "$(q "SELECT fetchq.doc_kill('cq', 'active')")" 1
check "a killed document: 0" "$(q "SELECT fetchq.doc_cancel('cq', 'active')")" 0

echo "--- waiting documents"
q "SELECT fetchq.queue_create('cw')" >/dev/null
q "SELECT fetchq.doc_send('cq', 'dep');
   SELECT fetchq.doc_send('cw', 'w1', depends_on => $(ref "cq', 'dep"));
   SELECT fetchq.doc_send('cw', 'w2', depends_on => $(ref "cw', 'w1"));
   SELECT fetchq.doc_send('cw', 'lone', depends_on => $(ref "cq', 'dep"))" >/dev/null
check "a waiting document: 1" "$(q "SELECT fetchq.doc_cancel('cw', 'lone', 'changed my mind')")" 1
check "it is killed" "$(status cw lone)" -1
check "its wait is forgotten" \
    "$(q "SELECT (SELECT count(*) FROM fetchq.doc_waits WHERE subject = 'lone')
               + (SELECT count(*) FROM fetchq.doc_dependencies WHERE subject = 'lone')")" 0
check "counters agree after cancelling a waiting one" "$(agree cw)" agree
check "cancelling a dependency: 1" "$(q "SELECT fetchq.doc_cancel('cq', 'dep', 'dropped')")" 1
check "its dependents are killed, transitively" \
    "$(q "SELECT string_agg(subject || '=' || status, ',' ORDER BY subject) FROM fetchq_data.cw__docs")" \
    "lone=-1,w1=-1,w2=-1"
check_has "their log names the cause" \
    "$(q "SELECT message FROM fetchq_data.cw__logs WHERE subject = 'w1'")" 'waited on document "dep" of queue "cq"'
check "counters agree after the cascade" "$(agree cq cw)" agree

echo "--- arguments"
check_has "a reason longer than the log takes: 22001" \
    "$(err "SELECT fetchq.doc_cancel('cq', 'x', repeat('r', 250))")" '^22001 '
check_has "a missing queue: an error" "$(err "SELECT fetchq.doc_cancel('cq_nope', 'x')")" 'does not exist'
check_has "a NULL subject: 22004" "$(err "SELECT fetchq.doc_cancel('cq', NULL)")" '^22004 '

echo "--- privileges: pick, as doc_kill"
q "CREATE ROLE cq_pusher LOGIN; CREATE ROLE cq_picker LOGIN;
   GRANT USAGE ON SCHEMA fetchq TO cq_pusher, cq_picker;
   SELECT fetchq.queue_grant('cq', 'cq_pusher', 'push');
   SELECT fetchq.queue_grant('cq', 'cq_picker', 'pick');
   SELECT fetchq.doc_push('cq', 'p1', '{}')" >/dev/null
check_has "push alone may not cancel" \
    "$(psql -X -q -At -U cq_pusher -d "$db" -c '\set VERBOSITY verbose' \
        -c "SELECT fetchq.doc_cancel('cq', 'p1')" 2>&1 || true)" '42501'
check "it is still pending" "$(status cq p1)" 1
check "pick may" "$(psql -X -q -At -U cq_picker -d "$db" -c "SELECT fetchq.doc_cancel('cq', 'p1', 'by a worker')")" 1
check "counters agree" "$(agree cq)" agree

q "SELECT fetchq.queue_drop('cw'); SELECT fetchq.queue_drop('cq'); SELECT fetchq.queue_drop('cq_dead')" >/dev/null
q "REVOKE USAGE ON SCHEMA fetchq FROM cq_pusher, cq_picker; DROP ROLE cq_pusher; DROP ROLE cq_picker" >/dev/null
echo "doc_cancel test: $failures failure(s)"
[ "$failures" = 0 ]
