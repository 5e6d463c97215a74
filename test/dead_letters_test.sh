#!/usr/bin/env bash
# Dead letters (issue 31, point 5): a document that dies again (after
# doc_retry) replaces its copy in the dead-letter queue: the copy shows the
# latest death (payload, attempts, error) and "deaths" counts them; a copy
# already handled (completed or killed) is pending again, an unhandled one
# keeps its status. The counters of both queues equal metric_compute's. The
# view fetchq.stats says which queues are dead-letter queues and which are
# subscriptions, for the backlog alert of docs/operations.md.
# Env: PGHOST PGPORT PGUSER (a superuser); $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

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
# copy SUBJECT: status, deaths, error and the dead document's payload, of its copy.
copy() {
    q "SELECT status, payload ->> 'deaths', payload ->> 'error', payload -> 'payload'
       FROM fetchq_data.dq_dead__docs WHERE subject = '$1'"
}
# die_again SUBJECT PAYLOAD: back from the dead (doc_retry), picked, killed with PAYLOAD.
die_again() {
    q "SELECT fetchq.doc_retry('dq', '$1');
       SELECT count(*) FROM fetchq.doc_take('dq', '$1', '1m');
       SELECT fetchq.doc_kill('dq', '$1', '$2')" >/dev/null
}

q "SELECT fetchq.queue_create('dq'); SELECT fetchq.queue_create('dq_dead');
   SELECT fetchq.queue_set_dead_letter('dq', 'dq_dead');
   SELECT fetchq.queue_set_max_attempts('dq', 1)" >/dev/null

echo "--- the first death: a copy"
q "SELECT fetchq.doc_push('dq', 'd1', '{\"v\": 1}');
   SELECT count(*) FROM fetchq.doc_take('dq', 'd1', '1m');
   SELECT fetchq.doc_kill('dq', 'd1')" >/dev/null
check "pending, deaths 1" "$(copy d1)" '1|1|killed|{"v": 1}'
check "counters agree" "$(agree dq dq_dead)" agree

echo "--- the second death, copy not handled yet: the copy shows it"
die_again d1 '{"v": 2}'
check "still one copy" "$(q "SELECT count(*) FROM fetchq_data.dq_dead__docs")" 1
check "pending, deaths 2, the latest payload" "$(copy d1)" '1|2|killed|{"v": 2}'
check "counters agree" "$(agree dq dq_dead)" agree

echo "--- the copy was handled (completed): the next death makes it pending again"
q "SELECT count(*) FROM fetchq.doc_take('dq_dead', 'd1', '1m');
   SELECT fetchq.doc_complete('dq_dead', 'd1')" >/dev/null
q "SELECT fetchq.doc_retry('dq', 'd1');
   SELECT count(*) FROM fetchq.doc_take('dq', 'd1', '1m');
   SELECT fetchq.doc_reject('dq', 'd1', 'gave up again', '{}')" >/dev/null
check "d1 died by its attempts" "$(q "SELECT status FROM fetchq_data.dq__docs WHERE subject = 'd1'")" -1
check "pending, deaths 3, the reject's reason" "$(copy d1)" '1|3|gave up again|{"v": 2}'
check "counters agree (cpl back to pnd)" "$(agree dq dq_dead)" agree
check "dq_dead: cpl 0, pnd 1, one document entered" \
    "$(q "SELECT cpl, pnd, ent FROM fetchq.metric_get_common('dq_dead')")" "0|1|1"

echo "--- a killed copy too"
q "SELECT count(*) FROM fetchq.doc_take('dq_dead', 'd1', '1m'); SELECT fetchq.doc_kill('dq_dead', 'd1')" >/dev/null
die_again d1 '{"v": 4}'
check "pending, deaths 4" "$(copy d1)" '1|4|killed|{"v": 4}'
check "counters agree" "$(agree dq dq_dead)" agree

echo "--- a copy being handled (active) keeps its status, with the latest death"
q "SELECT count(*) FROM fetchq.doc_take('dq_dead', 'd1', '1m')" >/dev/null
die_again d1 '{"v": 5}'
check "active, deaths 5" "$(copy d1)" '2|5|killed|{"v": 5}'
check "counters agree" "$(agree dq dq_dead)" agree

