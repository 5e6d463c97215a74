#!/usr/bin/env bash
# pg_dump -Fc of a database with fetchq, and pg_restore into new databases of
# the same cluster (its own: the test creates roles), compared by diffing the
# same queries' output in both databases:
# - the catalog (every config-dump table and sequence: queues, counters,
#   custom counters, metric log, jobs, routes and topic subscriptions, queue
#   grants, streams with their keys, messages, groups and committed offsets),
#   every per-queue table's rows, owners, ACLs, indexes and triggers, the
#   queue privileges and table privileges of the roles, and the views;
# - documents planned, pending, active, completed, killed and rejected, with
#   logs, counter snapshots and counters of every kind;
# - then the API on the copy (push, pick, complete, routes, grants, stream
#   append/read/commit, a waiting document's release, a request's reply)
#   and its scheduler (a planned document is promoted, the metric log is
#   folded, a restored schedule's tick is pushed).
# One restore has the copy's scheduler off until it is done (ALTER DATABASE
# ... SET fetchq.enabled = off, what docs/operations.md recommends); another
# runs while the scheduler is on, from a dump whose jobs and a planned
# document are due, with time between the rows and the keys.
# Uses PATH's pg_config for the binaries (scripts/test.sh puts its private
# install first); $1 (the runner's database) is not used.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
PGBIN=${PGBIN:-$(pg_config --bindir)}
export PGBIN PGUSER=postgres
db=dr_src
source "$here/test/lib/checks.sh"
source "$here/test/lib/own_clusters.sh"
own_clusters dump

port=$("$here/scripts/pg_cluster.sh" start "$dir" "fetchq.naptime = '1s'")
export PGHOST=$dir PGPORT=$port
qdb() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
# as ROLE DB SQL: a statement run by ROLE (SET ROLE), in DB.
as() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$2" -c "SET ROLE $1" -c "$3"; }

# scheduler_of DB: the pid of DB's scheduler, or nothing.
scheduler_of() {
    qdb postgres "SELECT pid FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = '$1'"
}
# restart_scheduler DB: a new scheduler for DB (it reads fetchq.enabled when it starts).
restart_scheduler() {
    local old
    old=$(scheduler_of "$1")
    qdb postgres "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                  WHERE backend_type = 'fetchq scheduler' AND datname = '$1'" >/dev/null
    wait_for_in "a new scheduler for $1" 20 postgres \
        "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler'
            AND datname = '$1' AND pid <> ${old:-0}" 1
}

# --- roles and the source database ------------------------------------------
qdb postgres "CREATE ROLE dr_app LOGIN; CREATE ROLE dr_web LOGIN; CREATE ROLE dr_reader LOGIN"
qdb postgres "CREATE DATABASE dr_src"
q "SET client_min_messages = warning; CREATE EXTENSION fetchq"
wait_for_in "the source's scheduler runs" 30 postgres \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = 'dr_src'" 1

psql -X -q -v ON_ERROR_STOP=1 -d dr_src >/dev/null <<'SQL'
-- An application role that owns a queue, one with queue grants only, one
-- with table grants.
GRANT USAGE, CREATE ON SCHEMA fetchq_data TO dr_app;
GRANT USAGE ON SCHEMA fetchq TO dr_app, dr_web, dr_reader;
GRANT USAGE ON SCHEMA fetchq_data TO dr_web, dr_reader;
GRANT SELECT ON fetchq.queues, fetchq.metrics, fetchq.streams, fetchq.stream_groups TO dr_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON fetchq.stream_keys, fetchq.stream_messages,
    fetchq.stream_offsets, fetchq.stream_leases TO dr_app;
GRANT SELECT ON fetchq.stream_lag, fetchq.queues TO dr_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE dr_app IN SCHEMA fetchq_data GRANT SELECT ON TABLES TO dr_reader;

