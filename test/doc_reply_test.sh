#!/usr/bin/env bash
# Request and response (issue 30): doc_send's reply_to names the queue the
# answer goes to; doc_reply, called by the responder, pushes the answer
# there under the request's subject, with the responder's own rights (a
# queue grant of push suffices), and completes the request, in one
# transaction. A request without reply_to, or whose reply queue is gone, is
# refused and nothing is completed.
# Env: PGHOST PGPORT PGUSER (a superuser); $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

cleanup() {
    psql -X -q -d "$db" -c "DROP OWNED BY rr_resp CASCADE" >/dev/null 2>&1 || true
    psql -X -q -d postgres -c "DROP ROLE IF EXISTS rr_resp" >/dev/null 2>&1 || true
}
trap cleanup EXIT
cleanup

err() {
    local out
    out=$(psql -X -q -At -d "$db" ${2:+-U "$2"} -c '\set VERBOSITY verbose' -c "$1" 2>&1 |
        sed -n 's/^ERROR:  \([0-9A-Z]*\): \(.*\)$/\1 \2/p' | head -1 || true)
    echo "${out:-no error}"
}
resp() { psql -X -q -At -v ON_ERROR_STOP=1 -U rr_resp -d "$db" -c "$1"; }
status() { q "SELECT status FROM fetchq_data.$1__docs WHERE subject = '$2'"; }

q "CREATE ROLE rr_resp LOGIN; GRANT USAGE ON SCHEMA fetchq TO rr_resp;
   SELECT fetchq.queue_create('rr_req'); SELECT fetchq.queue_create('rr_replies');
   SELECT fetchq.queue_grant('rr_req', 'rr_resp', 'pick');
   SELECT fetchq.queue_grant('rr_replies', 'rr_resp', 'read')" >/dev/null

echo "--- the round trip"
check "a request names its reply queue" \
    "$(q "SELECT fetchq.doc_send(queue => 'rr_req', subject => 'r1', payload => '{\"n\": 20}',
                                 reply_to => 'rr_replies')")" 1
check "the responder picks it" "$(resp "SELECT subject FROM fetchq.doc_pick('rr_req', 0, 1, '1m')")" r1
check_has "without push on the reply queue, the reply is refused" \
    "$(err "SELECT fetchq.doc_reply('rr_req', 'r1', '{\"answer\": 40}')" rr_resp)" '^42501'
check "... and the request is still active" "$(status rr_req r1)" 2
q "SELECT fetchq.queue_grant('rr_replies', 'rr_resp', 'push')" >/dev/null
check "with a queue grant of push, doc_reply answers" \
    "$(resp "SELECT fetchq.doc_reply(queue => 'rr_req', subject => 'r1', payload => '{\"answer\": 40}')")" 1
check "the answer is in the reply queue under the request's subject" \
    "$(q "SELECT subject || ' ' || payload::text || ' ' || status FROM fetchq_data.rr_replies__docs")" \
    'r1 {"answer": 40} 1'
check "the request is completed" "$(status rr_req r1)" 3
check "its reply_to is forgotten" "$(q "SELECT count(*) FROM fetchq.doc_replies")" 0
check "counters agree" \
    "$(q "SELECT (SELECT cnt || ' ' || pnd || ' ' || act || ' ' || cpl FROM fetchq.metric_get_common('rr_req'))
              = (SELECT cnt || ' ' || pnd || ' ' || act || ' ' || cpl FROM fetchq.metric_compute('rr_req'))
          AND (SELECT cnt || ' ' || pnd FROM fetchq.metric_get_common('rr_replies'))
              = (SELECT cnt || ' ' || pnd FROM fetchq.metric_compute('rr_replies'))")" t

echo "--- refusals: nothing replied, nothing completed"
q "SELECT fetchq.doc_send('rr_req', 'plain'); SELECT count(*) FROM fetchq.doc_take('rr_req', 'plain', '1m')" >/dev/null
check "a request without reply_to is refused" \
    "$(err "SELECT fetchq.doc_reply('rr_req', 'plain', '{}')")" \
    '22023 request "plain" of queue "rr_req" has no reply_to'
check "... still active" "$(status rr_req plain)" 2

