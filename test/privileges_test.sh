#!/usr/bin/env bash
# Per-queue privileges (queue_grant, queue_revoke), against a running server:
# a matrix of every per-queue function of the API by push-only, pick-only,
# read-only, manage and ungranted roles on a queue with grants and on one
# without; refusals with 42501 that write nothing; counters written on a
# granted role's behalf; no table opened by a grant; group roles; a revoke
# seen by a connected session; the all-or-nothing model unchanged; planted
# look-alike operators that fire in plain SQL and never in fetchq's calls.
# Env: PGHOST PGPORT PGUSER (a superuser) of a server with
# shared_preload_libraries = 'fetchq'; $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

roles="pv_admin pv_push pv_pick pv_read pv_manage pv_none pv_group pv_member pv_legacy pv_gone pv_bob"
cleanup() {
    for queue in pv_q pv_open pv_dest pv_topic pv_sub pv_bobdlq; do
        psql -X -q -d "$db" -c "SELECT fetchq.queue_drop('$queue')" >/dev/null 2>&1 || true
    done
    psql -X -q -d "$db" -c "DROP OPERATOR IF EXISTS public.= (varchar, varchar)" >/dev/null 2>&1 || true
    psql -X -q -d "$db" -c "DROP FUNCTION IF EXISTS public.pv_eq(varchar, varchar)" >/dev/null 2>&1 || true
    psql -X -q -d "$db" -c "DROP TABLE IF EXISTS public.pv_fired, public.pv_trigger_seen" >/dev/null 2>&1 || true
    for role in $roles; do
        psql -X -q -d "$db" -c "DROP OWNED BY $role CASCADE" >/dev/null 2>&1 || true
        psql -X -q -d postgres -c "DROP ROLE IF EXISTS $role" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT
cleanup

# as ROLE SQL: output, or the error with its SQLSTATE (verbose).
as() {
    psql -X -q -At -v ON_ERROR_STOP=1 -U "$1" -d "$db" -c '\set VERBOSITY verbose' -c "$2" 2>&1 || true
}
# refused ROLE SQL: "42501 <message>" when refused, else "ran".
refused() {
    local out
    out=$(as "$1" "$2")
    if grep -q "ERROR:  42501" <<<"$out"; then
        sed -n 's/^ERROR:  42501: \(.*\)$/42501 \1/p' <<<"$out" | head -1
    elif grep -q "ERROR:" <<<"$out"; then
        grep "ERROR:" <<<"$out" | head -1
    else
        echo ran
    fi
}
# fingerprint: everything a call on pv_q could change, as one hash.
fingerprint() {
    q "SELECT md5(concat_ws('|',
         (SELECT string_agg(d::text, ',' ORDER BY subject) FROM fetchq_data.pv_q__docs d),
         (SELECT string_agg(l::text, ',' ORDER BY id) FROM fetchq_data.pv_q__logs l),
         (SELECT string_agg(m::text, ',' ORDER BY id) FROM fetchq_data.pv_q__metrics m),
         (SELECT string_agg(c::text, ',' ORDER BY slot) FROM fetchq.counters c WHERE queue = 'pv_q'),
         (SELECT string_agg(c::text, ',' ORDER BY metric, slot) FROM fetchq.custom_counters c
           WHERE queue = 'pv_q'),
         (SELECT q::text FROM fetchq.queues q WHERE name = 'pv_q'),
         (SELECT string_agg(j::text, ',' ORDER BY id) FROM fetchq.jobs j WHERE queue = 'pv_q'),
         (SELECT string_agg(w::text, ',') FROM fetchq.metrics_writes w WHERE queue = 'pv_q'),
         (SELECT string_agg(g::text, ',' ORDER BY grantee) FROM fetchq.queue_grants g),
         (SELECT string_agg(r::text, ',' ORDER BY id) FROM fetchq.routes r),
         (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'fetchq_data.pv_q__docs'::regclass)))"
}

q "CREATE ROLE pv_admin LOGIN; CREATE ROLE pv_push LOGIN; CREATE ROLE pv_pick LOGIN;
   CREATE ROLE pv_read LOGIN; CREATE ROLE pv_manage LOGIN; CREATE ROLE pv_none LOGIN;
   CREATE ROLE pv_group NOLOGIN; CREATE ROLE pv_member LOGIN IN ROLE pv_group;
   CREATE ROLE pv_legacy LOGIN; CREATE ROLE pv_gone LOGIN"
