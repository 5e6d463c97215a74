#!/usr/bin/env bash
# Remote routes (issue 34), on two clusters of their own, A and B, both with
# wal_level = logical and fetchq preloaded: A's queue "orders" routes to B's
# queue "inbox" over a publication of A and a subscription of B
# (fetchq.remote_route_create on A, fetchq.remote_subscribe on B).
# - a committed push arrives once, a rolled back one never, in A's commit
#   order, with where it came from (fetchq.doc_origin);
# - a subject already in B's queue is skipped; a selector picks;
# - B stopped while A pushes, then started: every document arrives once;
# - A stopped immediately in the middle of a load and started again: B holds
#   exactly the documents A committed;
# - a role that may not push into a queue of B gets nothing delivered there,
#   and the queue's triggers run as its owner, never as the subscription's
#   (superuser) owner;
# - a cycle A -> B -> A delivers each document once in each database;
# - a delivered document that goes on B takes its origin row with it, and
#   one pushed again on B under its subject has no origin;
# - the outbox never keeps a row; dropping the route and unsubscribing
#   leave no route and no slot.
# Every wait polls with a deadline. Uses PATH's pg_config for the binaries;
# $1 (the runner's database) is not used.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
PGBIN=${PGBIN:-$(pg_config --bindir)}
export PGBIN PGUSER=postgres
db=ra # for lib/checks.sh; every statement below names its cluster
source "$here/test/lib/checks.sh"
source "$here/test/lib/own_clusters.sh"
own_clusters remote
ca=$dir/a
cb=$dir/b
conf=("wal_level = logical" "max_replication_slots = 8" "max_wal_senders = 8"
    "max_logical_replication_workers = 4" "wal_sender_timeout = 10s")
aport=$("$here/scripts/pg_cluster.sh" start "$ca" "${conf[@]}")
bport=$("$here/scripts/pg_cluster.sh" start "$cb" "${conf[@]}")
qa() { PGHOST=$ca PGPORT=$aport psql -X -q -At -v ON_ERROR_STOP=1 -d ra -c "$1"; }
qb() { PGHOST=$cb PGPORT=$bport psql -X -q -At -v ON_ERROR_STOP=1 -d rb -c "$1"; }
on_a() { PGHOST=$ca PGPORT=$aport "$@"; }
on_b() { PGHOST=$cb PGPORT=$bport "$@"; }
# wait_a / wait_b DESCRIPTION SECONDS SQL EXPECTED
wait_a() { on_a wait_for_in "$1" "$2" ra "$3" "$4"; }
wait_b() { on_b wait_for_in "$1" "$2" rb "$3" "$4"; }
start_cluster() { as_pg "$PGBIN/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 60 start >/dev/null; }
stop_cluster() { as_pg "$PGBIN/pg_ctl" -D "$1/data" -m "$2" -w stop >/dev/null; }

on_a psql -X -q -d postgres -c "CREATE DATABASE ra"
on_b psql -X -q -d postgres -c "CREATE DATABASE rb"
qa "SET client_min_messages = warning; CREATE EXTENSION fetchq"
qb "SET client_min_messages = warning; CREATE EXTENSION fetchq"
a_id="$(qa "SELECT system_identifier FROM pg_control_system()")/ra"
b_id="$(qb "SELECT system_identifier FROM pg_control_system()")/rb"

# On B, the queues belong to rb_owner, not a superuser; rb_app may push into
# inbox and picky only. A trigger on each queue's documents table records
# the user it runs as.
qb "CREATE ROLE rb_owner LOGIN; CREATE ROLE rb_app LOGIN;
    GRANT USAGE, CREATE ON SCHEMA fetchq_data TO rb_owner; GRANT USAGE ON SCHEMA fetchq TO rb_owner;
    GRANT SELECT ON fetchq.queues TO rb_owner;
    GRANT USAGE ON SCHEMA fetchq TO rb_app;
    CREATE TABLE public.ran_as (queue text, subject text, who text);
    GRANT INSERT ON public.ran_as TO PUBLIC;
    CREATE FUNCTION public.note_user() RETURNS trigger LANGUAGE plpgsql AS
      \$\$BEGIN INSERT INTO public.ran_as VALUES (TG_TABLE_NAME, NEW.subject, current_user); RETURN NEW; END\$\$"
qb "SET ROLE rb_owner;
    SELECT fetchq.queue_create('inbox'); SELECT fetchq.queue_create('secret');
    SELECT fetchq.queue_create('picky');
    GRANT SELECT, INSERT ON fetchq_data.inbox__docs, fetchq_data.picky__docs TO rb_app;
    CREATE TRIGGER note AFTER INSERT ON fetchq_data.inbox__docs FOR EACH ROW
      EXECUTE FUNCTION public.note_user();
    CREATE TRIGGER note AFTER INSERT ON fetchq_data.secret__docs FOR EACH ROW
      EXECUTE FUNCTION public.note_user()" >/dev/null
qa "SELECT fetchq.queue_create('orders')" >/dev/null

# --- the route and the subscription -----------------------------------------
qa "SELECT fetchq.remote_route_create('orders', 'b/inbox')" >/dev/null
qa "SELECT fetchq.remote_route_create('orders', 'b/secret')" >/dev/null
qa "SELECT fetchq.remote_route_create('orders', 'b/picky', '\$.kind == \"x\"')" >/dev/null
check "remote_route_create made the link's publication, inserts only" \
    "$(qa "SELECT pubinsert, pubupdate, pubdelete FROM pg_publication WHERE pubname = 'fetchq_remote_b'")" "t|f|f"
check "a destination without a link is refused" \
    "$(qa "SELECT fetchq.remote_route_create('orders', 'inbox')" 2>&1 | grep -c 'does not name a remote queue')" 1
check "the same route twice is refused" \
    "$(qa "SELECT fetchq.remote_route_create('orders', 'b/inbox')" 2>&1 | grep -c 'already exists')" 1
check "a role that may not read the source may not create a remote route" \
    "$(qa "CREATE ROLE ra_nobody; GRANT USAGE ON SCHEMA fetchq, fetchq_data TO ra_nobody;
           SET ROLE ra_nobody; SELECT fetchq.remote_route_create('orders', 'b/x')" 2>&1 |
        grep -c 'permission denied to create a remote route')" 1

