#!/usr/bin/env bash
# Routes, topics and subscriptions (issue: publish/subscribe), against a
# running server: every push path routed, copies identical to what arrived,
# counters exact, duplicates skipped, cycles and bad selectors refused,
# rollback delivering nothing, temporary subscriptions gone with their
# session, the route cache following other sessions' changes, and delivery
# with the creator's rights (and only those).
# Env: PGHOST PGPORT PGUSER (a superuser) of a server with
# shared_preload_libraries = 'fetchq'; $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

# err [ROLE] SQL: the error of a statement, verbose (with its SQLSTATE).
err() {
    local role=${PGUSER:-postgres}
    if [ $# -eq 2 ]; then role=$1; shift; fi
    psql -X -q -At -v ON_ERROR_STOP=1 -U "$role" -d "$db" -c '\set VERBOSITY verbose' -c "$1" 2>&1 || true
}
as() { psql -X -q -At -v ON_ERROR_STOP=1 -U "$1" -d "$db" -c "$2" 2>&1 || true; }
# docs QUEUE: its subjects, sorted, comma-separated.
docs() { q "SELECT coalesce(string_agg(subject, ',' ORDER BY subject), '') FROM fetchq_data.$1__docs"; }
# counters_agree QUEUE: metric_get_common's cnt pnd pln act against metric_compute's.
counters_agree() {
    check "the counters of $1 equal metric_compute's" \
        "$(q "SELECT cnt || ' ' || pnd || ' ' || pln || ' ' || act FROM fetchq.metric_get_common('$1')")" \
        "$(q "SELECT cnt || ' ' || pnd || ' ' || pln || ' ' || act FROM fetchq.metric_compute('$1')")"
}
# named_anywhere NAME: rows of the tables and views of schema fetchq whose
# name contains route or subscri that name NAME.
named_anywhere() {
    q "SELECT coalesce(sum(n), 0) FROM (
         SELECT (xpath('/row/n/text()', query_to_xml(format(
                   'SELECT count(*) AS n FROM fetchq.%I AS t WHERE t::text ~ %L',
                   c.relname, '\\m$1\\M'), false, false, '')))[1]::text::int AS n
         FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
         WHERE s.nspname = 'fetchq' AND c.relkind IN ('r', 'v')
           AND (c.relname ~ 'route' OR c.relname ~ 'subscri')) x"
}