echo "--- a copy without deaths (made before 0.2.1) counts as one"
q "SELECT fetchq.doc_push('dq', 'old', '{}');
   SELECT fetchq.doc_push('dq_dead', 'old', '{\"queue\": \"dq\", \"payload\": {}, \"attempts\": 1, \"error\": \"killed\"}')" >/dev/null
q "SELECT count(*) FROM fetchq.doc_take('dq', 'old', '1m'); SELECT fetchq.doc_kill('dq', 'old')" >/dev/null
check "deaths 2" "$(q "SELECT payload ->> 'deaths' FROM fetchq_data.dq_dead__docs WHERE subject = 'old'")" 2

echo "--- only a copy of the same queue's document is replaced"
q "SELECT fetchq.queue_create('dq_other'); SELECT fetchq.queue_set_dead_letter('dq_other', 'dq_dead');
   SELECT fetchq.doc_push('dq_dead', 'mine', '{\"owner\": \"someone else\"}');
   SELECT count(*) FROM fetchq.doc_take('dq_dead', 'mine', '1m');
   SELECT fetchq.doc_complete('dq_dead', 'mine')" >/dev/null
q "SELECT fetchq.doc_push('dq', 'mine', '{}');
   SELECT count(*) FROM fetchq.doc_take('dq', 'mine', '1m'); SELECT fetchq.doc_kill('dq', 'mine')" >/dev/null
check "a document of the same subject that is no copy stays as it was" \
    "$(q "SELECT status, payload::text FROM fetchq_data.dq_dead__docs WHERE subject = 'mine'")" \
    '3|{"owner": "someone else"}'
q "SELECT fetchq.doc_push('dq_other', 'd1', '{\"other\": true}');
   SELECT count(*) FROM fetchq.doc_take('dq_other', 'd1', '1m'); SELECT fetchq.doc_kill('dq_other', 'd1')" >/dev/null
check "another queue's death leaves dq's copy of the subject as it was" \
    "$(q "SELECT payload ->> 'queue', payload ->> 'deaths' FROM fetchq_data.dq_dead__docs WHERE subject = 'd1'")" \
    "dq|5"
check "counters agree" "$(agree dq dq_dead dq_other)" agree
q "SELECT fetchq.queue_drop('dq_other')" >/dev/null

echo "--- fetchq.stats: the kind of each queue"
q "SELECT fetchq.topic_create('dq_topic'); SELECT fetchq.queue_create('dq_sub');
   SELECT fetchq.subscribe('dq_topic', 'dq_sub')" >/dev/null
check "is_dead_letter_queue and is_subscription, after the other columns" \
    "$(q "SELECT string_agg(queue || '=' || is_dead_letter_queue || '/' || is_subscription, ',' ORDER BY queue)
          FROM fetchq.stats WHERE queue IN ('dq', 'dq_dead', 'dq_sub')")" "dq=false/false,dq_dead=true/false,dq_sub=false/true"
# (held_back, of issue 35's flow limits, came after them.)
check "the two columns after stats_all()'s, then held_back" \
    "$(q "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute
          WHERE attrelid = 'fetchq.stats'::regclass AND attnum > 0
            AND attnum > (SELECT max(attnum) - 3 FROM pg_attribute WHERE attrelid = 'fetchq.stats'::regclass)")" \
    "is_dead_letter_queue,is_subscription,held_back"
q "SELECT fetchq.queue_set_dead_letter('dq', NULL)" >/dev/null
check "no longer a dead-letter queue once unset" \
    "$(q "SELECT is_dead_letter_queue FROM fetchq.stats WHERE queue = 'dq_dead'")" f

q "SELECT fetchq.queue_drop(q) FROM unnest(ARRAY['dq_sub', 'dq_topic', 'dq', 'dq_dead']) AS q" >/dev/null
echo "dead letters test: $failures failure(s)"
[ "$failures" = 0 ]
