#!/usr/bin/env bash
# doc_send's depends_on (issue 30): a document that waits on others, in any
# queue, is neither picked nor promoted until every one of them is
# completed; it becomes pickable in the transaction that completes the last
# one. A missing or killed dependency is refused and nothing is sent. A kill
# (doc_kill, a reject or an expired lock that used up the attempts) kills
# the documents still waiting on it, transitively, in the same transaction,
# each with a row in its own queue's log; so does a dependency that leaves
# without being completed (expired, dropped, its queue truncated or dropped),
# and a waiting document that expires leaves no wait behind. doc_take takes a
# waiting document.
# The counters equal metric_compute's after every move. Naming a document
# takes read on its queue; the release and the cascade write a dependent's
# queue as that queue's owner, restricted (attacked below: a trigger on the
# dependent's queue tries to make its owner a superuser when a superuser
# completes the dependency). A queue nobody waits on never reads
# fetchq.doc_dependencies.
# Env: PGHOST PGPORT PGUSER (a superuser); $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

roles="dd_w dd_s"
cleanup() {
    for role in $roles; do
        psql -X -q -d postgres -c "ALTER ROLE $role NOSUPERUSER" >/dev/null 2>&1 || true
    done
    for role in $roles; do
        psql -X -q -d "$db" -c "DROP OWNED BY $role CASCADE" >/dev/null 2>&1 || true
        psql -X -q -d postgres -c "DROP ROLE IF EXISTS $role" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT
cleanup

# err SQL: "SQLSTATE message" of the error SQL raises, or "no error".
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
status() { q "SELECT status || CASE WHEN status = 0 AND next_iteration = 'infinity' THEN ' waiting' ELSE '' END
              FROM fetchq_data.$1__docs WHERE subject = '$2'"; }
ref() { echo "ARRAY[$(printf "('%s')," "$@" | sed 's/,$//')]::fetchq.doc_ref[]"; }

for q1 in da db dc; do q "SELECT fetchq.queue_create('$q1')" >/dev/null; done

echo "--- waiting and release"
q "SELECT fetchq.doc_send('da', 'a1'); SELECT fetchq.doc_send('da', 'a2')" >/dev/null
check "a document waiting on two others, in another queue" \
    "$(q "SELECT fetchq.doc_send(queue => 'db', subject => 'b1', payload => '{\"n\": 1}',
                                 depends_on => $(ref "da', 'a1" "da', 'a2"))")" 1
check "it waits: planned, next_iteration infinity" "$(status db b1)" "0 waiting"
check "counters agree after the send" "$(agree da db)" agree
check "it counts as planned" "$(q "SELECT pln, pnd FROM fetchq.metric_get_common('db')")" "1|0"
check "fetchq.stats: planned, not ready, no next_planned_at" \
    "$(q "SELECT planned, ready, next_planned_at IS NULL FROM fetchq.stats('db')")" "1|0|t"
check "a pick does not see it" "$(q "SELECT count(*) FROM fetchq.doc_pick('db', 0, 1, '1m')")" 0
q "SELECT * FROM fetchq.mnt_run('db', 100)" >/dev/null
check "promotion leaves it alone" "$(status db b1)" "0 waiting"
q "SELECT count(*) FROM fetchq.doc_pick('da', 0, 2, '1m')" >/dev/null
check "the first completion returns its own count" "$(q "SELECT fetchq.doc_complete('da', 'a1')")" 1
check "one dependency left: still waiting" "$(status db b1)" "0 waiting"
check "counters agree" "$(agree da db)" agree
check "a rolled-back completion of the last one keeps it waiting" \
    "$(q "BEGIN; SELECT fetchq.doc_complete('da', 'a2'); ROLLBACK;" >/dev/null; status db b1)" "0 waiting"
check "the last completion makes it pending in the same transaction" \
    "$(q "BEGIN; SELECT fetchq.doc_complete('da', 'a2');
          SELECT status FROM fetchq_data.db__docs WHERE subject = 'b1'; COMMIT" | tail -1)" 1
check "with the next_iteration it was sent with" \
    "$(q "SELECT next_iteration <= now() FROM fetchq_data.db__docs WHERE subject = 'b1'")" t
check "counters agree after the release (pnd +1, pln -1)" "$(agree da db)" agree
check "pickable now" "$(q "SELECT subject FROM fetchq.doc_pick('db', 0, 1, '1m')")" b1
check "no wait left in the catalog" \
    "$(q "SELECT (SELECT count(*) FROM fetchq.doc_waits) + (SELECT count(*) FROM fetchq.doc_dependencies)")" 0

q "SELECT fetchq.doc_send('da', 'a3')" >/dev/null
q "SELECT fetchq.doc_send('db', 'later', next_iteration => now() + interval '1 day', depends_on => $(ref "da', 'a3"))" >/dev/null
q "SELECT count(*) FROM fetchq.doc_take('da', 'a3', '1m'); SELECT fetchq.doc_complete('da', 'a3')" >/dev/null
check "released to a future next_iteration: planned then" \
    "$(q "SELECT status, next_iteration > now() + interval '23 hours' FROM fetchq_data.db__docs WHERE subject = 'later'")" "0|t"

echo "--- in one transaction: the first wait on a queue is seen by its completion"
check "sent, taken and completed in one transaction: released" \
    "$(q "SELECT fetchq.queue_create('dst');
          BEGIN;
          SELECT fetchq.doc_send('dst', 'st0');
          SELECT fetchq.doc_send('db', 'st1', depends_on => $(ref "dst', 'st0"));
          SELECT count(*) FROM fetchq.doc_take('dst', 'st0', '1m');
          SELECT fetchq.doc_complete('dst', 'st0');
          SELECT status FROM fetchq_data.db__docs WHERE subject = 'st1';
          COMMIT" | tail -1)" 1

echo "--- dependencies done or missing at send"
q "SELECT fetchq.doc_send('da', 'done'); SELECT count(*) FROM fetchq.doc_take('da', 'done', '1m');
   SELECT fetchq.doc_complete('da', 'done')" >/dev/null
q "SELECT fetchq.doc_send('db', 'free', depends_on => $(ref "da', 'done"))" >/dev/null
check "a completed dependency: sent as if without it" "$(status db free)" 1
check "a missing document is refused, naming it" \
    "$(err "SELECT fetchq.doc_send('db', 'm1', depends_on => $(ref "da', 'done" "da', 'nope"))")" \
    '23503 dependency document "nope" of queue "da" does not exist'
check "a missing queue is refused" \
    "$(err "SELECT fetchq.doc_send('db', 'm1', depends_on => $(ref "nosuch', 'x"))")" \
    '23503 dependency document "x" of queue "nosuch" does not exist'
check "nothing was sent" "$(q "SELECT count(*) FROM fetchq_data.db__docs WHERE subject = 'm1'")" 0
q "SELECT fetchq.doc_send('da', 'dead'); SELECT count(*) FROM fetchq.doc_take('da', 'dead', '1m');
   SELECT fetchq.doc_kill('da', 'dead')" >/dev/null
check_has "a killed dependency is refused" \
    "$(err "SELECT fetchq.doc_send('db', 'm2', depends_on => $(ref "da', 'dead"))")" '^22023 .*"dead".* was killed'
check_has "a NULL element is refused" \
    "$(err "SELECT fetchq.doc_send('db', 'm3', depends_on => ARRAY[NULL]::fetchq.doc_ref[])")" '^22004'
check_has "a bad queue name is refused" \
    "$(err "SELECT fetchq.doc_send('db', 'm3', depends_on => $(ref "No Name', 'x"))")" '^42602'
check "an empty array: no dependency" \
    "$(q "SELECT fetchq.doc_send('db', 'm4', depends_on => '{}'); SELECT status FROM fetchq_data.db__docs WHERE subject = 'm4'" | tail -1)" 1
q "SELECT fetchq.queue_create('drouted'); SELECT fetchq.route_create('drouted', 'dc')" >/dev/null
q "SELECT fetchq.doc_send('da', 'r0')" >/dev/null
check_has "a queue with routes does not take waiting documents" \
    "$(err "SELECT fetchq.doc_send('drouted', 'w', depends_on => $(ref "da', 'r0"))")" '^0A000'

echo "--- doc_take takes a waiting document"
q "SELECT fetchq.doc_send('da', 't0'); SELECT fetchq.doc_send('db', 't1', depends_on => $(ref "da', 't0"))" >/dev/null
check "taken" "$(q "SELECT subject FROM fetchq.doc_take('db', 't1', '1m')")" t1
check "counters agree after the take" "$(agree db)" agree
q "SELECT count(*) FROM fetchq.doc_take('da', 't0', '1m'); SELECT fetchq.doc_complete('da', 't0')" >/dev/null
check "completing its dependency leaves the taken document active" "$(status db t1)" 2

echo "--- cascade"
# k0 <- k1 (db) <- k2 (dc); k3 (dc) waits on k0 too but is taken; k4 waits on k1 and on another
q "SELECT fetchq.doc_send('da', 'k0'); SELECT fetchq.doc_send('da', 'other');
   SELECT fetchq.doc_send('db', 'k1', depends_on => $(ref "da', 'k0"));
   SELECT fetchq.doc_send('dc', 'k2', depends_on => $(ref "db', 'k1"));
   SELECT fetchq.doc_send('dc', 'k3', depends_on => $(ref "da', 'k0"));
   SELECT fetchq.doc_send('dc', 'k4', depends_on => $(ref "db', 'k1" "da', 'other"));
   SELECT count(*) FROM fetchq.doc_take('dc', 'k3', '1m');
   SELECT count(*) FROM fetchq.doc_take('da', 'k0', '1m')" >/dev/null
check "doc_kill returns the count of the named document only" "$(q "SELECT fetchq.doc_kill('da', 'k0')")" 1
check "its waiting dependent is killed" "$(status db k1)" -1
check "and theirs, transitively" "$(q "SELECT string_agg(subject || ':' || status, ',' ORDER BY subject)
                                       FROM fetchq_data.dc__docs WHERE subject LIKE 'k%'")" "k2:-1,k3:2,k4:-1"
check "a row in each dependent's own log, naming the cause" \
    "$(q "SELECT string_agg(message, ' | ') FROM fetchq_data.db__logs WHERE subject = 'k1'")" \
    'killed: it waited on document "k0" of queue "da", killed'
check "the log's details name the cause" \
    "$(q "SELECT details::text FROM fetchq_data.dc__logs WHERE subject = 'k2'")" '{"queue": "db", "subject": "k1"}'
check "counters agree after the cascade" "$(agree da db dc)" agree
q "SELECT count(*) FROM fetchq.doc_take('da', 'other', '1m'); SELECT fetchq.doc_complete('da', 'other')" >/dev/null
check "a killed dependent's other dependency no longer releases it" "$(status dc k4)" -1

q "SELECT fetchq.queue_set_max_attempts('da', 1); SELECT fetchq.doc_send('da', 'rj');
   SELECT fetchq.doc_send('db', 'rj1', depends_on => $(ref "da', 'rj"));
   SELECT count(*) FROM fetchq.doc_take('da', 'rj', '1m')" >/dev/null
q "SELECT fetchq.doc_reject('da', 'rj', 'no luck', '{}')" >/dev/null
check "a reject that uses up the attempts cascades" "$(status db rj1)" -1
check "counters agree after a reject's cascade" "$(agree da db)" agree
q "SELECT fetchq.queue_set_max_attempts('da', 5)" >/dev/null

echo "--- the scheduler's kill of a document out of attempts cascades"
q "SELECT fetchq.queue_create('dx'); SELECT fetchq.queue_set_max_attempts('dx', 1);
   SELECT fetchq.doc_send('dx', 'x0');
   SELECT fetchq.doc_send('db', 'x1', depends_on => $(ref "dx', 'x0"));
   SELECT count(*) FROM fetchq.doc_take('dx', 'x0', '1 second')" >/dev/null
wait_for "the lock expires, the scheduler kills it, and its dependent with it" 40 \
    "SELECT status FROM fetchq_data.db__docs WHERE subject = 'x1'" -1
check "killed by the scheduler" "$(status dx x0)" -1
check "the dependent's log names the cause" \
    "$(q "SELECT message FROM fetchq_data.db__logs WHERE subject = 'x1'")" \
    'killed: it waited on document "x0" of queue "dx", killed'
check "counters agree after the scheduler's cascade" "$(agree dx db)" agree

echo "--- a dependency that leaves without being completed kills its dependents"
q "SELECT fetchq.doc_send('da', 'e0', expires_at => now() + interval '2 seconds');
   SELECT fetchq.doc_send('db', 'e1', depends_on => $(ref "da', 'e0"));
   SELECT fetchq.doc_send('dc', 'e2', depends_on => $(ref "db', 'e1"), expires_at => now() + interval '1 day');
   SELECT fetchq.doc_send('da', 'w0');
   SELECT fetchq.doc_send('db', 'w1', depends_on => $(ref "da', 'w0"), expires_at => now() + interval '2 seconds')" >/dev/null
wait_for "the scheduler expires a dependency, and kills its dependent" 40 \
    "SELECT status FROM fetchq_data.db__docs WHERE subject = 'e1'" -1
check "... and the dependent's log says it expired" \
    "$(q "SELECT message FROM fetchq_data.db__logs WHERE subject = 'e1'")" \
    'killed: it waited on document "e0" of queue "da", expired'
check "... transitively" "$(status dc e2)" -1
check "counters agree after the expiry's cascade" "$(agree da db dc)" agree
wait_for "a waiting document expires" 40 "SELECT count(*) FROM fetchq_data.db__docs WHERE subject = 'w1'" 0
check "... and its wait with it" "$(q "SELECT count(*) FROM fetchq.doc_waits WHERE subject = 'w1'")" 0
check "its subject waits again when sent again" \
    "$(q "SELECT fetchq.doc_send('db', 'w1', depends_on => $(ref "da', 'w0"))" >/dev/null; status db w1)" "0 waiting"
q "SELECT fetchq.doc_send('da', 'p0'); SELECT fetchq.doc_send('db', 'p1', depends_on => $(ref "da', 'p0"));
   SELECT count(*) FROM fetchq.doc_take('da', 'p0', '1m')" >/dev/null
check "doc_drop of an active dependency" "$(q "SELECT fetchq.doc_drop('da', 'p0')")" 1
check "... kills its dependent" "$(q "SELECT message FROM fetchq_data.db__logs WHERE subject = 'p1'")" \
    'killed: it waited on document "p0" of queue "da", dropped'
q "SELECT fetchq.queue_create('dgone'); SELECT fetchq.doc_send('dgone', 'g0');
   SELECT fetchq.doc_send('db', 'g1', depends_on => $(ref "dgone', 'g0"))" >/dev/null
check "dropping a queue waited on" "$(q "SELECT was_dropped FROM fetchq.queue_drop('dgone')")" t
check "... kills the documents of other queues that waited on it" \
    "$(status db g1) $(q "SELECT message FROM fetchq_data.db__logs WHERE subject = 'g1'")" \
    '-1 killed: it waited on document "g0" of queue "dgone", dropped with its queue'
q "SELECT fetchq.queue_create('dtrunc'); SELECT fetchq.doc_send('dtrunc', 'tr0'); SELECT fetchq.doc_send('da', 'tw');
   SELECT fetchq.doc_send('db', 'tr1', depends_on => $(ref "dtrunc', 'tr0"));
   SELECT fetchq.doc_send('dtrunc', 'tw1', depends_on => $(ref "da', 'tw"))" >/dev/null
check "queue_truncate of a queue waited on" "$(q "SELECT fetchq.queue_truncate('dtrunc')")" t
check "... kills the documents that waited on its documents" \
    "$(status db tr1) $(q "SELECT message FROM fetchq_data.db__logs WHERE subject = 'tr1'")" \
    '-1 killed: it waited on document "tr0" of queue "dtrunc", truncated with its queue'
check "... and forgets the waits of its own documents" \
    "$(q "SELECT count(*) FROM fetchq.doc_waits WHERE subject = 'tw1'")" 0
check "counters agree after the drops" "$(agree da db)" agree
check "no wait left of the documents gone" \
    "$(q "SELECT count(*) FROM fetchq.doc_waits WHERE subject IN ('e1', 'e2', 'p1', 'g1')")" 0

echo "--- doc_complete_many releases"
q "SELECT fetchq.doc_send('da', 'm1'); SELECT fetchq.doc_send('da', 'm2');
   SELECT fetchq.doc_send('db', 'mm', depends_on => $(ref "da', 'm1" "da', 'm2"));
   SELECT count(*) FROM fetchq.doc_take('da', 'm1', '1m'); SELECT count(*) FROM fetchq.doc_take('da', 'm2', '1m')" >/dev/null
if q "SELECT 1 FROM pg_proc WHERE proname = 'doc_complete_many'" | grep -q 1; then
    q "SELECT fetchq.doc_complete_many('da', ARRAY['m1', 'm2'])" >/dev/null
else
    q "SELECT fetchq.doc_complete('da', 'm1'); SELECT fetchq.doc_complete('da', 'm2')" >/dev/null
fi
check "released" "$(status db mm)" 1
check "counters agree" "$(agree da db)" agree

echo "--- cost: a queue nobody waits on never reads the catalog of waits"
scans="pg_stat_get_xact_numscans('fetchq.doc_dependencies'::regclass)
       + pg_stat_get_xact_numscans('fetchq.__fetchq_doc_dependencies_dependency_idx'::regclass)"
q "SELECT fetchq.queue_create('dfree'); SELECT fetchq.doc_send('dfree', 'f1');
   SELECT count(*) FROM fetchq.doc_take('dfree', 'f1', '1m')" >/dev/null
check "completing in it scans nothing" \
    "$(q "BEGIN; SELECT fetchq.doc_complete('dfree', 'f1');
          SELECT $scans; COMMIT" | tail -1)" 0
q "SELECT fetchq.doc_send('da', 'f2'); SELECT count(*) FROM fetchq.doc_take('da', 'f2', '1m')" >/dev/null
check "completing in a queue waited on probes the index" \
    "$(q "BEGIN; SELECT fetchq.doc_complete('da', 'f2');
          SELECT $scans > 0; COMMIT" | tail -1)" t

echo "--- privileges"
q "CREATE ROLE dd_w LOGIN; CREATE ROLE dd_s LOGIN; GRANT USAGE ON SCHEMA fetchq TO dd_s;
   GRANT USAGE, CREATE ON SCHEMA fetchq_data TO dd_w; GRANT USAGE ON SCHEMA fetchq TO dd_w;
   GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA fetchq TO dd_w;
   GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA fetchq TO dd_w;
   CREATE SCHEMA dd_w AUTHORIZATION dd_w"
psql -X -q -At -U dd_w -d "$db" -c "SELECT fetchq.queue_create('dw')" >/dev/null
psql -X -q -At -U dd_w -d "$db" -c "SELECT fetchq.queue_grant('dw', 'dd_s', 'push')" >/dev/null
q "SELECT fetchq.queue_grant('da', 'dd_s', 'push'); SELECT fetchq.doc_send('da', 'p0')" >/dev/null
check_has "a sender without read on the dependency's queue is refused" \
    "$(psql -X -q -At -U dd_s -d "$db" -c '\set VERBOSITY verbose' \
        -c "SELECT fetchq.doc_send('dw', 's1', depends_on => $(ref "da', 'p0"))" 2>&1)" \
    '42501: permission denied to depend on documents of queue "da"'
q "SELECT fetchq.queue_grant('da', 'dd_s', 'read')" >/dev/null
check "with read on it, sent" \
    "$(psql -X -q -At -U dd_s -d "$db" -c "SELECT fetchq.doc_send('dw', 's1', depends_on => $(ref "da', 'p0"))")" 1

echo "--- attack: the release runs the dependent's triggers as its queue's owner"
psql -X -q -v ON_ERROR_STOP=1 -U dd_w -d "$db" >/dev/null <<'SQL'
CREATE TABLE dd_w.seen (subject text, who name);
GRANT USAGE ON SCHEMA dd_w TO PUBLIC;
GRANT INSERT ON dd_w.seen TO PUBLIC;
CREATE FUNCTION dd_w.escalate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO dd_w.seen VALUES (NEW.subject, current_user);
    BEGIN
        EXECUTE 'ALTER ROLE dd_w SUPERUSER';
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
    RETURN NEW;
END $$;
CREATE TRIGGER escalate BEFORE UPDATE ON fetchq_data.dw__docs
    FOR EACH ROW EXECUTE FUNCTION dd_w.escalate();
SQL
q "SELECT count(*) FROM fetchq.doc_take('da', 'p0', '1m'); SELECT fetchq.doc_complete('da', 'p0')" >/dev/null
check "the superuser's completion released dd_w's document" "$(status dw s1)" 1
check "dd_w's trigger ran as dd_w, not as the superuser" \
    "$(q "SELECT coalesce(string_agg(DISTINCT who::text, ','), 'none') FROM dd_w.seen WHERE subject = 's1'")" dd_w
check "dd_w did not become a superuser" "$(q "SELECT rolsuper FROM pg_roles WHERE rolname = 'dd_w'")" f
q "ALTER ROLE dd_w NOSUPERUSER"
q "SELECT fetchq.doc_send('da', 'p1')" >/dev/null
psql -X -q -At -U dd_s -d "$db" -c "SELECT fetchq.doc_send('dw', 's2', depends_on => $(ref "da', 'p1"))" >/dev/null
q "SELECT count(*) FROM fetchq.doc_take('da', 'p1', '1m'); SELECT fetchq.doc_kill('da', 'p1')" >/dev/null
check "the superuser's kill killed dd_w's document" "$(status dw s2)" -1
check "dd_w's trigger ran as dd_w on the cascade" \
    "$(q "SELECT coalesce(string_agg(DISTINCT who::text, ','), 'none') FROM dd_w.seen WHERE subject = 's2'")" dd_w
check "dd_w did not become a superuser through the cascade" "$(q "SELECT rolsuper FROM pg_roles WHERE rolname = 'dd_w'")" f

[ "$failures" -eq 0 ]
