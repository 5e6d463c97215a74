#!/usr/bin/env bash
# Reusing a subject (issue 31, point 4): doc_send's if_finished => 'requeue'
# makes a completed or killed document pending (or planned) again with the
# new payload, version, priority and next_iteration, attempts 0, in one
# statement; a planned, pending, waiting or active one is left alone (0), as
# with the default 'skip'. The counters equal metric_compute's after each
# requeue. doc_upsert of a completed document keeps Fetchq 4's answer.
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
row() { q "SELECT status, version, priority, attempts, payload::text FROM fetchq_data.$1__docs WHERE subject = '$2'"; }
ref() { echo "ARRAY[$(printf "('%s')," "$@" | sed 's/,$//')]::fetchq.doc_ref[]"; }
version_count() { q "SELECT COALESCE((SELECT current_value FROM fetchq.metric_get('$1', '$2')), 0)"; }

q "SELECT fetchq.queue_create('rq')" >/dev/null

echo "--- a completed document runs again"
q "SELECT fetchq.doc_send('rq', 'job', '{\"run\": 1}', priority => 1);
   SELECT count(*) FROM fetchq.doc_pick('rq', 0, 1, '5m');
   SELECT fetchq.doc_complete('rq', 'job')" >/dev/null
check "doc_push of a completed subject: 0" "$(q "SELECT fetchq.doc_push('rq', 'job', '{}')")" 0
check "doc_send with the default (skip): 0" "$(q "SELECT fetchq.doc_send('rq', 'job', '{\"run\": 2}')")" 0
check "if_finished => 'skip': 0" \
    "$(q "SELECT fetchq.doc_send('rq', 'job', '{\"run\": 2}', if_finished => 'skip')")" 0
check "still completed, as it was" "$(row rq job)" '3|0|1|0|{"run": 1}'
check "if_finished => 'requeue': 1" \
    "$(q "SELECT fetchq.doc_send('rq', 'job', '{\"run\": 2}', version => 3, priority => 5,
                                 if_finished => 'requeue')")" 1
check "pending with the new payload, version and priority, attempts 0" "$(row rq job)" '1|3|5|0|{"run": 2}'
check "counters agree after requeueing a completed one" "$(agree rq)" agree
check "cpl 0, pnd 1, cnt 1, nothing new entered" \
    "$(q "SELECT cpl, pnd, cnt, ent FROM fetchq.metric_get_common('rq')")" "0|1|1|1"
check "the version counters follow it: v0 0, v3 1" "$(version_count rq v0)|$(version_count rq v3)" "0|1"
check "a pick takes it, in version 3" "$(q "SELECT subject FROM fetchq.doc_pick('rq', 3, 1, '5m')")" job

echo "--- a killed document, planned again"
q "SELECT fetchq.doc_kill('rq', 'job')" >/dev/null
check "requeued for later: 1" \
    "$(q "SELECT fetchq.doc_send('rq', 'job', '{\"run\": 3}', version => 3,
                                 next_iteration => now() + interval '1 hour', if_finished => 'requeue')")" 1
check "planned, attempts 0" "$(row rq job)" '0|3|0|0|{"run": 3}'
check "its next_iteration is the new one" \
    "$(q "SELECT next_iteration > now() + interval '59 minutes' FROM fetchq_data.rq__docs WHERE subject = 'job'")" t
check "counters agree after requeueing a killed one" "$(agree rq)" agree

echo "--- unfinished documents are left alone"
q "SELECT fetchq.doc_send('rq', 'pend', '{\"v\": 1}');
   SELECT fetchq.doc_send('rq', 'act', '{\"v\": 1}', priority => 100);
   SELECT count(*) FROM fetchq.doc_pick('rq', 0, 1, '5m');
   SELECT fetchq.doc_send('rq', 'wait', '{\"v\": 1}', depends_on => $(ref "rq', 'pend"))" >/dev/null
for s in job pend act wait; do
    before=$(row rq "$s")
    check "$s (status ${before%%|*}): 0" \
        "$(q "SELECT fetchq.doc_send('rq', '$s', '{\"v\": 9}', version => 7, if_finished => 'requeue')")" 0
    check "$s unchanged" "$(row rq "$s")" "$before"
done
check "counters agree" "$(agree rq)" agree

echo "--- a requeued document can wait, and be a request again"
q "SELECT fetchq.doc_complete('rq', 'act')" >/dev/null
check "requeued waiting on a pending document: 1" \
    "$(q "SELECT fetchq.doc_send('rq', 'act', depends_on => $(ref "rq', 'pend"), if_finished => 'requeue')")" 1