cleanup() {
    for role in rt_app rt_router rt_owner rt_gone; do
        psql -X -q -d "$db" -c "DROP OWNED BY $role CASCADE" >/dev/null 2>&1 || true
        psql -X -q -d postgres -c "DROP ROLE IF EXISTS $role" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT
cleanup

for queue in rt_src rt_a rt_b rt_c rt_dup; do q "SELECT fetchq.queue_create('$queue')" >/dev/null; done

echo "# a route copies every arrival, whatever the push path"
id=$(q "SELECT fetchq.route_create('rt_src', 'rt_a')")
check "route_create returns the route's id" \
    "$(q "SELECT id FROM fetchq.routes WHERE source = 'rt_src' AND destination = 'rt_a'")" "$id"
q "SELECT fetchq.route_create('rt_src', 'rt_b', '\$.n > 1')" >/dev/null
check "a push into a queue returns 1, not counting its routes" \
    "$(q "SELECT fetchq.doc_push('rt_src', 'p2')")" 1
q "SELECT fetchq.doc_push('rt_src', 'p3', '{\"n\": 2}')" >/dev/null
q "SELECT fetchq.doc_push('rt_src', 'p4', '{\"n\": 3}', now() + interval '1 hour')" >/dev/null
q "SELECT fetchq.doc_push('rt_src', 'p6', 4, 7, now(), '{\"n\": 5}')" >/dev/null
q "SELECT fetchq.doc_push('rt_src', 'p7', 1, 2, now() + interval '2 hours', '{\"n\": 9}', now() + interval '1 day')" >/dev/null
q "SELECT fetchq.doc_push('rt_src', 0, now(), '(''b1'', 3, ''{\"n\": 4}'', {DATA}), (''b2'', 0, ''{\"n\": 0}'', {DATA})')" >/dev/null
q "SELECT fetchq.doc_push_many('rt_src', ARRAY['m1', 'm2'], ARRAY['{\"n\": 8}', '{}']::jsonb[])" >/dev/null
q "SELECT fetchq.doc_upsert('rt_src', 'u1', 0, 1, now(), '{\"n\": 6}')" >/dev/null
appended=$(q "SELECT fetchq.doc_append('rt_src', '{\"n\": 7}')")
check "every arrival reaches the route without a selector" "$(docs rt_a)" "$(docs rt_src)"
check "... and the selector's route only the matching ones" "$(docs rt_b)" \
    "$(q "SELECT string_agg(subject, ',' ORDER BY subject) FROM fetchq_data.rt_src__docs WHERE payload @@ '\$.n > 1'")"
check "doc_append's generated subject is routed" "$(q "SELECT count(*) FROM fetchq_data.rt_b__docs WHERE subject = '$appended'")" 1
check "copies keep subject, version, priority, status, next_iteration, payload and expires_at" \
    "$(q "SELECT count(*) FROM (SELECT subject, version, priority, status, next_iteration, payload, expires_at FROM fetchq_data.rt_src__docs
                                EXCEPT SELECT subject, version, priority, status, next_iteration, payload, expires_at FROM fetchq_data.rt_a__docs) x")" 0
check "... a planned document stays planned" "$(q "SELECT status FROM fetchq_data.rt_a__docs WHERE subject = 'p7'")" 0
check "... with its given expiry" "$(q "SELECT expires_at > now() + interval '23 hours' FROM fetchq_data.rt_b__docs WHERE subject = 'p7'")" t
q "SELECT fetchq.doc_upsert('rt_src', 'u1', 0, 9, now(), '{\"n\": 0}')" >/dev/null
check "doc_upsert that updates delivers nothing" \
    "$(q "SELECT priority || ' ' || payload::text FROM fetchq_data.rt_a__docs WHERE subject = 'u1'")" '1 {"n": 6}'
for queue in rt_src rt_a rt_b; do counters_agree "$queue"; done

echo "# duplicates, rollback, chains"
q "SELECT fetchq.doc_push('rt_dup', 'd1', 0, 0, now(), '{\"mine\": true}')" >/dev/null
q "SELECT fetchq.route_create('rt_src', 'rt_dup')" >/dev/null
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "SELECT fetchq.doc_push('rt_src', 'd1', 0, 0, now(), '{\"theirs\": true}')" 2>&1)
check "a subject that exists in the destination: the push into the source succeeds, silently" "$out" 1
check "... and the destination keeps its own document" "$(q "SELECT payload::text FROM fetchq_data.rt_dup__docs WHERE subject = 'd1'")" '{"mine": true}'
counters_agree rt_dup
q "BEGIN; SELECT fetchq.doc_push('rt_src', 'rolled_back'); ROLLBACK;" >/dev/null
check "a rolled-back push delivers nothing" \
    "$(q "SELECT count(*) FROM fetchq_data.rt_a__docs WHERE subject = 'rolled_back'")" 0
counters_agree rt_a
q "SELECT fetchq.route_create('rt_a', 'rt_c')" >/dev/null
q "SELECT fetchq.doc_push('rt_src', 'chained')" >/dev/null
check "an arrival through a route is routed in turn" \
    "$(q "SELECT count(*) FROM fetchq_data.rt_c__docs WHERE subject = 'chained'")" 1