qa "CREATE ROLE ra_other; GRANT USAGE ON SCHEMA fetchq, fetchq_data TO ra_other;
    CREATE ROLE ra_reader; GRANT USAGE ON SCHEMA fetchq, fetchq_data TO ra_reader;
    GRANT SELECT ON fetchq_data.orders__docs TO ra_reader" >/dev/null
check "a role that may read every document of the source creates a remote route" \
    "$(qa "SET ROLE ra_reader; SELECT fetchq.remote_route_create('orders', 'b/byreader') > 0;
           SELECT owner::text FROM fetchq.remote_route_status WHERE queue = 'byreader'")" "t
ra_reader"
check "another role may not drop it" \
    "$(qa "SET ROLE ra_other; SELECT fetchq.remote_route_drop('orders', 'b/byreader')" 2>&1 |
        grep -c 'must be the creator')" 1
check "its creator may" \
    "$(qa "SET ROLE ra_reader; SELECT fetchq.remote_route_drop('orders', 'b/byreader') > 0")" t

# A restored dump has the publication without its table (pg_dump leaves out
# an extension's tables): the next route to the link puts it back.
qa "ALTER PUBLICATION fetchq_remote_b DROP TABLE fetchq.remote_outbox"
check "the status shows a publication that does not carry the outbox" \
    "$(qa "SELECT DISTINCT published FROM fetchq.remote_route_status WHERE link = 'b'")" f
qa "SELECT fetchq.remote_route_create('orders', 'b/extra'); SELECT fetchq.remote_route_drop('orders', 'b/extra')" >/dev/null
check "the next remote_route_create to the link makes it whole" \
    "$(qa "SELECT DISTINCT published FROM fetchq.remote_route_status WHERE link = 'b'")|$(
        qa "SELECT count(*) FROM pg_publication_tables WHERE pubname = 'fetchq_remote_b'")" "t|1"

conn_a="host=$ca port=$aport dbname=ra user=postgres"
conn_b="host=$cb port=$bport dbname=rb user=postgres"
check "remote_subscribe is for superusers" \
    "$(qb "SET ROLE rb_app; SELECT fetchq.remote_subscribe('b', '$conn_a', 'rb_app')" 2>&1 |
        grep -c 'must be superuser')" 1
check "remote_subscribe refuses a link that has no publication" \
    "$(qb "SELECT fetchq.remote_subscribe('nolink', '$conn_a', 'rb_app')" 2>&1 |
        grep -c 'has no publication')" 1