# Only USAGE on the schemas for the granted roles; docs/install.md's
# all-or-nothing grants for the queues' owner and the legacy role.
for role in pv_admin pv_push pv_pick pv_read pv_manage pv_none pv_group pv_member pv_legacy pv_gone; do
    q "GRANT USAGE ON SCHEMA fetchq, fetchq_data TO $role"
done
for role in pv_admin pv_legacy; do
    q "GRANT SELECT ON fetchq.queues, fetchq.metrics TO $role;
       GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA fetchq_data TO $role;
       GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA fetchq_data TO $role"
done
q "GRANT CREATE ON SCHEMA fetchq_data TO pv_admin"
q "ALTER DEFAULT PRIVILEGES FOR ROLE pv_admin IN SCHEMA fetchq_data
     GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO pv_legacy;
   ALTER DEFAULT PRIVILEGES FOR ROLE pv_admin IN SCHEMA fetchq_data
     GRANT USAGE, SELECT ON SEQUENCES TO pv_legacy"
for queue in pv_q pv_open pv_dest; do as pv_admin "SELECT fetchq.queue_create('$queue')" >/dev/null; done

echo "# granting"
check "only the owner (or manage, or a superuser) grants" \
    "$(refused pv_push "SELECT fetchq.queue_grant('pv_q', 'pv_push', 'push')")" \
    '42501 permission denied to grant privileges on queue "pv_q"'
check "queue_grant returns what the role holds" \
    "$(as pv_admin "SELECT fetchq.queue_grant('pv_q', 'pv_push', 'push')")" "{push}"
as pv_admin "SELECT fetchq.queue_grant('pv_q', 'pv_pick', ARRAY['pick'])" >/dev/null
as pv_admin "SELECT fetchq.queue_grant('pv_q', 'pv_read'::regrole, 'read')" >/dev/null
check "'all' is the four" "$(as pv_admin "SELECT fetchq.queue_grant('pv_q', 'pv_manage', 'all')")" \
    "{push,pick,read,manage}"
check "a role with manage grants too" \
    "$(as pv_manage "SELECT fetchq.queue_grant('pv_q', 'pv_group', 'push, read')")" "{push,read}"
as pv_admin "SELECT fetchq.queue_grant('pv_dest', 'pv_manage', 'push')" >/dev/null
check_has "an unknown privilege is refused" \
    "$(as pv_admin "SELECT fetchq.queue_grant('pv_q', 'pv_push', 'delete')")" \
    'ERROR:  22023: unrecognized queue privilege "delete"'
check_has "an unknown role is refused" \
    "$(as pv_admin "SELECT fetchq.queue_grant('pv_q', 'pv_nobody', 'push')")" \
    'ERROR:  42704: role "pv_nobody" does not exist'
check_has "a grant on a missing queue is refused" \
    "$(as pv_admin "SELECT fetchq.queue_grant('pv_nope', 'pv_push', 'push')")" \
    'ERROR:  42704: queue "pv_nope" does not exist'
check "queue_privileges lists the grants of a queue to a reader" \
    "$(as pv_read "SELECT string_agg(role || '=' || array_to_string(privileges, '+') || '/' || grantor,
                                     ' ' ORDER BY role) FROM fetchq.queue_privileges")" \
    "pv_group=push+read/pv_manage pv_manage=push+pick+read+manage/pv_admin pv_pick=pick/pv_admin pv_push=push/pv_admin pv_read=read/pv_admin"
check "and nothing to a role that may not read the queue" \
    "$(as pv_push "SELECT count(*) FROM fetchq.queue_privileges")" 0
check "queue_has_privilege answers for the caller" \
    "$(as pv_pick "SELECT fetchq.queue_has_privilege('pv_q', 'pick')::text || fetchq.queue_has_privilege('pv_q', 'push')::text")" \
    "truefalse"
check "and for a queue without grants from its tables" \
    "$(q "SELECT fetchq.queue_has_privilege('pv_open', 'push', 'pv_legacy')::text
              || fetchq.queue_has_privilege('pv_open', 'push', 'pv_push')::text
              || fetchq.queue_has_privilege('pv_open', 'manage', 'pv_admin')::text")" "truefalsetrue"

# Documents for the calls below: pending, and active for each picker.
as pv_admin "SELECT fetchq.doc_push('pv_q', 'seed' || i) FROM generate_series(1, 20) i" >/dev/null