-- Documents in every status, and a rejected one with its log.
SELECT fetchq.queue_create('work');
SELECT fetchq.queue_create('dead');
SELECT fetchq.queue_set_dead_letter('work', 'dead');
SELECT fetchq.queue_set_max_attempts('work', 3);
SELECT fetchq.queue_set_retry_policy('work', '10 seconds', 2, '5 minutes', 0);
SELECT fetchq.queue_set_retention('work', '30 days', '60 days');
SELECT fetchq.queue_set_logs_retention('work', '7 days');
SELECT fetchq.queue_set_default_ttl('dead', '90 days');
SELECT fetchq.queue_enable_notify('work');
SELECT fetchq.doc_push('work', 'planned', 0, 0, now() + interval '1 day', '{"k": "planned"}');
SELECT fetchq.doc_push('work', 'expiring', 0, 0, now(), '{"k": "expiring"}', now() + interval '2 days');
SELECT fetchq.doc_push('work', 'v1', 1, 0, now(), '{"k": "version 1"}');
SELECT fetchq.doc_push_many('work', ARRAY['pending', 'active', 'completed', 'killed', 'rejected', 'resched']);
UPDATE fetchq_data.work__docs SET priority = 10 WHERE subject IN ('active', 'completed', 'killed', 'rejected', 'resched');
SELECT count(*) FROM fetchq.doc_pick('work', 0, 5, '1 hour');
SELECT fetchq.doc_complete('work', 'completed', '{"done": true}');
SELECT fetchq.doc_kill('work', 'killed', '{"why": "bad"}');
SELECT fetchq.doc_reject('work', 'rejected', 'timeout', '{"server": "mx1"}', 'req-7');
SELECT fetchq.doc_reschedule('work', 'resched', now() + interval '2 days');
SELECT fetchq.log_error('work', 'pending', 'a note', '{"n": 1}');
SELECT fetchq.metric_set('work', 'custom_gauge', 42);
SELECT fetchq.metric_increment('work', 'custom_count', 7);
SELECT fetchq.metric_snap('work');
SELECT fetchq.metric_snap('dead');

-- A queue of dr_app's, with a queue grant to dr_web (no table privilege).
SET ROLE dr_app;
SELECT fetchq.queue_create('app_q');
SELECT fetchq.doc_push('app_q', 'a1', '{"by": "app"}');
SELECT fetchq.queue_grant('app_q', 'dr_web', 'push, pick');
RESET ROLE;
SELECT fetchq.queue_grant('work', 'dr_web', 'read');
GRANT SELECT ON fetchq_data.work__docs TO dr_reader;

-- A route and a topic with two subscriptions, one with a selector.
SELECT fetchq.queue_create('audit');
SELECT fetchq.route_create('work', 'audit', '$.k == "routed"');
SELECT fetchq.doc_push('work', 'routed', '{"k": "routed"}');
SELECT fetchq.topic_create('news');
SELECT fetchq.subscribe('news', 'archive');
SELECT fetchq.subscribe('news', 'sport', '$.section == "sport"');
SELECT fetchq.doc_push('news', 'n1', '{"section": "sport"}');
SELECT fetchq.doc_push('news', 'n2', '{"section": "arts"}');

