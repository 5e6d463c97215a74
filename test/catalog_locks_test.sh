#!/usr/bin/env bash
# Locks on fetchq's catalog (issue 27, point 3) and the rows only fetchq
# writes (point 7: fetchq.streams.owner), with the grants docs/install.md
# documents, read from docs/install.md itself (section 5: the application
# block, and a streams block if it has one again), so that this test follows
# the documentation:
#   cl_app:      the documented application grants, plus CREATE on schema
#                fetchq_data (it creates and owns queues of its own);
#   cl_streamer: the same (it creates and owns a stream, and grants it);
#   cl_node:     the application grants and the documented column grants of
#                a Fetchq 4 Node.js client (is_active, jobs' settings);
#   cl_granted:  USAGE on the two schemas and a queue grant, nothing else;
#   cl_victim:   the documented application grants, pushing into a queue of
#                its own and into cl_app's.
# Every LOCK TABLE on every table of schema fetchq, in each of the 8 modes,
# is refused (42501), but ACCESS SHARE on a table the role may SELECT: that
# mode conflicts only with ACCESS EXCLUSIVE, which fetchq takes on its
# catalog only in queue_truncate_all(true). A role that holds every lock it
# can get makes no other role's call wait. What the documented grants must
# allow still works, the scheduler's upkeep of cl_app's queue included.
# Env: PGHOST PGPORT PGUSER (a superuser); $1: a database with the extension.
set -euo pipefail
db=$1
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/test/lib/checks.sh"