q "SELECT fetchq.queue_create('rr_gone');
   SELECT fetchq.doc_send('rr_req', 'orphan', reply_to => 'rr_gone');
   SELECT count(*) FROM fetchq.doc_take('rr_req', 'orphan', '1m');
   SELECT fetchq.queue_drop('rr_gone')" >/dev/null
check "a request whose reply queue is gone is refused" \
    "$(err "SELECT fetchq.doc_reply('rr_req', 'orphan', '{}')")" \
    '42704 reply queue "rr_gone" of request "orphan" of queue "rr_req" no longer exists'
check "... still active" "$(status rr_req orphan)" 2

q "SELECT fetchq.doc_send('rr_req', 'waiting', reply_to => 'rr_replies')" >/dev/null
check_has "a request not picked is refused" "$(err "SELECT fetchq.doc_reply('rr_req', 'waiting', '{}')")" \
    '^55000 request "waiting" of queue "rr_req" is not active'
check_has "a missing request is refused" "$(err "SELECT fetchq.doc_reply('rr_req', 'nope', '{}')")" '^22023'
q "SELECT count(*) FROM fetchq.doc_take('rr_req', 'waiting', '1m');
   SELECT fetchq.doc_send('rr_replies', 'waiting')" >/dev/null
check_has "a reply whose subject is taken in the reply queue is refused" \
    "$(err "SELECT fetchq.doc_reply('rr_req', 'waiting', '{}')")" '^23505'
check "... still active" "$(status rr_req waiting)" 2
check_has "reply_to must name an existing queue" \
    "$(err "SELECT fetchq.doc_send('rr_req', 'x', reply_to => 'rr_nosuch')")" '^42704 reply queue "rr_nosuch" does not exist'
check "... nothing sent" "$(q "SELECT count(*) FROM fetchq_data.rr_req__docs WHERE subject = 'x'")" 0

# a reply_to left by an earlier document of the same subject does not apply
q "SELECT fetchq.doc_send('rr_req', 'again', reply_to => 'rr_replies');
   SELECT count(*) FROM fetchq.doc_take('rr_req', 'again', '1m'); SELECT fetchq.doc_drop('rr_req', 'again')" >/dev/null
q "SELECT fetchq.doc_send('rr_req', 'again'); SELECT count(*) FROM fetchq.doc_take('rr_req', 'again', '1m')" >/dev/null
check_has "a new document of an old request's subject has no reply_to" \
    "$(err "SELECT fetchq.doc_reply('rr_req', 'again', '{}')")" 'has no reply_to'

echo "--- a request finished otherwise leaves no reply_to behind"
q "SELECT fetchq.doc_send('rr_req', 'c1', reply_to => 'rr_replies');
   SELECT fetchq.doc_send('rr_req', 'k1', reply_to => 'rr_replies');
   SELECT count(*) FROM fetchq.doc_take('rr_req', 'c1', '1m'); SELECT count(*) FROM fetchq.doc_take('rr_req', 'k1', '1m')" >/dev/null
check "two requests recorded" "$(q "SELECT count(*) FROM fetchq.doc_replies r JOIN fetchq.queues q ON q.id = r.queue_id
                                   WHERE q.name = 'rr_req' AND r.subject IN ('c1', 'k1')")" 2
q "SELECT fetchq.doc_complete('rr_req', 'c1'); SELECT fetchq.doc_kill('rr_req', 'k1')" >/dev/null
check "completed or killed without a reply: forgotten" \
    "$(q "SELECT count(*) FROM fetchq.doc_replies r JOIN fetchq.queues q ON q.id = r.queue_id
          WHERE q.name = 'rr_req' AND r.subject IN ('c1', 'k1')")" 0

echo "--- a reply completes: documents waiting on the request are released"
q "SELECT fetchq.doc_send('rr_req', 'r2', reply_to => 'rr_replies');
   SELECT fetchq.doc_send('rr_replies', 'after-r2', depends_on => ARRAY[('rr_req', 'r2')]::fetchq.doc_ref[]);
   SELECT count(*) FROM fetchq.doc_take('rr_req', 'r2', '1m')" >/dev/null
q "SELECT fetchq.doc_reply('rr_req', 'r2', '{}')" >/dev/null
check "released by the reply" "$(status rr_replies after-r2)" 1

[ "$failures" -eq 0 ]