echo "# cycles and selectors refused"
out=$(err "SELECT fetchq.route_create('rt_c', 'rt_src')")
check_has "a route closing a cycle of three queues is refused" "$out" "22023: .*would close a cycle"
check_has "... naming the cycle" "$out" "rt_c -> rt_src -> rt_a -> rt_c"
out=$(err "SELECT fetchq.route_create('rt_b', 'rt_b')")
check_has "a self-route is refused" "$out" "22023: .*would close a cycle"
check_has "... naming it" "$out" "cycle would be rt_b -> rt_b"
for selector in '$.a' '$.a ? (@ > 1)' 'select 1' '$.a >' '1; DROP TABLE fetchq.routes' '$who == 1'; do
    out=$(err "SELECT fetchq.route_create('rt_b', 'rt_c', \$s\$$selector\$s\$)")
    check_has "selector '$selector' is refused with 22023" "$out" "22023: invalid selector"
    check_has "... and a hint" "$out" "HINT:  Write a SQL/JSON path predicate"
done
check_has "an existing route is refused" "$(err "SELECT fetchq.route_create('rt_src', 'rt_a')")" "42710: .*already exists"
check_has "a missing queue is refused" "$(err "SELECT fetchq.route_create('rt_src', 'rt_nope')")" 'queue "rt_nope" does not exist'
q "SELECT fetchq.queue_create('rt_s1'); SELECT fetchq.queue_create('rt_s2')" >/dev/null
out=$(err "SELECT fetchq.route_create('rt_s1', 'rt_s2'), fetchq.route_create('rt_s2', 'rt_s1')")
check_has "the two halves of a cycle in one statement: refused (at the latest when it commits)" "$out" \
    '22023: a route from queue "rt_s[12]" to queue "rt_s[12]" would close a cycle'