echo "# the matrix: each per-queue function, each role"
# privilege|SQL, with QUEUE for the queue and ROLE for the role.
calls=$(cat <<'EOF'
push|SELECT fetchq.doc_push('QUEUE', 'p1_ROLE')
push|SELECT fetchq.doc_push('QUEUE', 'p2_ROLE', '{"a": 1}')
push|SELECT fetchq.doc_push('QUEUE', 'p3_ROLE', '{}', now() + interval '1 hour')
push|SELECT fetchq.doc_push('QUEUE', 'p4_ROLE', 0, 0, now(), '{}')
push|SELECT fetchq.doc_push('QUEUE', 0, now(), '(''p5_ROLE'', 0, ''{}'', {DATA})')
push|SELECT fetchq.doc_push_many('QUEUE', ARRAY['p6_ROLE'], NULL, now(), 0, 0)
push|SELECT fetchq.doc_append('QUEUE', '{}')
push|SELECT fetchq.doc_upsert('QUEUE', 'p7_ROLE', 0, 0, now(), '{}')
pick|SELECT count(*) FROM fetchq.doc_pick('QUEUE', 0, 1, '5m')
pick|SELECT count(*) FROM fetchq.doc_pick('QUEUE')
pick|SELECT count(*) FROM fetchq.doc_take('QUEUE', 'seed1', '5m')
pick|SELECT fetchq.doc_complete('QUEUE', 'none')
pick|SELECT fetchq.doc_complete('QUEUE', 'none', '{}')
pick|SELECT fetchq.doc_complete_many('QUEUE', ARRAY['none'])
pick|SELECT fetchq.doc_kill('QUEUE', 'none')
pick|SELECT fetchq.doc_drop('QUEUE', 'none')
pick|SELECT fetchq.doc_reschedule('QUEUE', 'none', now())
pick|SELECT fetchq.doc_reject('QUEUE', 'none', 'why', '{}')
pick|SELECT fetchq.doc_extend('QUEUE', 'none', '5m')
pick|SELECT fetchq.log_error('QUEUE', 'none', 'why', '{}')
read|SELECT count(*) FROM fetchq.doc_peek('QUEUE', 'seed2')
read|SELECT count(*) FROM fetchq.queue_top('QUEUE', 0, 5, 0)
read|SELECT count(*) FROM fetchq.queue_status('QUEUE')
read|SELECT count(*) FROM fetchq.stats('QUEUE')
read|SELECT count(*) FROM fetchq.metric_get('QUEUE')
read|SELECT count(*) FROM fetchq.metric_get('QUEUE', 'cnt')
read|SELECT count(*) FROM fetchq.metric_get_common('QUEUE')
read|SELECT count(*) FROM fetchq.metric_compute('QUEUE')
read|SELECT fetchq.queue_get_id('QUEUE')
manage|SELECT fetchq.queue_set_max_attempts('QUEUE', 5)
manage|SELECT fetchq.queue_set_current_version('QUEUE', 0)
manage|SELECT fetchq.queue_set_logs_retention('QUEUE', '24 hours')
manage|SELECT fetchq.queue_set_metrics_retention('QUEUE', '[]')
manage|SELECT fetchq.queue_set_default_ttl('QUEUE', NULL)
manage|SELECT fetchq.queue_set_retention('QUEUE', NULL, NULL)
manage|SELECT fetchq.queue_set_retry_policy('QUEUE', NULL, NULL)
manage|SELECT fetchq.queue_set_dead_letter('QUEUE', NULL)
manage|SELECT fetchq.metric_set('QUEUE', 'custom', 1)
manage|SELECT fetchq.metric_increment('QUEUE', 'custom', 1)
manage|SELECT fetchq.metric_log_increment('QUEUE', 'custom', 1)
manage|SELECT count(*) FROM fetchq.metric_reset('QUEUE')
manage|SELECT count(*) FROM fetchq.metric_snap('QUEUE')
manage|SELECT fetchq.queue_drop_logs('QUEUE')
manage|SELECT fetchq.queue_drop_metrics('QUEUE')
manage|SELECT fetchq.doc_retry('QUEUE', 'none')
manage|SELECT fetchq.doc_retry_many('QUEUE')
manage|SELECT count(*) FROM fetchq.mnt_run('QUEUE', 100)
manage|SELECT fetchq.mnt_make_pending('QUEUE', 100)
manage|SELECT fetchq.queue_enable_notify('QUEUE')
manage|SELECT fetchq.queue_disable_notify('QUEUE')
manage|SELECT fetchq.queue_truncate('QUEUE')
manage|SELECT fetchq.queue_grant('QUEUE', 'pv_none', 'read') IS NOT NULL AND fetchq.queue_revoke('QUEUE', 'pv_none', 'read') IS NOT NULL
EOF
)
# The role with each privilege, and what it holds.
declare -A holds=([pv_push]=push [pv_pick]=pick [pv_read]=read [pv_manage]="push pick read manage" [pv_none]="")
# The scheduler runs a new queue's snapshot and retention jobs once at once:
# let it, so that the fingerprint moves only with the calls.
wait_for "the scheduler ran the queue's first jobs" 30 \
    "SELECT count(*) FROM fetchq.jobs WHERE queue = 'pv_q' AND task IN ('sts', 'drp') AND iterations > 0" 2