# as ROLE SQL: the output, or the error with its SQLSTATE, as text.
as() {
    psql -X -q -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -U "$1" -d "$db" -c "$2" 2>&1 || true
}
roles="cl_app cl_streamer cl_node cl_granted cl_victim"
holder_pid=
cleanup() {
    [ -n "$holder_pid" ] && kill "$holder_pid" 2>/dev/null || true
    for r in $roles; do
        psql -X -q -d "$db" -c "DROP OWNED BY $r CASCADE" >/dev/null 2>&1 || true
        psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT
cleanup
for r in $roles; do q "CREATE ROLE $r LOGIN" >/dev/null; done

# --- the documented grants, from docs/install.md --------------------------------
# block N PATTERN: the Nth ```sql block of section 5 that matches PATTERN.
section5=$(awk '/^## 5\./ {on = 1; next} /^## 6\./ {on = 0} on' "$here/docs/install.md")
block() {
    awk -v want="$1" -v pat="$2" '
        /^```sql/ {inb = 1; text = ""; next}
        /^```/ && inb {inb = 0; if (text ~ pat && ++n == want) {printf "%s", text; exit}; next}
        inb {text = text $0 "\n"}' <<<"$section5"
}
app_grants=$(block 1 "GRANT USAGE ON SCHEMA fetchq, fetchq_data TO app")
stream_grants=$(block 1 "stream_messages")
node_grants=$(block 1 "is_active")
[ -n "$app_grants" ] || fail "docs/install.md section 5 has the application grants"
echo "documented application grants:"
sed 's/^/    /' <<<"$app_grants"
grant_to() { psql -X -q -v ON_ERROR_STOP=1 -d "$db" <<<"${1//TO app/TO $2}" >/dev/null; }
grant_to "$app_grants" cl_app
grant_to "$app_grants" cl_victim
grant_to "$app_grants" cl_streamer
grant_to "$app_grants" cl_node
if [ -n "$node_grants" ]; then
    echo "documented grants of a Fetchq 4 Node.js client:"
    sed 's/^/    /' <<<"$node_grants"
    grant_to "$node_grants" cl_node
fi
if [ -n "$stream_grants" ]; then
    echo "documented streams grants:"
    sed 's/^/    /' <<<"$stream_grants"
    grant_to "$stream_grants" cl_streamer
else
    echo "docs/install.md has no streams block: cl_streamer has the application grants only"
fi
q "GRANT CREATE ON SCHEMA fetchq_data TO cl_app, cl_victim, cl_streamer, cl_node;
   GRANT USAGE ON SCHEMA fetchq, fetchq_data TO cl_granted" >/dev/null

# Queues: cl_app's (granted to cl_granted), cl_victim's, the superuser's.
check "cl_app creates its queue" "$(as cl_app "SELECT was_created FROM fetchq.queue_create('cl_appq')")" t
check "cl_victim creates its queue" "$(as cl_victim "SELECT was_created FROM fetchq.queue_create('cl_victimq')")" t
q "SELECT fetchq.queue_create('cl_adminq')" >/dev/null
check "cl_app grants push, pick on its queue to cl_granted" \
    "$(as cl_app "SELECT fetchq.queue_grant('cl_appq', 'cl_granted', 'push, pick')")" "{push,pick}"

# --- LOCK TABLE in every mode on every table of schema fetchq ------------------
# cl_locks.try(): every (table, mode) with its outcome: granted, or the
# SQLSTATE of the refusal; each lock is taken in a subtransaction that is then
# rolled back, so none is kept.
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL'
CREATE SCHEMA cl_locks;
GRANT USAGE ON SCHEMA cl_locks TO PUBLIC;
CREATE FUNCTION cl_locks.try() RETURNS TABLE(tbl text, mode text, outcome text)
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
DECLARE
    modes text[] := ARRAY['ACCESS SHARE', 'ROW SHARE', 'ROW EXCLUSIVE', 'SHARE UPDATE EXCLUSIVE',
                          'SHARE', 'SHARE ROW EXCLUSIVE', 'EXCLUSIVE', 'ACCESS EXCLUSIVE'];
BEGIN
    FOR tbl IN SELECT c.relname::text FROM pg_class c
               WHERE c.relnamespace = 'fetchq'::regnamespace AND c.relkind IN ('r', 'p')
               ORDER BY 1 LOOP
        FOREACH mode IN ARRAY modes LOOP
            BEGIN
                EXECUTE format('LOCK TABLE fetchq.%I IN %s MODE NOWAIT', tbl, mode);
                RAISE EXCEPTION USING ERRCODE = 'FQ001';
            EXCEPTION WHEN OTHERS THEN
                outcome := CASE SQLSTATE WHEN 'FQ001' THEN 'granted' ELSE SQLSTATE END;
            END;
            RETURN NEXT;
        END LOOP;
    END LOOP;
END $$;
SQL
tables=$(q "SELECT count(*) FROM pg_class WHERE relnamespace = 'fetchq'::regnamespace AND relkind IN ('r', 'p')")
stream_tables="'stream_keys','stream_messages','stream_offsets','stream_leases'"
# The tables the role may SELECT: where ACCESS SHARE is allowed.
selectable() {
    q "SELECT coalesce(string_agg(relname, ',' ORDER BY relname), '') FROM pg_class
       WHERE relnamespace = 'fetchq'::regnamespace AND relkind IN ('r', 'p')
         AND has_table_privilege('$1', oid, 'SELECT') $2"
}
for role in cl_app cl_granted cl_streamer cl_node; do
    out=$(as "$role" "SELECT tbl, mode, outcome FROM cl_locks.try()")
    check "$role: $tables tables x 8 modes tried" "$(grep -c '|' <<<"$out")" $((tables * 8))
    check "$role: nothing but 42501 or granted" "$(grep -Ev '\|(42501|granted)$' <<<"$out" || true)" ""
    granted=$(awk -F'|' '$3 == "granted" {print $1 "|" $2}' <<<"$out")
    check "$role: only ACCESS SHARE is granted, and only on tables it may SELECT" \
        "$(grep -v '|ACCESS SHARE$' <<<"$granted" | grep . || true)" ""
    check "$role: ACCESS SHARE is granted exactly on the tables it may SELECT" \
        "$(grep . <<<"$granted" | cut -d'|' -f1 | paste -sd, -)" "$(selectable $role "")"
done
check "cl_granted may SELECT no table of schema fetchq" "$(selectable cl_granted "")" ""
check "the application grants give no write on schema fetchq" \
    "$(q "SELECT coalesce(string_agg(DISTINCT relname, ','), '') FROM pg_class c,
            unnest(ARRAY['INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER']) p
          WHERE relnamespace = 'fetchq'::regnamespace AND relkind IN ('r', 'p')
            AND has_table_privilege('cl_app', c.oid, p)")" ""
check "the application grants give no privilege on the stream tables" \
    "$(q "SELECT coalesce(string_agg(relname, ','), '') FROM pg_class c
          WHERE relnamespace = 'fetchq'::regnamespace AND relname LIKE 'stream%'
            AND relkind = 'r' AND has_table_privilege('cl_app', c.oid, 'SELECT')")" ""
for role in cl_streamer cl_node; do
    check "$role may write no table of schema fetchq (the streams' included)" \
        "$(q "SELECT coalesce(string_agg(DISTINCT relname, ','), '') FROM pg_class c,
                unnest(ARRAY['INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER']) p
              WHERE relnamespace = 'fetchq'::regnamespace AND relkind IN ('r', 'p')
                AND has_table_privilege('$role', c.oid, p)")" ""
done
check "cl_streamer may SELECT no table of streams" \
    "$(q "SELECT coalesce(string_agg(relname, ','), '') FROM pg_class c
          WHERE relnamespace = 'fetchq'::regnamespace AND relname IN ($stream_tables)
            AND has_table_privilege('cl_streamer', c.oid, 'SELECT')")" ""

# A Fetchq 4 client's columns: its own queues' rows only, and no lock.
check "cl_node creates a queue" "$(as cl_node "SELECT was_created FROM fetchq.queue_create('cl_nodeq')")" t
check "cl_node switches its queue off as the Node client does" \
    "$(as cl_node "UPDATE fetchq.queues SET is_active = false WHERE name = 'cl_nodeq' RETURNING name")" cl_nodeq
check "cl_node sets its jobs' settings as the Node client does" \
    "$(as cl_node "UPDATE fetchq.jobs SET settings = '{\"delay\": \"1m\"}' WHERE queue = 'cl_nodeq' AND task = 'drp' RETURNING task")" drp
check "cl_node cannot switch off another role's queue (row security)" \
    "$(as cl_node "UPDATE fetchq.queues SET is_active = false WHERE name = 'cl_appq' RETURNING name")" ""
check_has "cl_node writes no other column" \
    "$(as cl_node "UPDATE fetchq.queues SET max_attempts = 1 WHERE name = 'cl_nodeq'")" "ERROR:  42501"
check_has "... and cannot lock fetchq.queues beyond ACCESS SHARE" \
    "$(as cl_node "BEGIN; LOCK TABLE fetchq.queues IN ROW SHARE MODE; COMMIT")" "ERROR:  42501"

# The attack: the strongest lock each table allows is refused...
for t in queue_grants routes queues counters; do
    check_has "cl_app: LOCK TABLE fetchq.$t IN ACCESS EXCLUSIVE MODE is refused" \
        "$(as cl_app "BEGIN; LOCK TABLE fetchq.$t IN ACCESS EXCLUSIVE MODE; COMMIT")" "ERROR:  42501"
done
# ... and while cl_app holds every lock it can get (ACCESS SHARE on what it may
# read), cl_victim's calls do not wait: each would fail on its lock_timeout.
readable=$(selectable cl_app "")
locklist=$(sed 's/\([a-z_]*\)/fetchq.\1/g' <<<"$readable")
psql -X -q -U cl_app -d "$db" -v ON_ERROR_STOP=1 \
    -c "BEGIN" -c "LOCK TABLE $locklist IN ACCESS SHARE MODE" \
    -c "SELECT pg_sleep(120)" >/dev/null 2>&1 &
holder_pid=$!
wait_for "cl_app holds ACCESS SHARE on $readable" 15 \
    "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE a.usename = 'cl_app' AND l.relation IN (SELECT oid FROM pg_class
       WHERE relnamespace = 'fetchq'::regnamespace AND relkind = 'r') AND l.granted" \
    "$(tr ',' '\n' <<<"$readable" | grep -c .)"