qb "SELECT fetchq.remote_subscribe('b', '$conn_a', 'rb_app')" >/dev/null
check "B's subscription reads A's slot fetchq_remote_b" \
    "$(qa "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'fetchq_remote_b' AND plugin = 'pgoutput'")" 1
wait_a "the slot is read" 30 \
    "SELECT slot_active FROM fetchq.remote_route_status WHERE source = 'orders' AND queue = 'inbox'" t

# --- commit, rollback, order --------------------------------------------------
qa "SELECT fetchq.doc_push('orders', 'c1', '{\"n\": 1}')" >/dev/null
wait_b "a committed push arrives" 30 "SELECT count(*) FROM fetchq_data.inbox__docs WHERE subject = 'c1'" 1
check "it is pending on B, with its payload" \
    "$(qb "SELECT status, payload->>'n' FROM fetchq_data.inbox__docs WHERE subject = 'c1'")" "1|1"
check "doc_origin tells where it came from and the databases it passed" \
    "$(qb "SELECT source_db = '$a_id', seenby = ARRAY['$a_id', '$b_id'], link, sent_at <= arrived_at
           FROM fetchq.doc_origin('inbox', 'c1')")" "t|t|b|t"
check "doc_origin has no row for a document pushed on B" \
    "$(qb "SELECT fetchq.doc_push('inbox', 'local1', '{}');
           SELECT count(*) FROM fetchq.doc_origin('inbox', 'local1')")" "1
0"
check "doc_origin needs read on the queue" \
    "$(qb "CREATE ROLE rb_stranger; GRANT USAGE ON SCHEMA fetchq TO rb_stranger; SET ROLE rb_stranger;
           SELECT * FROM fetchq.doc_origin('inbox', 'c1')" 2>&1 | grep -c 'permission denied\|may not')" 1
qa "BEGIN; SELECT fetchq.doc_push('orders', 'r1', '{}'); ROLLBACK" >/dev/null
qa "BEGIN; SELECT fetchq.doc_push('orders', 'r2', '{}'); SAVEPOINT s;
    SELECT fetchq.doc_push('orders', 'r3', '{}'); ROLLBACK TO s;
    SELECT fetchq.doc_push('orders', 'c2', '{}'); COMMIT" >/dev/null
wait_b "the next committed push arrives" 30 "SELECT count(*) FROM fetchq_data.inbox__docs WHERE subject = 'c2'" 1
check "a rolled back push never arrives (nor one rolled back to a savepoint)" \
    "$(qb "SELECT string_agg(subject, ',' ORDER BY subject) FROM fetchq_data.inbox__docs WHERE subject LIKE 'r%'")" "r2"
{
    for i in $(seq -w 1 30); do echo "SELECT fetchq.doc_push('orders', 'o$i', '{}');"; done
} | on_a psql -X -q -At -v ON_ERROR_STOP=1 -d ra >/dev/null
wait_b "thirty pushes arrive" 60 "SELECT count(*) FROM fetchq_data.inbox__docs WHERE subject LIKE 'o%'" 30
check "in A's commit order" \
    "$(qb "SELECT string_agg(subject, ',' ORDER BY arrived_at, subject) FROM fetchq.doc_origins WHERE subject LIKE 'o%'")" \
    "$(seq -w 1 30 | sed 's/^/o/' | paste -sd,)"
check "A's outbox keeps no row" "$(qa "SELECT count(*) FROM fetchq.remote_outbox")" 0
check "B's inbox (the same table) keeps no row" "$(qb "SELECT count(*) FROM fetchq.remote_outbox")" 0
check "a push many (a batch) is sent too" \
    "$(qa "SELECT fetchq.doc_push_many('orders', ARRAY['m1','m2'], ARRAY['{}','{}']::jsonb[], now())")" 2
wait_b "the batch arrives" 30 "SELECT count(*) FROM fetchq_data.inbox__docs WHERE subject IN ('m1','m2')" 2

# --- origins follow their documents on B --------------------------------------
# A delivered document dropped on B takes its origin row with it (the
# scheduler's task origins); a document pushed on B under its subject has no
# origin; delivered again, it has its new one. test/doc_origins_test.sh
# covers the other ways a document goes.
origin_b() { qb "SELECT count(*) FROM fetchq.doc_origin('inbox', '$1')"; }
origins_runs() { qb "SELECT runs FROM fetchq.worker_status() WHERE datname = 'rb' AND task = 'origins'"; }
qa "SELECT fetchq.doc_push('orders', 'g1', '{}')" >/dev/null
wait_b "g1 arrives" 30 "SELECT count(*) FROM fetchq.doc_origin('inbox', 'g1')" 1
qb "SELECT fetchq.doc_take('inbox', 'g1', '1m'); SELECT fetchq.doc_drop('inbox', 'g1')" >/dev/null
check "dropped on B: doc_origin has no row for it at once" "$(origin_b g1)" 0
wait_b "... and its origin row is removed" 30 \
    "SELECT count(*) FROM fetchq.doc_origins WHERE queue = 'inbox' AND subject = 'g1'" 0