check "... and neither is stored" "$(q "SELECT count(*) FROM fetchq.routes WHERE source IN ('rt_s1', 'rt_s2')")" 0
out=$(err "BEGIN; SELECT fetchq.route_create('rt_s1', 'rt_s2'); SELECT fetchq.route_create('rt_s2', 'rt_s1'); COMMIT")
check_has "... and in two statements of one transaction, at once" "$out" "22023: .*would close a cycle"
check "... neither stored" "$(q "SELECT count(*) FROM fetchq.routes WHERE source IN ('rt_s1', 'rt_s2')")" 0
out=$(q "BEGIN; SAVEPOINT s; SELECT fetchq.route_create('rt_s2', 'rt_s1') > 0; ROLLBACK TO s;
         SELECT fetchq.route_create('rt_s1', 'rt_s2') > 0; COMMIT" | paste -sd' ')
check "a route whose creation a savepoint rolled back closes no cycle at commit" "$out" "t t"
check "... the other is committed" \
    "$(q "SELECT string_agg(source || '>' || destination, ',') FROM fetchq.routes WHERE source IN ('rt_s1', 'rt_s2')")" "rt_s1>rt_s2"
# A prepared transaction would hold the lock of the check at commit until
# COMMIT PREPARED: refused before PostgreSQL looks at max_prepared_transactions.
q "SELECT fetchq.queue_create('rt_p')" >/dev/null
out=$(err "BEGIN; SELECT fetchq.route_create('rt_s2', 'rt_p'); PREPARE TRANSACTION 'rt_p'")
check_has "PREPARE TRANSACTION after route_create is refused with 0A000" "$out" \
    "0A000: cannot PREPARE a transaction that created routes"
check "... and the route is not stored" "$(q "SELECT count(*) FROM fetchq.routes WHERE destination = 'rt_p'")" 0
out=$(err "BEGIN; SELECT count(*) FROM fetchq.queues; PREPARE TRANSACTION 'rt_p'")
check_has "... while one that created no route gets PostgreSQL's own answer" "$out" \
    "prepared transactions are disabled"
q "SELECT fetchq.queue_create('rt_w')" >/dev/null
out=$(psql -X -q -At -d "$db" 2>&1 <<SQL
\set VERBOSITY verbose
BEGIN;
SELECT fetchq.route_create('rt_s2', 'rt_w') > 0;
\! psql -X -q -At -d "$db" -c "SELECT fetchq.route_create('rt_w', 'rt_s1') > 0 AS other_session"
COMMIT;
SQL
)
check "two open transactions closing a cycle: both routes are created" "$(grep -c '^t$' <<<"$out")" 2
check_has "... the one that commits second fails with 22023" "$out" \
    '22023: a route from queue "rt_s2" to queue "rt_w" would close a cycle'
check_has "... naming the cycle, found at commit" "$out" \
    "The cycle would be rt_s2 -> rt_w -> rt_s1 -> rt_s2. It was found when the transaction"
check "... and only the first committed" \
    "$(q "SELECT string_agg(source || '>' || destination, ',' ORDER BY id) FROM fetchq.routes WHERE 'rt_w' IN (source, destination)")" "rt_w>rt_s1"
q "SELECT fetchq.route_drop('rt_w', 'rt_s1')" >/dev/null
out=$(err "SET fetchq.fault_injection = 'routes_pre_commit'; SELECT fetchq.route_create('rt_w', 'rt_s1')")
check_has "the check at commit runs for a route_create" "$out" "fault injected at routes_pre_commit"
check "... and when it fails, the route is not committed" "$(q "SELECT count(*) FROM fetchq.routes WHERE source = 'rt_w'")" 0
check "... while a commit that created no route does not run it" \
    "$(q "SET fetchq.fault_injection = 'routes_pre_commit'; SELECT fetchq.doc_push('rt_w', 'fi1')")" 1
check "no refused route was stored" "$(q "SELECT count(*) FROM fetchq.routes WHERE destination IN ('rt_src', 'rt_c') AND source <> 'rt_a' OR source = destination")" 0

echo "# selectors over subject, version, priority"
q "SELECT fetchq.queue_create('rt_v')" >/dev/null
q "SELECT fetchq.route_create('rt_b', 'rt_v', '\$subject like_regex \"^eu-\" && \$priority >= 5 && \$version == 1')" >/dev/null
q "SELECT fetchq.doc_push('rt_b', s, 1, p, now(), '{}') FROM (VALUES ('eu-1', 5), ('eu-2', 1), ('us-1', 9)) AS t(s, p)" >/dev/null
q "SELECT fetchq.doc_push('rt_b', 'eu-3', 0, 9, now(), '{}')" >/dev/null
q "SELECT fetchq.doc_push_many('rt_b', ARRAY['eu-4', 'us-4'], NULL, now(), 1, 6)" >/dev/null
check "\$subject, \$priority and \$version are the document's" "$(docs rt_v)" "eu-1,eu-4"

echo "# topics and subscriptions"
check "topic_create makes a queue" "$(q "SELECT was_created FROM fetchq.topic_create('rt_news')")" t
check "... listed in fetchq.queues" "$(q "SELECT is_topic FROM fetchq.queues WHERE name = 'rt_news'")" t
check "a push into a topic without subscriptions returns 0" "$(q "SELECT fetchq.doc_push('rt_news', 'n0')")" 0
q "SELECT fetchq.subscribe('rt_news', 'rt_all')" >/dev/null
q "SELECT fetchq.subscribe('rt_news', 'rt_sport', '\$.tag == \"sport\"')" >/dev/null
check "subscribe creates the queue" "$(q "SELECT count(*) FROM fetchq.queues WHERE name IN ('rt_all', 'rt_sport')")" 2
check "a push into a topic returns the subscriptions that received it" \
    "$(q "SELECT fetchq.doc_push('rt_news', 'n1', '{\"tag\": \"sport\"}')")" 2
check "... 1 when one selector matches" "$(q "SELECT fetchq.doc_push('rt_news', 'n2', '{\"tag\": \"art\"}')")" 1
check "... doc_push_many the copies queued" \
    "$(q "SELECT fetchq.doc_push_many('rt_news', ARRAY['n3', 'n4'], ARRAY['{\"tag\": \"sport\"}', '{}']::jsonb[])")" 3
check "the topic keeps nothing" "$(q "SELECT count(*) FROM fetchq_data.rt_news__docs")" 0
check "... the subscriptions have their copies" "$(docs rt_all) $(docs rt_sport)" "n1,n2,n3,n4 n1,n3"
check "fetchq.subscriptions lists them" \
    "$(q "SELECT string_agg(queue || ':' || temporary, ',' ORDER BY queue) FROM fetchq.subscriptions WHERE topic = 'rt_news'")" "rt_all:false,rt_sport:false"
check_has "subscribe to a queue that is not a topic is refused" "$(err "SELECT fetchq.subscribe('rt_src', 'rt_x')")" "42809: .*is not a topic"
check_has "topic_create on an ordinary queue is refused" "$(err "SELECT fetchq.topic_create('rt_src')")" "42710: .*is not a topic"
q "SELECT fetchq.unsubscribe('rt_news', 'rt_sport')" >/dev/null
check "unsubscribe: one subscription less" "$(q "SELECT fetchq.doc_push('rt_news', 'n5', '{\"tag\": \"sport\"}')")" 1
for queue in rt_all rt_sport; do counters_agree "$queue"; done
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "SET client_min_messages = debug1" \
    -c "SELECT fetchq.doc_push('rt_news', 'n1', '{}')" -c "SELECT fetchq.doc_push('rt_news', 'n6', '{}')" \
    -c "SELECT fetchq.topic_create('rt_quiet')" -c "SELECT fetchq.doc_push('rt_quiet', 'q1')" 2>&1 >/dev/null)