victim=$(as cl_victim "SET lock_timeout = '3s';
    SELECT fetchq.doc_push('cl_victimq', 'v1', 0, 0, now(), '{}');
    SELECT fetchq.queue_set_max_attempts('cl_victimq', 3);
    SELECT fetchq.queue_create('cl_victimq2');
    SELECT fetchq.queue_drop('cl_victimq2');
    SELECT fetchq.metric_get('cl_victimq', 'cnt')")
check_lacks() { if grep -Eq -- "$3" <<<"$2"; then fail "$1 (/$3/ in: $2)"; else ok "$1"; fi; }
check_lacks "cl_victim's push, settings, queue_create and queue_drop do not wait" "$victim" "ERROR"
check "cl_victim's push was counted" "$(as cl_victim "SELECT current_value FROM fetchq.metric_get('cl_victimq', 'cnt')")" 1
check_lacks "cl_granted's push into cl_appq does not wait" \
    "$(as cl_granted "SET lock_timeout = '3s'; SELECT fetchq.doc_push('cl_appq', 'g1', 0, 0, now(), '{}')")" "ERROR"
kill "$holder_pid" 2>/dev/null || true
wait "$holder_pid" 2>/dev/null || true
holder_pid=

# --- fetchq.streams.owner and the stream catalog: written by fetchq only -------
check "cl_streamer creates a stream" "$(as cl_streamer "SELECT was_created FROM fetchq.stream_create('cl_s')")" t
check "... recorded as its owner" "$(q "SELECT owner::text FROM fetchq.streams WHERE name = 'cl_s'")" cl_streamer
check_has "cl_streamer cannot rewrite fetchq.streams.owner" \
    "$(as cl_streamer "UPDATE fetchq.streams SET owner = 'cl_streamer'::regrole")" "ERROR:  42501"
check_has "cl_app cannot rewrite fetchq.streams.owner" \
    "$(as cl_app "UPDATE fetchq.streams SET owner = 'cl_app'::regrole")" "ERROR:  42501"
check_has "cl_streamer cannot add groups by hand" \
    "$(as cl_streamer "INSERT INTO fetchq.stream_groups (stream_id, group_name) SELECT id, 'x' FROM fetchq.streams")" \
    "ERROR:  42501"
check "cl_streamer appends" "$(as cl_streamer "SELECT fetchq.stream_append('cl_s', 'k', '{\"n\": 1}')")" 1
check "cl_streamer reads (its group registered by fetchq)" \
    "$(as cl_streamer "SELECT \"offset\" FROM fetchq.stream_read('cl_s', 'g', 'k')")" 1