qb "SELECT fetchq.doc_push('inbox', 'g2', '{}')" >/dev/null
qa "SELECT fetchq.doc_push('orders', 'g2', '{}')" >/dev/null
qa "SELECT fetchq.doc_push('orders', 'g3', '{}')" >/dev/null
wait_b "the marker after g2 arrives" 30 "SELECT count(*) FROM fetchq.doc_origin('inbox', 'g3')" 1
check "g2, pushed on B first, was skipped and has no origin" "$(origin_b g2)" 0
qb "SELECT fetchq.doc_take('inbox', 'g3', '1m'); SELECT fetchq.doc_drop('inbox', 'g3');
    SELECT fetchq.doc_push('inbox', 'g3', '{}')" >/dev/null
check "g3 dropped and pushed again on B: no origin, though its row is still there" \
    "$(origin_b g3)|$(qb "SELECT count(*) FROM fetchq.doc_origins WHERE subject = 'g3'")" "0|1"
wait_b "... until the sweep removes it" 30 "SELECT count(*) FROM fetchq.doc_origins WHERE subject = 'g3'" 0
qa "SELECT fetchq.doc_take('orders', 'g1', '1m'); SELECT fetchq.doc_drop('orders', 'g1');
    SELECT fetchq.doc_push('orders', 'g1', '{\"again\": true}')" >/dev/null
wait_b "g1 pushed again on A arrives again on B, with its origin" 30 \
    "SELECT count(*) FROM fetchq.doc_origin('inbox', 'g1')" 1
runs=$(origins_runs)
wait_b "two more sweeps ran" 30 "SELECT runs >= $runs + 2 FROM fetchq.worker_status() WHERE datname = 'rb' AND task = 'origins'" t
check "the sweeps keep the origin of a document that is there" \
    "$(origin_b g1)|$(qb "SELECT payload->>'again' FROM fetchq_data.inbox__docs WHERE subject = 'g1'")" "1|true"

# --- a topic's remote subscription ---------------------------------------------------
qa "SELECT fetchq.topic_create('news'); SELECT fetchq.remote_route_create('news', 'b/inbox')" >/dev/null
check "a push into a topic with a remote route counts it" \
    "$(qa "SELECT fetchq.doc_push('news', 'n1', '{}')")" 1
wait_b "and the document arrives in B's queue" 30 \
    "SELECT count(*) FROM fetchq_data.inbox__docs WHERE subject = 'n1'" 1
check "the topic keeps nothing" "$(qa "SELECT count(*) FROM fetchq_data.news__docs")" 0
check "fetchq.remote_inbox() is refused as another table's trigger" \
    "$(qb "CREATE TABLE public.fake (LIKE fetchq.remote_outbox);
           CREATE TRIGGER t BEFORE INSERT ON public.fake FOR EACH ROW EXECUTE FUNCTION fetchq.remote_inbox();
           INSERT INTO public.fake VALUES ('b', 'inbox', 'forged', 0, 0, now(), NULL, '{}', 'x', '{}', 1, now())" 2>&1 |
        grep -c 'trigger of fetchq.remote_outbox alone')" 1

# --- skipped subject, selector -------------------------------------------------
qb "SELECT fetchq.doc_push('inbox', 'dup', '{\"v\": \"b\"}')" >/dev/null
skipped0=$(qb "SELECT skipped FROM fetchq.remote_subscription_status WHERE link = 'b'")
qa "SELECT fetchq.doc_push('orders', 'dup', '{\"v\": \"a\"}');
    SELECT fetchq.doc_push('orders', 'px', '{\"kind\": \"x\"}');
    SELECT fetchq.doc_push('orders', 'py', '{\"kind\": \"y\"}');
    SELECT fetchq.doc_push('orders', 'c3', '{}')" >/dev/null
wait_b "the marker after them arrives" 30 "SELECT count(*) FROM fetchq_data.inbox__docs WHERE subject = 'c3'" 1
check "a subject already in B's queue is skipped, as a local route skips it" \
    "$(qb "SELECT payload->>'v' FROM fetchq_data.inbox__docs WHERE subject = 'dup'")" b