check "routing, a skipped duplicate and an empty topic raise no NOTICE or WARNING" "$(grep -E 'NOTICE|WARNING' <<<"$out" || true)" ""

out=$(q "SELECT (fetchq.topic_create(name => 'rt_named')).was_created;
          SELECT fetchq.subscribe(topic => 'rt_named', queue => 'rt_named_sub', selector => '\$.a == 1') > 0;
          SELECT fetchq.route_create(source => 'rt_named_sub', destination => 'rt_c', selector => NULL) > 0;
          SELECT fetchq.route_drop(source => 'rt_named_sub', destination => 'rt_c') > 0;
          SELECT fetchq.unsubscribe(topic => 'rt_named', queue => 'rt_named_sub') > 0;" | paste -sd' ')
check "named notation with the argument names of the API" "$out" "t t t t t"

echo "# temporary subscriptions end with their session"
psql -X -q -At -d "$db" -c "SELECT fetchq.subscribe_temporary('rt_news')" -c "SELECT pg_sleep(300) /* rt_temp */" \
    >/tmp/rt_temp_$$.out 2>/dev/null &
sleeper=$!
wait_for "subscribe_temporary subscribes a temporary queue" 20 \
    "SELECT count(*) FROM fetchq.subscriptions WHERE topic = 'rt_news' AND temporary" 1
temp=$(q "SELECT queue FROM fetchq.subscriptions WHERE topic = 'rt_news' AND temporary")
wait_for_output /tmp/rt_temp_$$.out 20
check "... whose name it returned" "$(head -1 /tmp/rt_temp_$$.out)" "$temp"
check "a push reaches it" "$(q "SELECT fetchq.doc_push('rt_news', 'n7')")" 2
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%rt_temp */'" >/dev/null
wait "$sleeper" 2>/dev/null || true
rm -f /tmp/rt_temp_$$.out
wait_for "the scheduler drops the queue of the ended session" 30 \
    "SELECT count(*) FROM fetchq.queues WHERE name = '$temp'" 0
check "... and its route: the next push counts one subscription less" "$(q "SELECT fetchq.doc_push('rt_news', 'n8')")" 1
check "... no route or subscription row names it" "$(named_anywhere "$temp")" 0

echo "# a route creation left open holds up nobody: the scheduler drops a temporary queue meanwhile"
q "SELECT fetchq.queue_create('rt_open_a'); SELECT fetchq.queue_create('rt_open_b')" >/dev/null
psql -X -q -At -d "$db" -c "SELECT fetchq.subscribe_temporary('rt_news')" -c "SELECT pg_sleep(300) /* rt_temp2 */" \
    >/dev/null 2>&1 &
sleeper=$!
wait_for "a temporary subscription" 20 \
    "SELECT count(*) FROM fetchq.subscriptions WHERE topic = 'rt_news' AND temporary" 1
temp=$(q "SELECT queue FROM fetchq.subscriptions WHERE topic = 'rt_news' AND temporary")
psql -X -q -At -d "$db" -c "BEGIN" -c "SELECT fetchq.route_create('rt_open_a', 'rt_open_b')" \
    -c "SELECT pg_sleep(300) /* rt_open */" >/dev/null 2>&1 &
opener=$!
wait_for "another session created a route and keeps its transaction open" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%rt_open */' AND xact_start IS NOT NULL AND backend_xid IS NOT NULL" 1
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%rt_temp2 */'" >/dev/null
wait "$sleeper" 2>/dev/null || true
wait_for "the scheduler drops the ended session's temporary queue meanwhile" 30 \
    "SELECT count(*) FROM fetchq.queues WHERE name = '$temp'" 0
check "... while the route creation is still open" \
    "$(q "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%rt_open */' AND state = 'active'")" 1
check "... which holds no lock on fetchq.routes stronger than an insert's" \
    "$(q "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
          WHERE a.query LIKE '%rt_open */' AND l.relation = 'fetchq.routes'::regclass
            AND l.mode NOT IN ('AccessShareLock', 'RowExclusiveLock')")" 0
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%rt_open */'" >/dev/null
wait "$opener" 2>/dev/null || true
check "... and whose route, never committed, is not there" \
    "$(q "SELECT count(*) FROM fetchq.routes WHERE source = 'rt_open_a'")" 0

echo "# the cache follows other sessions, and plain DML"
q "SELECT fetchq.queue_create('rt_k1')" >/dev/null
q "SELECT fetchq.queue_create('rt_k2')" >/dev/null
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" <<SQL
SELECT fetchq.doc_push('rt_k1', 'k1');
\! psql -X -q -d "$db" -c "SELECT fetchq.route_create('rt_k1', 'rt_k2')" >/dev/null
SELECT fetchq.doc_push('rt_k1', 'k2');
\! psql -X -q -d "$db" -c "UPDATE fetchq.routes SET selector = '\$.x == 1' WHERE source = 'rt_k1'" >/dev/null
SELECT fetchq.doc_push('rt_k1', 'k3', '{"x": 2}');
SELECT fetchq.doc_push('rt_k1', 'k4', '{"x": 1}');
\! psql -X -q -d "$db" -c "DELETE FROM fetchq.routes WHERE source = 'rt_k1'" >/dev/null
SELECT fetchq.doc_push('rt_k1', 'k5', '{"x": 1}');
SQL
)
check "a connected session sees routes created, changed and deleted by others" "$(docs rt_k2)" "k2,k4"
q "SELECT fetchq.topic_create('rt_t1')" >/dev/null
q "SELECT fetchq.topic_create('rt_t2')" >/dev/null
q "SELECT fetchq.route_create('rt_t1', 'rt_t2')" >/dev/null
q "INSERT INTO fetchq.routes (source, destination, owner) VALUES ('rt_t2', 'rt_t1', 'postgres')" >/dev/null
check_has "a cycle made by plain DML stops the push with an error naming it" \
    "$(err "SELECT fetchq.doc_push('rt_t1', 'loop')")" "55000: routes form a cycle: rt_t1 -> rt_t2 -> rt_t1"