check "cl_streamer commits" "$(as cl_streamer "SELECT fetchq.stream_commit('cl_s', 'g', 'k', 1)")" 1
check "cl_streamer creates a group" "$(as cl_streamer "SELECT fetchq.stream_group_create('cl_s', 'g2')")" t
check "cl_streamer sets max_age" "$(as cl_streamer "SELECT fetchq.stream_set_max_age('cl_s', '1 day')")" t
check_has "cl_granted (no CREATE on fetchq_data) cannot create a stream" \
    "$(as cl_granted "SELECT fetchq.stream_create('cl_s2')")" "ERROR:  42501"
check_has "cl_app cannot read cl_s" "$(as cl_app "SELECT * FROM fetchq.stream_read('cl_s', 'h', 'k')")" \
    "ERROR:  42501"
check "... nor registered group h" "$(q "SELECT count(*) FROM fetchq.stream_groups WHERE group_name = 'h'")" 0
check_has "cl_app cannot append to cl_s" "$(as cl_app "SELECT fetchq.stream_append('cl_s', 'k', '{}')")" \
    "ERROR:  42501"
check_has "cl_app cannot grant itself cl_s" \
    "$(as cl_app "SELECT fetchq.stream_grant('cl_s', 'cl_app', 'read')")" "ERROR:  42501"
check_has "cl_streamer cannot add grants by hand" \
    "$(as cl_streamer "INSERT INTO fetchq.stream_grants (stream_id, grantee, privileges, grantor)
        SELECT id, 'cl_app'::regrole, 3, 'cl_streamer'::regrole FROM fetchq.streams")" "ERROR:  42501"
check "cl_streamer grants read on cl_s to cl_app" \
    "$(as cl_streamer "SELECT fetchq.stream_grant('cl_s', 'cl_app', 'read')")" "{read}"
check "cl_app reads cl_s with no privilege on any table of streams" \
    "$(as cl_app "SELECT \"offset\" FROM fetchq.stream_read('cl_s', 'h', 'k')")" 1
check "cl_app commits" "$(as cl_app "SELECT fetchq.stream_commit('cl_s', 'h', 'k', 1)")" 1
check_has "... and still cannot append" "$(as cl_app "SELECT fetchq.stream_append('cl_s', 'k', '{}')")" \
    "ERROR:  42501"