-- A document waiting on another (doc_send's depends_on), and a request with
-- its reply queue (reply_to).
SELECT fetchq.queue_create('dep_src');
SELECT fetchq.queue_create('dep_wait');
SELECT fetchq.doc_send('dep_src', 'first');
SELECT fetchq.doc_send('dep_wait', 'second', depends_on => ARRAY[('dep_src', 'first')]::fetchq.doc_ref[]);
SELECT fetchq.doc_send('dep_src', 'request', reply_to => 'dep_wait');

-- A stream: two keys, a group that committed part of one key, a group that
-- committed nothing (so retention keeps every message), a maximum age.
SELECT fetchq.stream_create('orders');
SELECT fetchq.stream_append('orders', 'k1', jsonb_build_object('n', i)) FROM generate_series(1, 3) i;
SELECT fetchq.stream_append('orders', 'k2', jsonb_build_object('n', i)) FROM generate_series(1, 2) i;
SELECT fetchq.stream_group_create('orders', 'audit');
SELECT fetchq.stream_commit('orders', 'billing', 'k1', 2);
SELECT fetchq.stream_set_max_age('orders', '30 days');

-- A periodic schedule, its first tick an hour away.
SELECT fetchq.queue_create('sched_q');
SELECT fetchq.schedule_create('hourly', 'sched_q', '1 hour', 'h-{tick}');
SQL

check "documents in every status in the source" \
    "$(q "SELECT string_agg(status || ':' || n, ',' ORDER BY status) FROM (SELECT status, count(*) n FROM fetchq_data.work__docs GROUP BY status) s")" \
    "-1:1,0:2,1:5,2:1,3:1"
# Jobs have run and the scheduler folded what it folds: then it is paused
# (a new scheduler reads fetchq.enabled = off), so the source stays as dumped.
wait_for "the source's snapshot jobs ran" 30 \
    "SELECT bool_and(iterations > 0) FROM fetchq.jobs WHERE task IN ('sts', 'drp')" t
qdb postgres "ALTER DATABASE dr_src SET fetchq.enabled = off"
restart_scheduler dr_src
# Written while paused, so that the dump holds them: the metric log, and
# the snapshot jobs and a document that are due (a dump restored later).
q "SELECT fetchq.metric_log_increment('work', 'logged', 5); SELECT fetchq.metric_log_increment('audit', 'logged', 2)" >/dev/null
check "the source's metric log holds 2 entries" "$(q "SELECT count(*) FROM fetchq.metrics_writes")" 2

# --- the dump ----------------------------------------------------------------
dump=$dir/dr_src.dump
pg_dump -Fc -d dr_src -f "$dump"
ok "pg_dump -Fc"

# snapshot DB: every query whose output must be the same in the source and a
# copy, each under a header line.
snapshot() {
    psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" <<'SQL'
SET row_security = off;
\echo == extension
SELECT extname, extversion, extnamespace::regnamespace FROM pg_extension WHERE extname = 'fetchq';
\echo == rows of the catalog and of every queue table
SELECT format('SELECT %L, to_jsonb(x)::text FROM %s x %s ORDER BY 2', t, t,
              CASE WHEN t = 'fetchq.jobs' THEN 'WHERE queue <> ''*''' ELSE '' END)
FROM (SELECT c.oid::regclass::text AS t FROM pg_class c
      WHERE c.relkind = 'r' AND (c.relnamespace = 'fetchq_data'::regnamespace
            OR c.oid IN (SELECT unnest(extconfig) FROM pg_extension WHERE extname = 'fetchq'))) s
ORDER BY t
\gexec
\echo == sequences
SELECT schemaname, sequencename, last_value FROM pg_sequences
WHERE schemaname IN ('fetchq', 'fetchq_data') ORDER BY 1, 2;
\echo == relations: owner, ACL, persistence, options
SELECT c.oid::regclass, c.relkind, c.relowner::regrole, c.relacl, c.relpersistence, c.reloptions
FROM pg_class c WHERE c.relnamespace IN ('fetchq'::regnamespace, 'fetchq_data'::regnamespace)
ORDER BY c.oid::regclass::text;
\echo == schemas and default privileges
SELECT nspname, nspowner::regrole, nspacl FROM pg_namespace WHERE nspname LIKE 'fetchq%' ORDER BY 1;
SELECT defaclrole::regrole, defaclnamespace::regnamespace, defaclobjtype, defaclacl
FROM pg_default_acl ORDER BY defaclrole::regrole::text, defaclnamespace::regnamespace::text, 3;
\echo == indexes and triggers of the queue tables
SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'fetchq_data' ORDER BY 1;
SELECT tgrelid::regclass, tgname, pg_get_triggerdef(oid) FROM pg_trigger
WHERE NOT tgisinternal AND tgrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'fetchq_data'::regnamespace)
ORDER BY tgrelid::regclass::text, 2;
\echo == queue privileges and table privileges of the roles
SELECT q.name, r.rolname, p.p, fetchq.queue_has_privilege(q.name, p.p, r.oid::regrole)
FROM fetchq.queues q, pg_roles r, unnest(ARRAY['push', 'pick', 'read', 'manage']) p(p)
WHERE r.rolname LIKE 'dr\_%' ORDER BY 1, 2, 3;
SELECT r.rolname, c.oid::regclass, p.p, has_table_privilege(r.oid, c.oid, p.p)
FROM pg_roles r, pg_class c, unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) p(p)
WHERE r.rolname LIKE 'dr\_%' AND c.relkind = 'r'
  AND c.relnamespace IN ('fetchq'::regnamespace, 'fetchq_data'::regnamespace)