check "and counted skipped" \
    "$(qb "SELECT skipped - $skipped0 FROM fetchq.remote_subscription_status WHERE link = 'b'")" 1
check "a selector picks what a remote route sends" \
    "$(qb "SELECT string_agg(subject, ',' ORDER BY subject) FROM fetchq_data.picky__docs")" px

# --- rights -------------------------------------------------------------------
check "rb_app may not push into secret: nothing was delivered there" \
    "$(qb "SELECT count(*) FROM fetchq_data.secret__docs")" 0
check "the refusals are counted and told" \
    "$(qb "SELECT refused > 0, last_refusal LIKE '%may not push into queue \"secret\"%' FROM fetchq.remote_subscription_status WHERE link = 'b'")" "t|t"
check "the queue's triggers ran as its owner, never as the subscription's owner" \
    "$(qb "SELECT string_agg(DISTINCT who, ',') FROM public.ran_as WHERE (queue, subject) IN (SELECT queue || '__docs', subject FROM fetchq.doc_origins)")" rb_owner
qb "GRANT SELECT, INSERT ON fetchq_data.secret__docs TO rb_app" >/dev/null
qa "SELECT fetchq.doc_push('orders', 'c4', '{}')" >/dev/null
wait_b "once rb_app may push there, the next document arrives in secret" 30 \
    "SELECT count(*) FROM fetchq_data.secret__docs WHERE subject = 'c4'" 1
qb "REVOKE SELECT, INSERT ON fetchq_data.secret__docs FROM rb_app" >/dev/null
check "a plain insert into the outbox is refused on B" \
    "$(qb "SET session_replication_role = replica; INSERT INTO fetchq.remote_outbox
           VALUES ('b', 'inbox', 'forged', 0, 0, now(), NULL, '{}', 'x', '{}', 1, now())" 2>&1 |
        grep -c 'written by fetchq alone')" 1

# --- B stopped while A pushes -----------------------------------------------------
stop_cluster "$cb" fast
{
    for i in $(seq -w 1 100); do echo "SELECT fetchq.doc_push('orders', 's$i', '{}');"; done
} | on_a psql -X -q -At -v ON_ERROR_STOP=1 -d ra >/dev/null
check "while B is down, A's slot keeps the WAL (lag_bytes > 0, not read)" \
    "$(qa "SELECT lag_bytes > 0, slot_active FROM fetchq.remote_route_status WHERE source = 'orders' AND queue = 'inbox'")" "t|f"
start_cluster "$cb"
wait_b "once B is back, every document pushed meanwhile arrives" 60 \
    "SELECT count(*) FROM fetchq_data.inbox__docs WHERE subject LIKE 's%'" 100
skipped1=$(qb "SELECT skipped FROM fetchq.remote_subscription_status WHERE link = 'b'")
check "each once: none was applied twice" "$skipped1" "$((skipped0 + 1))"
check "B's last arrival is shown" \
    "$(qb "SELECT last_arrival > now() - interval '5 minutes' FROM fetchq.remote_subscription_status WHERE link = 'b'")" t

# --- A stopped immediately in the middle of a load ---------------------------------
{
    # more than A takes before it is stopped, however fast the machine
    for i in $(seq -w 1 200000); do echo "SELECT fetchq.doc_push('orders', 'k$i', '{}');"; done
} | on_a psql -X -q -At -d ra >/dev/null 2>&1 &
load=$!
wait_a "the load runs" 60 "SELECT count(*) >= 200 FROM fetchq_data.orders__docs WHERE subject LIKE 'k%'" t
stop_cluster "$ca" immediate
wait "$load" || true
start_cluster "$ca"
committed=$(qa "SELECT count(*) FROM fetchq_data.orders__docs WHERE subject LIKE 'k%'")
if [ "$committed" -gt 0 ] && [ "$committed" -lt 200000 ]; then
    ok "A stopped in the middle of the load ($committed of 200000 committed)"
else
    fail "A stopped in the middle of the load ($committed of 200000 committed)"
fi
wait_b "every document A committed arrives" 120 \
    "SELECT count(*) FROM fetchq_data.inbox__docs WHERE subject LIKE 'k%'" "$committed"