before=$(fingerprint)
refusals=0
wrong=""
while IFS='|' read -r privilege sql; do
    for role in pv_push pv_pick pv_read pv_none; do
        [[ " ${holds[$role]} " == *" $privilege "* ]] && continue
        stmt=${sql//QUEUE/pv_q}
        got=$(refused "$role" "${stmt//ROLE/$role}")
        want="42501 permission denied for queue \"pv_q\""
        [ "$privilege" = manage ] && [[ "$sql" == *queue_grant* ]] &&
            want="42501 permission denied to grant privileges on queue \"pv_q\""
        if [ "$got" = "$want" ]; then refusals=$((refusals + 1)); else wrong+="$role: ${stmt//ROLE/$role} -> $got; "; fi
    done
done <<<"$calls"
check "every call without its privilege is refused with 42501 naming the queue" "$wrong" ""
echo "# ($refusals refusals)"
check "the refused calls wrote nothing" "$(fingerprint)" "$before"
check_has "the refusal names the missing privilege and queue_grant" \
    "$(as pv_read "SELECT fetchq.doc_push('pv_q', 'x')")" \
    'DETAIL:  Role "pv_read" lacks the push privilege on queue "pv_q".'
check_has "the hint names queue_grant" \
    "$(as pv_read "SELECT fetchq.doc_push('pv_q', 'x')")" \
    "HINT:  .*fetchq.queue_grant\('pv_q', 'pv_read', 'push'\)"

wrong=""
while IFS='|' read -r privilege sql; do
    for role in pv_push pv_pick pv_read pv_manage; do
        [[ " ${holds[$role]} " == *" $privilege "* ]] || continue
        [[ "$sql" == *queue_truncate* ]] && continue   # last, below
        stmt=${sql//QUEUE/pv_q}
        got=$(refused "$role" "${stmt//ROLE/$role}")
        [ "$got" = ran ] || wrong+="$role: ${stmt//ROLE/$role} -> $got; "
    done
done <<<"$calls"
check "every call with its privilege runs, with no privilege on any table" "$wrong" ""

wrong=""
while IFS='|' read -r privilege sql; do
    for role in pv_push pv_pick pv_read pv_manage; do
        stmt=${sql//QUEUE/pv_open}
        got=$(refused "$role" "${stmt//ROLE/$role}")
        [[ "$got" == 42501* ]] || wrong+="$role: ${stmt//ROLE/$role} -> $got; "
    done
done <<<"$calls"
check "a grant on one queue opens no other queue" "$wrong" ""

echo "# the waiting pick checks pick, and switches user inside"
check "CALL doc_pick_wait without pick is refused" \
    "$(refused pv_push "CALL fetchq.doc_pick_wait('pv_q', 0, 1, '5m', '0s', NULL)")" \
    '42501 permission denied for queue "pv_q"'
check "CALL doc_pick_wait with pick picks" \
    "$(as pv_pick "CALL fetchq.doc_pick_wait('pv_q', 0, 1, '5m', '1s', NULL)" | grep -c '"subject"')" 1
check "queue_drop without manage is refused" \
    "$(refused pv_read "SELECT fetchq.queue_drop('pv_q')")" '42501 permission denied for queue "pv_q"'

echo "# counters written on the granted role's behalf"
q "SELECT fetchq.queue_truncate('pv_q')" >/dev/null
as pv_push "SELECT fetchq.doc_push('pv_q', 'c' || i) FROM generate_series(1, 5) i" >/dev/null
as pv_push "BEGIN; SELECT fetchq.doc_push('pv_q', 'rolled_back'); ROLLBACK" >/dev/null
as pv_pick "SELECT count(*) FROM fetchq.doc_pick('pv_q', 0, 2, '5m')" >/dev/null
as pv_pick "SELECT fetchq.doc_complete('pv_q', subject) FROM fetchq_data.pv_q__docs WHERE false" >/dev/null
subjects=$(q "SELECT string_agg(subject, ' ') FROM fetchq_data.pv_q__docs WHERE status = 2")
for s in $subjects; do as pv_pick "SELECT fetchq.doc_complete('pv_q', '$s')" >/dev/null; done
check "the counters of a push by a push-only role and completes by a pick-only role are exact" \
    "$(q "SELECT cnt || ' ' || pnd || ' ' || act || ' ' || cpl FROM fetchq.metric_get_common('pv_q')")" \
    "5 3 0 2"
check "and agree with metric_compute" \
    "$(q "SELECT cnt || ' ' || pnd || ' ' || act || ' ' || cpl FROM fetchq.metric_get_common('pv_q')")" \
    "$(q "SELECT cnt || ' ' || pnd || ' ' || act || ' ' || cpl FROM fetchq.metric_compute('pv_q')")"

echo "# no table is opened by a grant"
wrong=""
for role in pv_push pv_pick pv_read pv_manage; do
    for sql in "SELECT count(*) FROM fetchq_data.pv_q__docs" "SELECT count(*) FROM fetchq_data.pv_q__logs" \
        "INSERT INTO fetchq_data.pv_q__docs (subject) VALUES ('plain')" \
        "UPDATE fetchq.counters SET cnt = 0" "SELECT count(*) FROM fetchq.counters" \
        "SELECT count(*) FROM fetchq.queues" "UPDATE fetchq.queues SET max_attempts = 1" \
        "SELECT count(*) FROM fetchq.jobs" "SELECT count(*) FROM fetchq.queue_grants" \
        "INSERT INTO fetchq.queue_grants VALUES ('pv_q', '$role', 15, '$role')" \
        "SELECT count(*) FROM fetchq.metrics"; do
        got=$(refused "$role" "$sql")
        [[ "$got" == 42501* ]] || wrong+="$role: $sql -> $got; "
    done
done
check "granted roles read and write no table by plain SQL" "$wrong" ""

echo "# lists show the queues the caller may read"
check "stats_all" "$(as pv_read "SELECT string_agg(queue, ',') FROM fetchq.stats_all()")" "pv_q"
check "metric_get_all" "$(as pv_read "SELECT string_agg(queue, ',') FROM fetchq.metric_get_all()")" "pv_q"
check "queue_status" "$(as pv_read "SELECT string_agg(name, ',') FROM fetchq.queue_status()")" "pv_q"
check "trace" "$(as pv_read "SELECT count(*) FROM fetchq.trace('c1')")" \
    "$(q "SELECT count(*) FROM fetchq.trace('c1') WHERE queue = 'pv_q'")"
check "a role without read sees no queue" \
    "$(as pv_push "SELECT count(*) FROM fetchq.stats_all()") $(as pv_push "SELECT count(*) FROM fetchq.queue_status()")" "0 0"
check "the all-or-nothing role sees the queues without grants (pv_dest has one)" \
    "$(as pv_legacy "SELECT string_agg(name, ',' ORDER BY name) FROM fetchq.queue_status()")" "pv_open"

echo "# group roles"
check "a grant to a group role is a grant to its members" \
    "$(as pv_member "SELECT fetchq.doc_push('pv_q', 'from_member')")" 1
check "only what the group holds" "$(refused pv_member "SELECT count(*) FROM fetchq.doc_pick('pv_q')")" \
    '42501 permission denied for queue "pv_q"'
q "REVOKE pv_group FROM pv_member"
check "leaving the group takes it away" "$(refused pv_member "SELECT fetchq.doc_push('pv_q', 'x2')")" \
    '42501 permission denied for queue "pv_q"'

echo "# routes"
check "a route out of a queue needs manage on it and push on the destination" \
    "$(refused pv_push "SELECT fetchq.route_create('pv_q', 'pv_dest')")" \
    '42501 permission denied to create a route from queue "pv_q" to queue "pv_dest"'
as pv_manage "SELECT fetchq.route_create('pv_q', 'pv_dest')" >/dev/null
as pv_push "SELECT fetchq.doc_push('pv_q', 'routed')" >/dev/null
check "a route by a role with manage delivers" \
    "$(q "SELECT count(*) FROM fetchq_data.pv_dest__docs WHERE subject = 'routed'")" 1
as pv_admin "SELECT fetchq.queue_revoke('pv_dest', 'pv_manage', 'push')" >/dev/null
check_has "its creator losing push stops the delivery" \
    "$(as pv_push "SELECT fetchq.doc_push('pv_q', 'routed2')")" "ERROR:  42501"
as pv_manage "SELECT fetchq.route_drop('pv_q', 'pv_dest')" >/dev/null

echo "# a setting that names another queue asks the caller, not the owner it acts as"
check "manage may not make another queue, where it may not push, the dead-letter queue" \
    "$(refused pv_manage "SELECT fetchq.queue_set_dead_letter('pv_q', 'pv_open')")" \
    '42501 permission denied for queue "pv_open"'
as pv_admin "SELECT fetchq.queue_grant('pv_dest', 'pv_manage', 'push')" >/dev/null
check "but one where it may push" "$(refused pv_manage "SELECT fetchq.queue_set_dead_letter('pv_q', 'pv_dest')")" ran
as pv_manage "SELECT fetchq.queue_set_dead_letter('pv_q', NULL)" >/dev/null

echo "# copies made for a granted call: routes into a queue without grants, dead letters"
as pv_admin "SELECT fetchq.topic_create('pv_topic'); SELECT fetchq.queue_create('pv_sub')" >/dev/null
as pv_admin "SELECT fetchq.subscribe('pv_topic', 'pv_sub')" >/dev/null
as pv_admin "SELECT fetchq.queue_grant('pv_topic', 'pv_push', 'push')" >/dev/null
check "a push-only role publishes into a topic whose subscriber queue has no grants" \
    "$(as pv_push "SELECT fetchq.doc_push('pv_topic', 'pub1')")" 1
check "the subscriber's counters are exact" \
    "$(q "SELECT cnt || ' ' || pnd FROM fetchq.metric_get_common('pv_sub')")" "1 1"
check "a role with manage on the topic and push on the queue subscribes it" \
    "$(as pv_admin "SELECT fetchq.queue_grant('pv_topic', 'pv_manage', 'manage'); SELECT fetchq.queue_grant('pv_sub', 'pv_manage', 'push'); SELECT fetchq.unsubscribe('pv_topic', 'pv_sub')" >/dev/null; refused pv_manage "SELECT fetchq.subscribe('pv_topic', 'pv_sub')")" ran
q "CREATE ROLE pv_bob LOGIN; GRANT USAGE, CREATE ON SCHEMA fetchq_data TO pv_bob; GRANT USAGE ON SCHEMA fetchq TO pv_bob;
   GRANT SELECT ON fetchq.queues, fetchq.metrics TO pv_bob;
   GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA fetchq_data TO pv_bob;
   GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA fetchq_data TO pv_bob"
as pv_bob "SELECT fetchq.queue_create('pv_bobdlq'); SELECT fetchq.queue_grant('pv_bobdlq', 'pv_manage', 'push')" >/dev/null
check "a dead-letter queue with grants is set by a role that holds push there (not the queue's owner)" \
    "$(refused pv_manage "SELECT fetchq.queue_set_dead_letter('pv_q', 'pv_bobdlq')")" ran
as pv_push "SELECT fetchq.doc_push('pv_q', 'to_kill')" >/dev/null
as pv_pick "SELECT fetchq.doc_take('pv_q', 'to_kill', '5m')" >/dev/null
check "a kill by a pick-only role copies into it" "$(as pv_pick "SELECT fetchq.doc_kill('pv_q', 'to_kill')")" 1
check "as its owner, counted exactly" \
    "$(q "SELECT count(*) FROM fetchq_data.pv_bobdlq__docs WHERE subject = 'to_kill'") $(q "SELECT cnt FROM fetchq.metric_get_common('pv_bobdlq')")" "1 1"
# (read stays, so that the queue keeps grants of its own)
as pv_bob "SELECT fetchq.queue_grant('pv_bobdlq', 'pv_manage', 'read');
           SELECT fetchq.queue_revoke('pv_bobdlq', 'pv_manage', 'push')" >/dev/null
as pv_push "SELECT fetchq.doc_push('pv_q', 'to_kill2')" >/dev/null
as pv_pick "SELECT fetchq.doc_take('pv_q', 'to_kill2', '5m')" >/dev/null
check_has "once its setter's push is revoked, the kill is refused" \
    "$(as pv_pick "SELECT fetchq.doc_kill('pv_q', 'to_kill2')")" "ERROR:  42501: permission denied to copy killed documents"
as pv_manage "SELECT fetchq.queue_set_dead_letter('pv_q', NULL)" >/dev/null

echo "# views and lists"
check "fetchq.stats shows a granted role its queues" "$(as pv_read "SELECT string_agg(queue, ',') FROM fetchq.stats")" "pv_q"
check "metric_compute_all by the all-or-nothing role skips the queues with grants" \
    "$(as pv_legacy "SELECT string_agg(queue, ',' ORDER BY queue) FROM fetchq.metric_compute_all()")" "pv_open"
check "mnt_run_all by the all-or-nothing role skips the queues with grants" \
    "$(as pv_legacy "SELECT string_agg(queue, ',' ORDER BY queue) FROM fetchq.mnt_run_all(10)")" "pv_open"
check_has "a role OID that does not exist is refused" \
    "$(as pv_admin "SELECT fetchq.queue_grant('pv_q', 999999::oid::regrole, 'push')")" "ERROR:  42704: role with OID 999999 does not exist"
check "worker_status hides the text of errors from a role without pg_read_all_stats" \
    "$(as pv_read "SELECT count(*) FROM fetchq.worker_status() WHERE last_error IS NOT NULL AND last_error <> '(hidden: see the server log)'")" 0

echo "# a revoke reaches a connected session, even inside its transaction"
out=$(psql -X -q -At -U pv_pick -d "$db" <<SQL 2>&1 || true
BEGIN;
SELECT fetchq.doc_complete('pv_q', 'none');
\! psql -X -q -At -d "$db" -c "SELECT fetchq.queue_revoke('pv_q', 'pv_pick', 'pick')"
SELECT count(*) FROM fetchq.doc_pick('pv_q');
ROLLBACK;
SQL
)
check_has "the next call in the open transaction is refused" "$out" 'permission denied for queue "pv_q"'
as pv_admin "SELECT fetchq.queue_grant('pv_q', 'pv_pick', 'pick')" >/dev/null

echo "# a revoke reaches a connected session"
out=$(psql -X -q -At -U pv_push -d "$db" <<SQL 2>&1 || true
SELECT fetchq.doc_push('pv_q', 'before_revoke');
\! psql -X -q -At -d "$db" -c "SELECT fetchq.queue_revoke('pv_q', 'pv_push', 'push')"
SELECT fetchq.doc_push('pv_q', 'after_revoke');
SQL
)
check_has "the session's next call is refused" "$out" 'permission denied for queue "pv_q"'
check "nothing pushed after the revoke" \
    "$(q "SELECT string_agg(subject, ',' ORDER BY subject) FROM fetchq_data.pv_q__docs WHERE subject LIKE '%_revoke'")" \
    "before_revoke"
check "queue_revoke returns what is left" "$(as pv_admin "SELECT fetchq.queue_revoke('pv_q', 'pv_manage', ARRAY['push', 'pick'])")" \
    "{read,manage}"

echo "# a dropped role loses its grants"
as pv_admin "SELECT fetchq.queue_grant('pv_q', 'pv_gone', 'push')" >/dev/null
q "REVOKE USAGE ON SCHEMA fetchq, fetchq_data FROM pv_gone; DROP ROLE pv_gone"
check "queue_privileges no longer shows it" \
    "$(q "SELECT count(*) FROM fetchq.queue_privileges WHERE role = 'pv_gone'")" 0
wait_for "the scheduler removes its grant" 30 \
    "SELECT count(*) FROM fetchq.queue_grants g WHERE NOT EXISTS (SELECT 1 FROM pg_roles r WHERE r.oid = g.grantee)" 0

echo "# the all-or-nothing model is unchanged"
check "the legacy role pushes, picks and completes in a queue without grants" \
    "$(as pv_legacy "SELECT fetchq.doc_push('pv_open', 'l1')") $(as pv_legacy "SELECT subject FROM fetchq.doc_pick('pv_open', 0, 1, '5m')") $(as pv_legacy "SELECT fetchq.doc_complete('pv_open', 'l1')")" \
    "1 l1 1"
check "its counters are exact" \
    "$(q "SELECT cnt || ' ' || cpl FROM fetchq.metric_get_common('pv_open')")" "1 1"
check "but a queue with grants of its own asks for them" \
    "$(refused pv_legacy "SELECT fetchq.doc_push('pv_q', 'l2')")" '42501 permission denied for queue "pv_q"'
as pv_admin "SELECT fetchq.queue_grant('pv_open', 'pv_push', 'push')" >/dev/null
as pv_admin "SELECT fetchq.queue_revoke('pv_open', 'pv_push', 'push')" >/dev/null
check "a queue whose last grant is revoked is back in that model" \
    "$(as pv_legacy "SELECT fetchq.doc_push('pv_open', 'l3')")" 1

echo "# the owner's trigger runs as the owner, and keeps its settings"
q "CREATE TABLE public.pv_trigger_seen (who name, path text); GRANT INSERT ON public.pv_trigger_seen TO pv_admin"
as pv_admin "CREATE FUNCTION fetchq_data.pv_spy() RETURNS trigger LANGUAGE plpgsql AS \$\$
  BEGIN
    INSERT INTO public.pv_trigger_seen VALUES (current_user, current_setting('search_path'));
    PERFORM set_config('search_path', 'public', false);
    RETURN NEW;
  END \$\$;
  CREATE TRIGGER pv_spy BEFORE INSERT ON fetchq_data.pv_q__docs FOR EACH ROW EXECUTE FUNCTION fetchq_data.pv_spy()" >/dev/null
as pv_admin "SELECT fetchq.queue_grant('pv_q', 'pv_push', 'push')" >/dev/null
check "a push by a granted role runs the trigger as the queue's owner; its setting stays inside" \
    "$(as pv_push "SELECT fetchq.doc_push('pv_q', 'spied'); SHOW search_path")" \
    $'1\n"$user", public'
check "as the owner" "$(q "SELECT who FROM public.pv_trigger_seen")" "pv_admin"
as pv_admin "DROP TRIGGER pv_spy ON fetchq_data.pv_q__docs; DROP FUNCTION fetchq_data.pv_spy()" >/dev/null

echo "# planted look-alikes never fire"
q "CREATE TABLE public.pv_fired (who name, query text); GRANT INSERT ON public.pv_fired TO PUBLIC;
   CREATE FUNCTION public.pv_eq(a varchar, b varchar) RETURNS boolean LANGUAGE plpgsql AS
     \$\$ BEGIN INSERT INTO public.pv_fired VALUES (current_user, current_query());
               RETURN a::text = b::text; END \$\$;
   CREATE OPERATOR public.= (leftarg = varchar, rightarg = varchar, function = public.pv_eq)"
as pv_push "SELECT 'a'::varchar = 'a'::varchar" >/dev/null
check "calibration: the look-alike fires in plain SQL" "$(q "SELECT count(*) FROM public.pv_fired")" 1
q "TRUNCATE public.pv_fired"
for role in pv_push pv_pick pv_read pv_manage; do
    while IFS='|' read -r privilege sql; do
        [[ "$sql" == *queue_truncate* ]] && continue
        stmt=${sql//QUEUE/pv_q}
        as "$role" "SET search_path = public, pg_catalog; ${stmt//ROLE/$role}" >/dev/null
    done <<<"$calls"
done
while IFS='|' read -r privilege sql; do
    [[ "$sql" == *queue_truncate* ]] && continue
    stmt=${sql//QUEUE/pv_q}
    q "SET search_path = public, pg_catalog; ${stmt//ROLE/postgres}" >/dev/null 2>&1 || true
done <<<"$calls"
as pv_push "SELECT fetchq.doc_push('pv_q', 'later', '{}', now() + interval '1 second')" >/dev/null
wait_for "the scheduler promotes a planned document" 30 \
    "SELECT status FROM fetchq_data.pv_q__docs WHERE subject::text = 'later'" 1
check "nothing fired during granted roles', a superuser's or the scheduler's work" \
    "$(q "SELECT coalesce(string_agg(DISTINCT who || ': ' || left(query, 120), '; '), '')
          FROM public.pv_fired")" ""
check "no SECURITY DEFINER function of fetchq lacks a pinned search_path" \
    "$(q "SELECT count(*) FROM pg_proc WHERE pronamespace = 'fetchq'::regnamespace AND prosecdef
            AND NOT coalesce(proconfig, '{}') @> ARRAY['search_path=pg_catalog']")" 0

echo "# manage may drop the queue; its grants go with it"
check "truncate by manage" "$(refused pv_manage "SELECT fetchq.queue_truncate('pv_q')")" ran
check "drop by manage" "$(refused pv_manage "SELECT was_dropped FROM fetchq.queue_drop('pv_q')")" ran
check "its grants are gone" "$(q "SELECT count(*) FROM fetchq.queue_grants WHERE queue = 'pv_q'")" 0

exit $((failures > 0))