ORDER BY 1, c.oid::regclass::text, 3;
SELECT queue, role, privileges, grantor FROM fetchq.queue_privileges ORDER BY 1, 2;
\echo == views
SELECT topic, queue, selector, temporary, owner FROM fetchq.subscriptions ORDER BY 1, 2;
SELECT queue, metric, sum(value) FROM fetchq.metrics GROUP BY 1, 2 ORDER BY 1, 2;
SELECT queue, planned, pending, active, completed, killed FROM fetchq.stats ORDER BY 1;
SELECT stream, stream_id, owner, max_age, keys, messages, groups FROM fetchq.stream_list ORDER BY 1;
SELECT stream, group_name, lag FROM fetchq.stream_lag ORDER BY 1, 2;
SQL
}

# --- restore with the scheduler off until done ---------------------------------
# restore TARGET [pg_restore options...]: into a new database; no error allowed.
restore() {
    local target=$1 out
    shift
    if out=$(pg_restore -d "$target" "$@" "$dump" 2>&1) && ! grep -q 'ERROR' <<<"$out"; then
        ok "pg_restore $* into $target"
    else
        fail "pg_restore $* into $target: $out"
    fi
}
# same DESCRIPTION TARGET: the target's snapshot is the source's.
same() {
    local d
    snapshot dr_src >"$dir/src.out"
    snapshot "$2" >"$dir/$2.out"
    if d=$(diff -u "$dir/src.out" "$dir/$2.out"); then
        ok "$1 ($(wc -l <"$dir/src.out") lines)"
    else
        fail "$1: $(head -n 60 <<<"$d")"
    fi
}

qdb postgres "CREATE DATABASE dr_copy"
qdb postgres "ALTER DATABASE dr_copy SET fetchq.enabled = off"
restore dr_copy
same "the copy holds what the source holds" dr_copy
# Not a comparison of two empty outputs:
check_has "the comparison covers the documents" "$(cat "$dir/src.out")" \
    '^fetchq_data.work__docs\|\{.*"status": -1.*"subject": "killed"'
check_has "the comparison covers the stream offsets" "$(cat "$dir/src.out")" \
    '^fetchq.stream_offsets\|\{.*"committed": 2.*"group_name": "billing"'
check_has "the comparison covers the queue grants" "$(cat "$dir/src.out")" \
    '^fetchq.queue_grants\|\{.*"grantee": "dr_web".*"privileges": 3'
check_has "the comparison covers the metric log" "$(cat "$dir/src.out")" \
    '^fetchq.metrics_writes\|\{.*"increment": 5'
# Every table of the extension is dumped with it, but the leases of streams:
# they belong to sessions, which a copy does not have; and the outbox of
# remote routes, which never keeps a row.
check "every catalog table is a config-dump table (or session state)" \
    "$(q "SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_depend d
          JOIN pg_class c ON c.oid = d.objid AND d.classid = 'pg_class'::regclass
          WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'fetchq')
            AND d.deptype = 'e' AND c.relkind IN ('r', 'S')
            AND c.oid <> ALL ((SELECT extconfig FROM pg_extension WHERE extname = 'fetchq')::oid[])")" \
    remote_outbox,stream_leases

# The API on the copy.
db=dr_copy
check "push on the copy" "$(q "SELECT fetchq.doc_push('work', 'new', 0, 100, now(), '{\"k\": \"new\"}')")" 1
check "a duplicate subject is refused on the copy" "$(q "SELECT fetchq.doc_push('work', 'pending', '{}')")" 0
check "pick on the copy takes the highest priority" \
    "$(q "SELECT string_agg(subject, ',') FROM fetchq.doc_pick('work', 0, 1, '5 minutes')")" new