check "it waits" "$(q "SELECT status, next_iteration = 'infinity' FROM fetchq_data.rq__docs WHERE subject = 'act'")" "0|t"
check "counters agree" "$(agree rq)" agree

echo "--- arguments"
check_has "an unknown if_finished: 22023" \
    "$(err "SELECT fetchq.doc_send('rq', 'x', if_finished => 'replace')")" "^22023 invalid value for argument if_finished"
check_has "a NULL if_finished: 22004" "$(err "SELECT fetchq.doc_send('rq', 'x', if_finished => NULL)")" '^22004 '
check "nothing was sent" "$(q "SELECT count(*) FROM fetchq_data.rq__docs WHERE subject = 'x'")" 0
check "named calls of doc_send without if_finished still resolve" \
    "$(q "SELECT fetchq.doc_send(queue => 'rq', subject => 'n1', reply_to => 'rq', priority => 2)")" 1
check "positional calls with every earlier argument still resolve" \
    "$(q "SELECT fetchq.doc_send('rq', 'n2', '{}', 0, 0, now(), NULL, NULL, NULL)")" 1
q "SELECT fetchq.topic_create('rq_t')" >/dev/null
check_has "a topic keeps nothing to requeue: 0A000" \
    "$(err "SELECT fetchq.doc_send('rq_t', 'x', if_finished => 'requeue')")" '^0A000 '

echo "--- doc_upsert of a completed document: Fetchq 4's answer, documented"
q "SELECT fetchq.doc_push('rq', 'up', '{\"v\": 1}');
   SELECT fetchq.doc_take('rq', 'up', '1m');
   SELECT fetchq.doc_complete('rq', 'up')" >/dev/null
check "(0, 1), as Fetchq 4's doc_upsert" \
    "$(q "SELECT queued_docs, updated_docs FROM fetchq.doc_upsert('rq', 'up', 0, 0, now(), '{\"v\": 2}')")" "0|1"
check "it stays completed, with the new payload" "$(q "SELECT status, payload::text FROM fetchq_data.rq__docs WHERE subject = 'up'")" '3|{"v": 2}'
check "requeue runs it: 1" "$(q "SELECT fetchq.doc_send('rq', 'up', '{\"v\": 3}', if_finished => 'requeue')")" 1
check "counters agree" "$(agree rq)" agree

echo "--- privileges: a requeue changes a document, as doc_upsert: pick besides push"
q "CREATE ROLE rq_pusher LOGIN; CREATE ROLE rq_worker LOGIN;
   GRANT USAGE ON SCHEMA fetchq TO rq_pusher, rq_worker;
   SELECT fetchq.queue_grant('rq', 'rq_pusher', 'push');
   SELECT fetchq.queue_grant('rq', 'rq_worker', 'push, pick');
   SELECT fetchq.doc_push('rq', 'g1', '{\"v\": 1}');
   SELECT count(*) FROM fetchq.doc_take('rq', 'g1', '1m');
   SELECT fetchq.doc_complete('rq', 'g1')" >/dev/null
as() { psql -X -q -At -U "$1" -d "$db" -c '\set VERBOSITY verbose' -c "$2" 2>&1 || true; }
check_has "push alone may not requeue a finished document (42501)" \
    "$(as rq_pusher "SELECT fetchq.doc_send('rq', 'g1', '{\"v\": 666}', if_finished => 'requeue')")" \
    '42501: permission denied to change document "g1" of queue "rq"'
check "it stays completed, its payload unchanged" "$(row rq g1)" '3|0|0|0|{"v": 1}'
check "push alone still sends a new subject with 'requeue'" \
    "$(as rq_pusher "SELECT fetchq.doc_send('rq', 'g2', if_finished => 'requeue')")" 1
check "push and pick may requeue" \
    "$(as rq_worker "SELECT fetchq.doc_send('rq', 'g1', '{\"v\": 2}', if_finished => 'requeue')")" 1
check "pending again" "$(row rq g1)" '1|0|0|0|{"v": 2}'
check "counters agree" "$(agree rq)" agree
q "REVOKE USAGE ON SCHEMA fetchq FROM rq_pusher, rq_worker" >/dev/null

q "SELECT fetchq.queue_drop('rq'); SELECT fetchq.queue_drop('rq_t')" >/dev/null
q "DROP ROLE rq_pusher; DROP ROLE rq_worker" >/dev/null
echo "doc_requeue test: $failures failure(s)"
[ "$failures" = 0 ]
