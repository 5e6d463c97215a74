#!/usr/bin/env bash
# doc_send (issue 30): the full push with named, defaulted arguments. It
# behaves as doc_push (unique subject, counters, routes and topics,
# triggers, NOTIFY, privileges, errors, result), stores the payload as
# given whatever fetchq.fetchq4_quoting says, and leaves every Fetchq 4
# call of doc_push resolving as before.
# Env: PGHOST PGPORT PGUSER (a superuser); $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

# err SQL: the SQLSTATE and message of the error SQL raises, or "no error".
err() {
    local out
    out=$(psql -X -q -At -d "$db" -c '\set VERBOSITY verbose' -c "$1" 2>&1 |
        sed -n 's/^ERROR:  \([0-9A-Z]*\): \(.*\)$/\1 \2/p' | head -1 || true)
    echo "${out:-no error}"
}

q "SELECT fetchq.queue_create('ds')" >/dev/null

# every argument but queue and subject defaulted, by name and by position
check "named, defaults: queued" "$(q "SELECT fetchq.doc_send(queue => 'ds', subject => 'a')")" 1
check "positional, defaults: queued" "$(q "SELECT queued_docs FROM fetchq.doc_send('ds', 'b')")" 1
check "a known subject is not queued again" \
    "$(q "SELECT fetchq.doc_send(queue => 'ds', subject => 'a', payload => '{\"x\": 1}')")" 0
check "the defaults: payload {}, version 0, priority 0, pending now, the queue's expiry" \
    "$(q "SELECT payload::text, version, priority, status, next_iteration = created_at, expires_at IS NULL
          FROM fetchq_data.ds__docs WHERE subject = 'a'")" "{}|0|0|1|t|t"

# every argument by name, in any order
check "every argument by name" "$(q "SELECT fetchq.doc_send(priority => 7, version => 2,
      subject => 'c', queue => 'ds', payload => '{\"n\": 3}',
      next_iteration => now() + interval '1 hour', expires_at => now() + interval '2 hours')")" 1
check "stored as given: planned" \
    "$(q "SELECT payload::text, version, priority, status,
                 next_iteration > now() + interval '59 minutes',
                 expires_at > now() + interval '119 minutes'
          FROM fetchq_data.ds__docs WHERE subject = 'c'")" '{"n": 3}|2|7|0|t|t'
check "no expires_at: the queue's default_ttl, as doc_push" \
    "$(q "SELECT fetchq.queue_set_default_ttl('ds', '1 day') IS NOT NULL;
          SELECT fetchq.doc_send('ds', 'ttl');
          SELECT expires_at > now() + interval '23 hours' FROM fetchq_data.ds__docs WHERE subject = 'ttl';
          SELECT fetchq.queue_set_default_ttl('ds', NULL) IS NOT NULL" | sed -n 3p)" t

# the payload exactly as given, even with fetchq4_quoting on (doc_push rewrites it)
check "doc_send stores two quotes as two" \
    "$(q "SET fetchq.fetchq4_quoting = on;
          SELECT fetchq.doc_send('ds', 'quoted', payload => '{\"a\": \"it''''s\"}');
          SELECT fetchq.doc_push('ds', 'pushed', '{\"a\": \"it''''s\"}');
          SELECT string_agg(payload ->> 'a', ',' ORDER BY subject) FROM fetchq_data.ds__docs
          WHERE subject IN ('quoted', 'pushed')" | tail -1)" "it's,it''s"
check "a NULL payload is stored as NULL" \
    "$(q "SELECT fetchq.doc_send('ds', 'nullpay', payload => NULL);
          SELECT payload IS NULL FROM fetchq_data.ds__docs WHERE subject = 'nullpay'" | tail -1)" t

# counters as doc_push's, equal to metric_compute's
check "counters agree with metric_compute" \
    "$(q "SELECT count(*) FILTER (WHERE m.current_value <> c.value)
          FROM fetchq.metric_get('ds') AS m
          JOIN LATERAL (SELECT (to_jsonb(x) ->> m.metric)::bigint AS value
                        FROM fetchq.metric_compute('ds') AS x) AS c ON c.value IS NOT NULL")" 0
check "ent counts every queued document" \
    "$(q "SELECT current_value FROM fetchq.metric_get('ds', 'ent')")" 7

# errors as doc_push's
check "missing queue" "$(err "SELECT fetchq.doc_send('nosuch', 'x')")" \
    "$(err "SELECT fetchq.doc_push('nosuch', 'x')")"
check "empty subject" "$(err "SELECT fetchq.doc_send('ds', '')")" "$(err "SELECT fetchq.doc_push('ds', '')")"
check "long subject" "$(err "SELECT fetchq.doc_send('ds', repeat('x', 51))")" \
    "$(err "SELECT fetchq.doc_push('ds', repeat('x', 51))")"