check "exactly those A committed, none that was not" \
    "$(qb "SELECT md5(string_agg(subject, ',' ORDER BY subject)) FROM fetchq_data.inbox__docs WHERE subject LIKE 'k%'")" \
    "$(qa "SELECT md5(string_agg(subject, ',' ORDER BY subject)) FROM fetchq_data.orders__docs WHERE subject LIKE 'k%'")"
check "each once: none was applied twice after A's restart" \
    "$(qb "SELECT skipped FROM fetchq.remote_subscription_status WHERE link = 'b'")" "$skipped1"

# --- a cycle A -> B -> A -----------------------------------------------------------
qb "SELECT fetchq.remote_route_create('inbox', 'a/orders')" >/dev/null
qa "CREATE ROLE ra_app; GRANT SELECT, INSERT ON fetchq_data.orders__docs TO ra_app" >/dev/null
qa "SELECT fetchq.remote_subscribe('a', '$conn_b', 'ra_app')" >/dev/null
qa "SELECT fetchq.doc_push('orders', 'cy_a', '{}')" >/dev/null
qb "SELECT fetchq.doc_push('inbox', 'cy_b', '{}')" >/dev/null
wait_a "a document pushed on B reaches A's orders" 30 \
    "SELECT count(*) FROM fetchq_data.orders__docs WHERE subject = 'cy_b'" 1
# A's orders routes to B's inbox and secret: back on B twice, stopped twice.
wait_b "and goes back to B, where it stops (looped, once per route)" 30 \
    "SELECT looped FROM fetchq.remote_subscription_status WHERE link = 'b'" 2
wait_a "a document pushed on A comes back to A and stops there" 30 \
    "SELECT looped FROM fetchq.remote_subscription_status WHERE link = 'a'" 1
check "on A, cy_b came from B, through B and A" \
    "$(qa "SELECT source_db = '$b_id', seenby = ARRAY['$b_id', '$a_id'] FROM fetchq.doc_origin('orders', 'cy_b')")" "t|t"
check "each once in each database" \
    "$(qa "SELECT count(*) FROM fetchq_data.orders__docs WHERE subject IN ('cy_a', 'cy_b')")|$(
        qb "SELECT count(*) FROM fetchq_data.inbox__docs WHERE subject IN ('cy_a', 'cy_b')")" "2|2"

# --- the Prometheus series (deploy/prometheus/queries.yml) ---------------------------
prom_sql() {
    awk -v q="$1:" '$0 == q { f = 1; next } f && /^  query: \|/ { g = 1; next }
        g && /^  [a-z]/ { exit } g { print }' "$here/deploy/prometheus/queries.yml"
}
check_has "fetchq_remote_route: a row per remote route, with the slot's lag" \
    "$(qa "$(prom_sql fetchq_remote_route)" | sort)" '^ra\|orders\|b/inbox\|[0-9]+\|[-0-9.e]+\|1$'
check_has "fetchq_remote_link: a row per link, with its counters" \
    "$(qb "$(prom_sql fetchq_remote_link)")" '^rb\|b\|[1-9][0-9]*\|[0-9]+\|2\|[1-9][0-9]*\|[0-9.e-]+$'

# --- drop ----------------------------------------------------------------------
qa "SELECT fetchq.remote_route_drop('orders', 'b/secret')" >/dev/null
check "remote_route_drop removes the route" \
    "$(qa "SELECT string_agg(queue, ',' ORDER BY queue) FROM fetchq.remote_routes WHERE source = 'orders' AND link = 'b'")" "inbox,picky"
qb "SELECT fetchq.remote_unsubscribe('b')" >/dev/null
check "remote_unsubscribe drops B's subscription" \
    "$(qb "SELECT count(*) FROM pg_subscription WHERE subname = 'fetchq_remote_b'")|$(
        qb "SELECT count(*) FROM fetchq.remote_subscriptions WHERE link = 'b'")" "0|0"
check "and A's slot" "$(qa "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'fetchq_remote_b'")" 0
qa "SELECT fetchq.queue_drop('orders'); SELECT fetchq.queue_drop('news')" >/dev/null
check "a dropped queue takes its remote routes along" \
    "$(qa "SELECT count(*) FROM fetchq.remote_routes")" 0
qa "SELECT fetchq.remote_unsubscribe('a')" >/dev/null
check "the other way round too" "$(qb "SELECT count(*) FROM pg_replication_slots")" 0

if [ "$failures" -gt 0 ]; then
    echo "$failures checks failed; server logs: $ca/server.log $cb/server.log"
    KEEP=1
    exit 1
fi