check "cl_app creates a stream of its own" \
    "$(as cl_app "SELECT was_created FROM fetchq.stream_create('cl_s2')")" t
check "... and appends to it" "$(as cl_app "SELECT fetchq.stream_append('cl_s2', 'k', '{}')")" 1
check_has "cl_victim cannot drop cl_streamer's stream" \
    "$(as cl_victim "SELECT fetchq.stream_drop('cl_s')")" "ERROR:  42501"
check "cl_streamer drops its stream" "$(as cl_streamer "SELECT fetchq.stream_drop('cl_s')")" t
check "... with its groups and grants" \
    "$(q "SELECT count(*) FROM fetchq.stream_groups g JOIN fetchq.streams s ON s.id = g.stream_id
          WHERE s.name = 'cl_s'") $(q "SELECT count(*) FROM fetchq.stream_grants")" "0 0"

# --- what the documented grants allow ------------------------------------------
check "cl_app pushes, picks and completes" \
    "$(as cl_app "SELECT fetchq.doc_push('cl_appq', 'a1', 0, 0, now() - interval '1 s', '{}')" &&
        as cl_app "SELECT subject FROM fetchq.doc_pick('cl_appq', 0, 1, '5m')" &&
        as cl_app "SELECT fetchq.doc_complete('cl_appq', 'a1', '{}')")" "1
a1
1"
check "... and its counters were written" \
    "$(as cl_app "SELECT string_agg(metric || '=' || current_value, ',' ORDER BY metric)
                  FROM fetchq.metric_get('cl_appq') WHERE metric IN ('cnt', 'cpl', 'pnd', 'act')")" \
    "act=0,cnt=2,cpl=1,pnd=1"
check "cl_app sets its queue's settings" \
    "$(as cl_app "SELECT affected_rows FROM fetchq.queue_set_max_attempts('cl_appq', 1);
                  SELECT fetchq.queue_set_retention('cl_appq', '1 day', '2 days');
                  SELECT fetchq.queue_set_retry_policy('cl_appq', NULL);
                  SELECT fetchq.queue_set_logs_retention('cl_appq', '2 days');
                  SELECT fetchq.queue_set_default_ttl('cl_appq', '1 day')")" "1
1
1
1
1"
check_has "cl_victim cannot change cl_app's queue" \
    "$(as cl_victim "SELECT fetchq.queue_set_max_attempts('cl_appq', 9)")" "ERROR:  42501"
check_has "cl_victim cannot reset cl_app's counters (no right on its documents)" \
    "$(q "REVOKE ALL ON fetchq_data.cl_appq__docs FROM cl_victim" &&
        as cl_victim "SELECT fetchq.metric_set('cl_appq', 'cnt', 0)")" "ERROR:  42501"
check_has "... nor log a counter change of it" \
    "$(as cl_victim "SELECT fetchq.metric_log_increment('cl_appq', 'cnt', 5)")" "ERROR:  42501"
check "cl_app sets a counter of its queue" \
    "$(as cl_app "SELECT current_value FROM fetchq.metric_set('cl_appq', 'mine', 7)")" 7
check "cl_app logs and packs a counter change" \
    "$(as cl_app "SELECT fetchq.metric_log_increment('cl_appq', 'mine', 1); SELECT fetchq.metric_log_pack();
                  SELECT current_value FROM fetchq.metric_get('cl_appq', 'mine')")" "1
1
8"
check "cl_app recounts its queue" "$(as cl_app "SELECT cnt FROM fetchq.metric_reset('cl_appq')")" 2
check "cl_app routes from its queue into cl_victim's (with a grant of push)" \
    "$(as cl_victim "SELECT fetchq.queue_grant('cl_victimq', 'cl_app', 'push')" >/dev/null &&
        as cl_app "SELECT fetchq.route_create('cl_appq', 'cl_victimq') > 0")" t
check "... and a push is delivered" \
    "$(as cl_app "SELECT fetchq.doc_push('cl_appq', 'r1', 0, 0, now(), '{}')" >/dev/null &&
        q "SELECT count(*) FROM fetchq_data.cl_victimq__docs WHERE subject = 'r1'")" 1