check_has "NULL version named" "$(err "SELECT fetchq.doc_send('ds', 'v', version => NULL)")" '^22004 .*version'
check_has "bad queue name" "$(err "SELECT fetchq.doc_send('Bad Name', 'x')")" '^42602'
check_has "bad reply_to name" "$(err "SELECT fetchq.doc_send('ds', 'x', reply_to => 'Bad Name')")" \
    '^42602 .*reply_to'

# routes and topics, as doc_push
q "SELECT fetchq.queue_create('ds_copy'); SELECT fetchq.route_create('ds', 'ds_copy')" >/dev/null
q "SELECT fetchq.doc_send('ds', 'routed', payload => '{\"r\": 1}')" >/dev/null
check "routed like a push" "$(q "SELECT payload::text FROM fetchq_data.ds_copy__docs WHERE subject = 'routed'")" '{"r": 1}'
q "SELECT fetchq.topic_create('ds_topic'); SELECT fetchq.queue_create('ds_sub');
   SELECT fetchq.route_create('ds_topic', 'ds_sub')" >/dev/null
check "into a topic: the copies queued" "$(q "SELECT fetchq.doc_send('ds_topic', 't1')")" 1
check "the topic's subscriber got it" "$(q "SELECT count(*) FROM fetchq_data.ds_sub__docs WHERE subject = 't1'")" 1

# triggers of the queue's table fire as for doc_push (NOTIFY included)
q "CREATE TABLE ds_seen (subject text);
   CREATE FUNCTION ds_seen() RETURNS trigger LANGUAGE plpgsql AS
     \$\$BEGIN INSERT INTO public.ds_seen VALUES (NEW.subject); RETURN NEW; END\$\$;
   CREATE TRIGGER ds_seen AFTER INSERT ON fetchq_data.ds__docs FOR EACH ROW EXECUTE FUNCTION ds_seen()"
q "SELECT fetchq.doc_send('ds', 'trig')" >/dev/null
check "the queue's triggers fire" "$(q "SELECT count(*) FROM ds_seen WHERE subject = 'trig'")" 1
q "SELECT fetchq.queue_enable_notify('ds')" >/dev/null
notified=$(psql -X -q -At -d "$db" -c "LISTEN fetchq__ds__pnd" -c "SELECT fetchq.doc_send('ds', 'heard')" \
    -c "SELECT 1" 2>&1)
check_has "NOTIFY as doc_push" "$notified" 'Asynchronous notification "fetchq__ds__pnd"'

# privileges: a queue grant of push suffices; without it, refused
q "SET client_min_messages = warning; DROP ROLE IF EXISTS ds_pusher; CREATE ROLE ds_pusher LOGIN;
   GRANT USAGE ON SCHEMA fetchq TO ds_pusher;
   SELECT fetchq.queue_create('ds_granted'); SELECT fetchq.queue_grant('ds_granted', 'ds_pusher', 'push')" >/dev/null
check "a push grant suffices" \
    "$(psql -X -q -At -U ds_pusher -d "$db" -c "SELECT fetchq.doc_send(queue => 'ds_granted', subject => 'g')")" 1
check_has "no grant: refused" \
    "$(psql -X -q -At -U ds_pusher -d "$db" -c '\set VERBOSITY verbose' -c "SELECT fetchq.doc_send('ds', 'g')" 2>&1)" \
    '42501'
q "DROP OWNED BY ds_pusher; DROP ROLE ds_pusher"

# doc_push's Fetchq 4 forms resolve as before: untyped literals, positional
check "doc_push(q, s)" "$(q "SELECT fetchq.doc_push('ds', 'p2')")" 1
check "doc_push(q, s, payload)" "$(q "SELECT fetchq.doc_push('ds', 'p3', '{}')")" 1
check "doc_push(q, s, payload, next)" "$(q "SELECT fetchq.doc_push('ds', 'p4', '{}', now())")" 1
check "doc_push(6 arguments)" "$(q "SELECT fetchq.doc_push('ds', 'p6', 0, 0, now(), '{}')")" 1
check "doc_push(7 arguments)" "$(q "SELECT fetchq.doc_push('ds', 'p7', 0, 0, now(), '{}', NULL)")" 1
check "doc_push bulk form" "$(q "SELECT fetchq.doc_push('ds', 0, now(), '(''p8'', 0, ''{}'', {DATA})')")" 1
check "doc_push is still six functions" \
    "$(q "SELECT count(*) FROM pg_proc WHERE proname = 'doc_push' AND pronamespace = 'fetchq'::regnamespace")" 6

[ "$failures" -eq 0 ]