check "complete on the copy" "$(q "SELECT fetchq.doc_complete('work', 'new')")" 1
check "counters on the copy follow" \
    "$(q "SELECT cnt || '/' || pnd || '/' || cpl || '/' || pkd FROM fetchq.metric_get_common('work')")" \
    "$(qdb dr_src "SELECT cnt + 1 || '/' || pnd || '/' || cpl + 1 || '/' || pkd + 1 FROM fetchq.metric_get_common('work')")"
check "the route delivers on the copy" \
    "$(q "SELECT fetchq.doc_push('work', 'routed2', '{\"k\": \"routed\"}'); SELECT count(*) FROM fetchq_data.audit__docs WHERE subject = 'routed2'")" \
    "$(printf '1\n1')"
check "the topic delivers on the copy" "$(q "SELECT fetchq.doc_push('news', 'n3', '{\"section\": \"sport\"}')")" 2
check "the queue grant works on the copy (push, pick as dr_web)" \
    "$(as dr_web dr_copy "SELECT fetchq.doc_push('app_q', 'a2', '{}'); SELECT count(*) FROM fetchq.doc_pick('app_q', 0, 5, '1 minute')")" \
    "$(printf '1\n2')"
if as dr_web dr_copy "SELECT fetchq.doc_push('work', 'x', '{}')" >/dev/null 2>"$dir/err"; then
    fail "dr_web pushed into work on the copy (it holds read only)"
else
    check_has "the queue grant refuses what was not granted on the copy" "$(cat "$dir/err")" \
        'lacks the push privilege on queue "work"'
fi
check "the table grant works on the copy" \
    "$(as dr_reader dr_copy "SELECT count(*) FROM fetchq_data.work__docs WHERE subject = 'planned'")" 1
check "stream append continues the offsets on the copy" \
    "$(q "SELECT fetchq.stream_append('orders', 'k1', '{\"n\": 4}')")" 4
check "stream read starts after the committed offset on the copy" \
    "$(q "SELECT string_agg(\"offset\"::text, ',' ORDER BY \"offset\") FROM fetchq.stream_read('orders', 'billing', 'k1')")" \
    "3,4"
check "stream commit on the copy" "$(q "SELECT fetchq.stream_commit('orders', 'billing', 'k1', 4)")" 4
check "a waiting document is released on the copy" \
    "$(q "SELECT count(*) FROM fetchq.doc_take('dep_src', 'first', '1 minute');
          SELECT fetchq.doc_complete('dep_src', 'first');
          SELECT status FROM fetchq_data.dep_wait__docs WHERE subject = 'second'" | tail -1)" 1
check "a request is answered into its reply queue on the copy" \
    "$(q "SELECT count(*) FROM fetchq.doc_take('dep_src', 'request', '1 minute');
          SELECT fetchq.doc_reply('dep_src', 'request', '{\"ok\": true}');
          SELECT payload::text FROM fetchq_data.dep_wait__docs WHERE subject = 'request'" | tail -1)" '{"ok": true}'

# The copy's scheduler, once enabled, serves it.
qdb postgres "ALTER DATABASE dr_copy RESET fetchq.enabled"
restart_scheduler dr_copy
q "SELECT fetchq.doc_push('work', 'soon', 0, 0, clock_timestamp() + interval '1 second', '{}')" >/dev/null
wait_for "the copy's scheduler promotes a planned document" 20 \
    "SELECT status FROM fetchq_data.work__docs WHERE subject = 'soon'" 1
wait_for "the copy's scheduler folds the restored metric log" 20 \
    "SELECT count(*) || '/' || (fetchq.metric_get_total('logged')).current_value FROM fetchq.metrics_writes" 0/7
q "UPDATE fetchq.periodic_schedules SET next_at = date_trunc('second', now()) - interval '1 second'
   WHERE name = 'hourly'" >/dev/null
wait_for "the copy's scheduler pushes the tick of a restored schedule" 20 \
    "SELECT count(*) || '/' || (SELECT ticks_pushed FROM fetchq.schedules WHERE name = 'hourly')
     FROM fetchq_data.sched_q__docs" 1/1