q "DELETE FROM fetchq.routes WHERE source = 'rt_t2'" >/dev/null

echo "# queue_drop drops the routes in both directions"
q "SELECT fetchq.queue_drop('rt_a')" >/dev/null
check "no route or subscription row names the dropped queue" "$(named_anywhere rt_a)" 0
check "the other routes stay" "$(q "SELECT count(*) FROM fetchq.routes WHERE source = 'rt_src'")" 2

echo "# rights: the creator's, checked at delivery; the copy inserted as the destination's owner"
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE ROLE rt_app LOGIN" -c "CREATE ROLE rt_router LOGIN" \
    -c "CREATE ROLE rt_owner LOGIN" -c "CREATE ROLE rt_gone LOGIN" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d "$db" <<'SQL' >/dev/null
GRANT USAGE ON SCHEMA fetchq, fetchq_data TO rt_app, rt_router, rt_owner, rt_gone;
GRANT SELECT ON fetchq.queues, fetchq.metrics TO rt_app, rt_router, rt_owner, rt_gone;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA fetchq_data TO rt_app, rt_router, rt_owner, rt_gone;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA fetchq_data TO rt_app, rt_router, rt_owner, rt_gone;
GRANT CREATE ON SCHEMA fetchq_data TO rt_owner;
CREATE SCHEMA rt_owner AUTHORIZATION rt_owner;
SELECT fetchq.queue_create('rt_in');
SELECT fetchq.queue_create('rt_in2');
GRANT SELECT, INSERT, UPDATE, DELETE ON fetchq_data.rt_in__docs, fetchq_data.rt_in__logs TO rt_app, rt_router, rt_gone;
CREATE TABLE public.rt_seen (who name, search_path text);
GRANT INSERT ON public.rt_seen TO PUBLIC;
SQL
# rt_owner's queue, with a trigger of its own, open to rt_router (and rt_gone) only.
psql -X -q -v ON_ERROR_STOP=1 -U rt_owner -d "$db" <<'SQL' >/dev/null
SELECT fetchq.queue_create('rt_private');
GRANT SELECT, INSERT ON fetchq_data.rt_private__docs TO rt_router, rt_gone;
CREATE FUNCTION rt_owner.rt_spy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.rt_seen VALUES (current_user, current_setting('search_path'));
    PERFORM set_config('search_path', 'hijacked', false);
    RETURN NEW;