check "cl_app creates a topic, subscribes a temporary queue, publishes" \
    "$(as cl_app "SELECT was_created FROM fetchq.topic_create('cl_topic');
                  SELECT fetchq.subscribe_temporary('cl_topic') LIKE 'tmp_%';
                  SELECT fetchq.doc_push('cl_topic', 'n1', 0, 0, now(), '{}');
                  SELECT count(*) FROM fetchq.queues WHERE owner_session IS NOT NULL")" "t
t
1
1"
check "cl_app creates a temporary queue" \
    "$(as cl_app "SELECT fetchq.queue_create_temporary() LIKE 'tmp_%'")" t
wait_for "the temporary queues are dropped when their sessions end" 30 \
    "SELECT count(*) FROM fetchq.temporary_queues" 0
check "cl_app runs mnt on its queue" "$(as cl_app "SELECT processed >= 0 FROM fetchq.mnt()")" t
check "... whose snapshot job wrote the queue's metrics" \
    "$(q "SELECT count(*) > 0 FROM fetchq_data.cl_appq__metrics")" t
check "... and rescheduled its jobs" \
    "$(q "SELECT count(*) FROM fetchq.jobs WHERE queue = 'cl_appq' AND iterations > 0")" 4
# The jobs are written by fetchq, for the rows the caller's own queues have.
sts_id=$(q "SELECT id FROM fetchq.jobs WHERE queue = 'cl_appq' AND task = 'sts'")
check "cl_victim cannot reschedule a job of cl_app's queue" \
    "$(as cl_victim "SELECT fetchq.mnt_job_reschedule($sts_id, '10 days')")" f
check "... which is unchanged" \
    "$(q "SELECT next_iteration < now() + interval '1 day' FROM fetchq.jobs WHERE id = $sts_id")" t
check "cl_app reschedules it" "$(as cl_app "SELECT fetchq.mnt_job_reschedule($sts_id, '10 days')")" t
q "UPDATE fetchq.jobs SET next_iteration = now() - interval '1 hour' WHERE queue IN ('*', 'cl_victimq')" >/dev/null
check "cl_app picks neither the global jobs nor cl_victim's" \
    "$(as cl_app "SELECT count(*) FROM fetchq.mnt_job_pick('1 minute', 100) WHERE queue IN ('*', 'cl_victimq')")" 0
check "... which a superuser picks" \
    "$(q "SELECT count(*) > 0 FROM fetchq.mnt_job_pick('1 minute', 100) WHERE queue = 'cl_victimq'")" t

# The scheduler maintains cl_app's queue as cl_app: promotion of a due
# document, and the kill of a pick whose lock expired (max_attempts 1).
as cl_app "SELECT fetchq.doc_push('cl_appq', 'later', 0, 0, now() + interval '1 second', '{}')" >/dev/null
wait_for "the scheduler promotes cl_app's planned document" 20 \
    "SELECT status FROM fetchq_data.cl_appq__docs WHERE subject = 'later'" 1
as cl_app "SELECT fetchq.doc_push('cl_appq', 'orphan', 0, 9, now(), '{}')" >/dev/null
check "cl_app picks with a 1 s lock" \
    "$(as cl_app "SELECT subject FROM fetchq.doc_pick('cl_appq', 0, 1, '1s')")" orphan
wait_for "the scheduler kills the expired pick (max_attempts 1)" 20 \
    "SELECT status FROM fetchq_data.cl_appq__docs WHERE subject = 'orphan'" -1
wait_for "... and counts it" 20 \
    "SELECT current_value FROM fetchq.metric_get('cl_appq', 'kll')" 1
check "no failure in the scheduler's status" \
    "$(q "SELECT count(*) FROM fetchq.worker_status() WHERE last_error LIKE '%cl_app%'")" 0

check "cl_app drops its queue" "$(as cl_app "SELECT was_dropped FROM fetchq.queue_drop('cl_appq')")" t
check "... with its catalog rows" \
    "$(q "SELECT (SELECT count(*) FROM fetchq.jobs WHERE queue = 'cl_appq')
               + (SELECT count(*) FROM fetchq.counters WHERE queue = 'cl_appq')
               + (SELECT count(*) FROM fetchq.routes WHERE source = 'cl_appq')")" 0
[ "$failures" = 0 ]