# --- a restore while the copy's scheduler runs ----------------------------------
# A dump taken a while ago: its snapshot jobs and a planned document are due.
db=dr_src
q "UPDATE fetchq.jobs SET next_iteration = now() - interval '1 hour' WHERE queue <> '*';
   UPDATE fetchq_data.work__docs SET next_iteration = now() - interval '1 hour' WHERE subject = 'planned'"
pg_dump -Fc -d dr_src -f "$dump"
history="SELECT string_agg(to_jsonb(x)::text, ',' ORDER BY id) FROM fetchq_data.work__metrics x"
src_history=$(q "$history")
src_max=$(q "SELECT max(id) FROM fetchq_data.work__metrics")
src_docs=$(q "SELECT string_agg(subject || ':' || status, ',' ORDER BY subject) FROM fetchq_data.work__docs")
qdb postgres "CREATE DATABASE dr_live"
# In the order of any restore, but with time after the tables' rows and
# before the sequences' values (where a big table's COPY puts it): the
# scheduler, started by the restore's CREATE EXTENSION, runs queue rounds and
# jobs meanwhile, and must leave the queues being restored alone (a snapshot
# would take ids the restore then loads, and the primary key would fail).
pg_restore -l "$dump" | grep -v ' SEQUENCE SET ' >"$dir/rows.list"
pg_restore -l "$dump" | grep ' SEQUENCE SET ' >"$dir/sequences.list"
restore dr_live --section=pre-data --section=data -L "$dir/rows.list"
db=dr_live
rows_in=$(q "SELECT now()")
wait_for "the live copy's scheduler ran a round and its jobs since the rows are in" 20 \
    "SELECT count(*) FROM fetchq.worker_status() WHERE datname = current_database()
        AND task IN ('promote', 'snapshot') AND last_run > '$rows_in'" 2
check "meanwhile, the due document of a queue being restored stays planned" \
    "$(q "SELECT status FROM fetchq_data.work__docs WHERE subject = 'planned'")" 0
check "meanwhile, no snapshot went into a queue being restored" "$(q "$history")" "$src_history"
restore dr_live -L "$dir/sequences.list"
restore dr_live -j 2 --section=post-data
wait_for "once restored, the live copy's scheduler promotes the due document" 20 \
    "SELECT status FROM fetchq_data.work__docs WHERE subject = 'planned'" 1
check "the live copy's other documents are the source's" \
    "$(q "SELECT string_agg(subject || ':' || CASE WHEN subject = 'planned' THEN 0 ELSE status END, ',' ORDER BY subject) FROM fetchq_data.work__docs")" \
    "$src_docs"
# Snapshots (claimed while the queue was being restored: due again now)
# continue after the restored ids.
q "UPDATE fetchq.jobs SET next_iteration = now() WHERE task = 'sts'"
wait_for "the live copy's snapshots follow the restored ones" 20 \
    "SELECT count(*) > 0 FROM fetchq_data.work__metrics WHERE id > $src_max" t
check "the live copy keeps the source's snapshot history" \
    "$(q "$history WHERE id <= $src_max")" "$src_history"
# A unit that failed meanwhile (the metric log's pack while the counters'
# id sequence was not restored yet) must have recovered once the restore
# was done.
unrecovered() {
    local line
    grep -oE 'fetchq: .* in database "dr_live" failed' "$dir/server.log" | sed 's/ failed$//' | sort -u |
        while read -r line; do
            grep -qF "$line recovered" "$dir/server.log" || echo "$line"
        done
}
deadline=$((SECONDS + 20))
while [ -n "$(unrecovered)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
check "every scheduler failure on the live copy recovered" "$(unrecovered)" ""

# --- the end: the databases and roles go ----------------------------------------------
qdb postgres "DROP DATABASE dr_copy WITH (FORCE)"
qdb postgres "DROP DATABASE dr_live WITH (FORCE)"
qdb postgres "DROP DATABASE dr_src WITH (FORCE)"
qdb postgres "DROP ROLE dr_app; DROP ROLE dr_web; DROP ROLE dr_reader"
ok "databases and roles dropped"
if grep -E "PANIC|TRAP:" "$dir/server.log"; then
    fail "the server log shows a PANIC or an assertion"
fi
echo "dump/restore test: $failures failure(s)"
[ "$failures" = 0 ]