END $$;
CREATE TRIGGER rt_spy BEFORE INSERT ON fetchq_data.rt_private__docs FOR EACH ROW EXECUTE FUNCTION rt_owner.rt_spy();
SQL
check_has "a role that may not push into the destination cannot create the route" \
    "$(err rt_app "SELECT fetchq.route_create('rt_in', 'rt_private')")" "42501: permission denied to create a route"
# (docs/install.md's grants give no write on fetchq.routes; row security
# refuses it to a role given one anyway)
check_has "plain DML cannot plant a route either" \
    "$(err rt_app "INSERT INTO fetchq.routes (source, destination, owner) VALUES ('rt_in', 'rt_private', 'postgres')")" \
    "42501: permission denied for table routes"
q "GRANT INSERT ON fetchq.routes TO rt_app; GRANT USAGE ON SEQUENCE fetchq.routes_id_seq TO rt_app" >/dev/null
check_has "... nor with INSERT granted on fetchq.routes" \
    "$(err rt_app "INSERT INTO fetchq.routes (source, destination, owner) VALUES ('rt_in', 'rt_private', 'postgres')")" \
    "42501: new row violates row-level security"
q "REVOKE INSERT ON fetchq.routes FROM rt_app; REVOKE USAGE ON SEQUENCE fetchq.routes_id_seq FROM rt_app" >/dev/null
as rt_router "SELECT fetchq.route_create('rt_in', 'rt_private')" >/dev/null
check "a route made by a role that may push there" "$(q "SELECT owner::text FROM fetchq.routes WHERE source = 'rt_in'")" rt_router
check_has "... cannot be taken over by plain DML" \
    "$(as rt_app "UPDATE fetchq.routes SET owner = 'postgres' WHERE destination = 'rt_private' RETURNING id")" \
    "permission denied for table routes"
out=$(err rt_app "SELECT fetchq.doc_push('rt_in', 'secret'); SHOW search_path")
check "a role that may not push into the destination gets its documents delivered" "$(docs rt_private)" secret
check "... inserted as the destination's owner (its trigger runs as that role)" "$(q "SELECT string_agg(who::text, ',') FROM public.rt_seen")" rt_owner
check "... whose settings do not reach the pusher" "$(tail -1 <<<"$out")" '"$user", public'
check_has "the pusher still cannot read the destination" "$(as rt_app "SELECT count(*) FROM fetchq_data.rt_private__docs")" "permission denied"
q "SELECT fetchq.route_create('rt_in2', 'rt_private')" >/dev/null
q "SELECT fetchq.doc_push('rt_in2', 'from_superuser')" >/dev/null
check "a superuser's route runs the owner's trigger as the owner, not as superuser" \
    "$(q "SELECT string_agg(who::text, ',') FROM public.rt_seen")" "rt_owner,rt_owner"
q "SELECT fetchq.topic_create('rt_closed')" >/dev/null
check_has "a push into a topic needs the right to push into it, though it keeps nothing" \
    "$(err rt_app "SELECT fetchq.doc_push('rt_closed', 'x')")" '42501: permission denied for queue "rt_closed"'
q "ALTER TABLE fetchq_data.rt_in__docs ENABLE ROW LEVEL SECURITY; CREATE POLICY rt_all ON fetchq_data.rt_in__docs USING (true)" >/dev/null
check_has "row security on the source, for the creator: the push fails with 42501" \
    "$(err rt_app "SELECT fetchq.doc_push('rt_in', 'filtered')")" "42501: route [0-9]+ .* may not deliver"
check_has "... and such a route cannot be created" \
    "$(err rt_router "SELECT fetchq.route_create('rt_in', 'rt_b')")" "42501: permission denied to create a route"
q "DROP POLICY rt_all ON fetchq_data.rt_in__docs; ALTER TABLE fetchq_data.rt_in__docs DISABLE ROW LEVEL SECURITY" >/dev/null
q "REVOKE INSERT ON fetchq_data.rt_private__docs FROM rt_router" >/dev/null
out=$(err rt_app "SELECT fetchq.doc_push('rt_in', 'after_revoke')")
check_has "a creator who lost the right: the push fails with 42501 naming the route" "$out" \
    '42501: route [0-9]+ from queue "rt_in" to queue "rt_private" may not deliver'
check "... and nothing is pushed" "$(q "SELECT count(*) FROM fetchq_data.rt_in__docs WHERE subject = 'after_revoke'")" 0
check_has "route_drop by another role is refused" "$(err rt_app "SELECT fetchq.route_drop('rt_in', 'rt_private')")" "42501: must be the creator"
check "route_drop by its creator" "$(as rt_router "SELECT fetchq.route_drop('rt_in', 'rt_private') > 0")" t
q "SELECT fetchq.route_drop('rt_in2', 'rt_private')" >/dev/null
check "... after which no route or subscription row names its destination" "$(named_anywhere rt_private)" 0
check_has "route_drop of a missing route" "$(err "SELECT fetchq.route_drop('rt_in', 'rt_private')")" "42704: .*does not exist"
as rt_gone "SELECT fetchq.route_create('rt_in', 'rt_private')" >/dev/null
psql -X -q -d "$db" -c "DROP OWNED BY rt_gone" >/dev/null
psql -X -q -d postgres -c "DROP ROLE rt_gone" >/dev/null
check_has "a creator that was dropped: the push fails with 42501 naming the route" \
    "$(err rt_app "SELECT fetchq.doc_push('rt_in', 'orphan_route')")" "42501: route [0-9]+ .* may not deliver"
q "SELECT fetchq.route_drop('rt_in', 'rt_private')" >/dev/null
q "DROP TRIGGER rt_spy ON fetchq_data.rt_private__docs; DROP TABLE public.rt_seen" >/dev/null

echo
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all routes checks passed"
