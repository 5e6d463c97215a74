#!/usr/bin/env bash
# Issue 31, point 2: NULL arguments. Every function and procedure of schema
# fetchq, read from pg_proc (a function added later is covered without a
# change here), is called with NULL in each of its arguments in turn, the
# others holding valid sample values. NULL where it has no documented
# meaning must raise 22004 naming the argument; the arguments where NULL
# has a meaning (docs/api.md) are listed below with what they do instead.
# Each call runs in a subtransaction that is rolled back, so that a call
# that succeeds changes nothing for the next one.
# Env: PGHOST PGPORT PGUSER (a superuser) of a server with
# shared_preload_libraries = 'fetchq'; $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"
source "$(dirname "$0")/lib/function_calls.sh"

cleanup() {
    q "DROP TABLE IF EXISTS public.na_allowed, public.fc_outcomes, public.fc_pending" >/dev/null 2>&1 || true
    fc_teardown
}
trap cleanup EXIT
fc_setup

# The arguments where NULL has a documented meaning (docs/api.md), with what
# the call does then: "ok" (it runs), "null" (it returns NULL) or a SQLSTATE.
# An argument whose declared default is NULL means "not given" and needs no
# entry. function|argument|expected|reason
allowed=$(
    cat <<'EOF'
doc_push(varchar,varchar,jsonb)|payload|ok|Fetchq 4: a NULL payload is stored as NULL
doc_push(varchar,varchar,jsonb,timestamptz)|payload|ok|Fetchq 4: a NULL payload is stored as NULL
doc_push(varchar,varchar,int4,int4,timestamptz,jsonb)|payload|ok|Fetchq 4: a NULL payload is stored as NULL
doc_push(varchar,varchar,int4,int4,timestamptz,jsonb,timestamptz)|payload|ok|Fetchq 4: a NULL payload is stored as NULL
doc_push(varchar,varchar,int4,int4,timestamptz,jsonb,timestamptz)|expires_at|ok|NULL: the queue's default_ttl
doc_append(varchar,jsonb)|payload|ok|a NULL payload is stored as NULL, as doc_push's
doc_append(varchar,jsonb,int4,int4)|payload|ok|a NULL payload is stored as NULL, as doc_push's
doc_upsert(varchar,varchar,int4,int4,timestamptz,jsonb)|payload|ok|a NULL payload is stored as NULL, as doc_push's
doc_send(varchar,varchar,jsonb,int4,int4,timestamptz,timestamptz,doc_ref[],varchar,text,text)|payload|ok|a NULL payload is stored as NULL, as doc_push's (docs/api.md, doc_send)
doc_reply(varchar,varchar,jsonb)|payload|55000|a reply's payload may be NULL, as doc_send's: the call goes on to the request, which the sample document is not (not active)
doc_push_many(varchar,varchar[],jsonb[],timestamptz,int4,int4)|subjects|ok|a NULL array adds nothing (returns 0)
doc_push_many(varchar,varchar[],jsonb[],timestamptz,int4,int4)|next_iteration|ok|NULL means the default, now()
doc_push_many(varchar,varchar[],jsonb[],timestamptz,int4,int4)|version|ok|NULL means the default, 0
doc_push_many(varchar,varchar[],jsonb[],timestamptz,int4,int4)|priority|ok|NULL means the default, 0
doc_complete_many(varchar,varchar[])|subjects|ok|a NULL array completes nothing (returns 0)
doc_complete(varchar,varchar,jsonb)|payload|ok|Fetchq 4: NULL keeps the stored payload
doc_complete(varchar,varchar,jsonb,int4)|payload|ok|Fetchq 4: NULL keeps the stored payload
doc_complete(varchar,varchar,jsonb,int4)|attempts|ok|NULL: no fence, as the Fetchq 4 forms
doc_kill(varchar,varchar,jsonb)|payload|ok|Fetchq 4: NULL keeps the stored payload
doc_kill(varchar,varchar,jsonb,int4)|payload|ok|Fetchq 4: NULL keeps the stored payload
doc_kill(varchar,varchar,jsonb,int4)|attempts|ok|NULL: no fence, as the Fetchq 4 forms
doc_drop(varchar,varchar,int4)|attempts|ok|NULL: no fence, as the Fetchq 4 forms
doc_reschedule(varchar,varchar,timestamptz,jsonb)|payload|ok|Fetchq 4: NULL keeps the stored payload
doc_reschedule(varchar,varchar,timestamptz,jsonb,int4)|payload|ok|Fetchq 4: NULL keeps the stored payload
doc_reschedule(varchar,varchar,timestamptz,jsonb,int4)|attempts|ok|NULL: no fence, as the Fetchq 4 forms
doc_reject(varchar,varchar,varchar,jsonb)|details|ok|Fetchq 4: details may be NULL
doc_reject(varchar,varchar,varchar,jsonb,varchar)|details|ok|Fetchq 4: details may be NULL
doc_reject(varchar,varchar,varchar,jsonb,varchar)|ref_id|ok|Fetchq 4: ref_id may be NULL
doc_reject(varchar,varchar,varchar,jsonb,interval)|details|ok|Fetchq 4: details may be NULL
doc_reject(varchar,varchar,varchar,jsonb,interval)|delay|ok|NULL: the Fetchq 4 behaviour (or the retry policy)
doc_reject(varchar,varchar,varchar,jsonb,varchar,interval,int4)|details|ok|Fetchq 4: details may be NULL
doc_reject(varchar,varchar,varchar,jsonb,varchar,interval,int4)|ref_id|ok|Fetchq 4: ref_id may be NULL
doc_reject(varchar,varchar,varchar,jsonb,varchar,interval,int4)|delay|ok|NULL: the Fetchq 4 behaviour (or the retry policy)
log_error(varchar,varchar,varchar,jsonb)|details|ok|Fetchq 4: details may be NULL
log_error(varchar,varchar,varchar,jsonb,varchar)|details|ok|Fetchq 4: details may be NULL
log_error(varchar,varchar,varchar,jsonb,varchar)|ref_id|ok|Fetchq 4: ref_id may be NULL
doc_pick_position(int4,timestamptz,int4,bool)|priority|ok|fetchq's own helper in the pick statement: NULL in, a position out
doc_pick_position(int4,timestamptz,int4,bool)|next_iteration|ok|fetchq's own helper in the pick statement: NULL in, a position out
doc_pick_position(int4,timestamptz,int4,bool)|attempts|null|fetchq's own helper in the pick statement: the attempts it returns
doc_pick_position(int4,timestamptz,int4,bool)|waits_before|ok|fetchq's own helper: the pick statement passes NULL (not waiting)
queue_set_default_ttl(varchar,varchar)|ttl|ok|NULL removes the default
queue_set_dead_letter(varchar,varchar)|dead_letter_queue|ok|NULL removes the dead-letter queue
queue_set_retention(varchar,interval,interval)|completed|ok|NULL: keep forever
queue_set_retention(varchar,interval,interval)|killed|ok|NULL: keep forever
queue_set_retry_policy(varchar,interval,float8,interval,float8)|delay|ok|NULL turns the policy off
queue_set_retry_policy(varchar,interval,float8,interval,float8)|factor|ok|NULL means the default, 2
queue_set_retry_policy(varchar,interval,float8,interval,float8)|jitter|ok|NULL means the default, 0
queue_has_privilege(varchar,text,regrole)|queue|null|as PostgreSQL's has_table_privilege: NULL in, NULL out
queue_has_privilege(varchar,text,regrole)|privilege|null|as PostgreSQL's has_table_privilege: NULL in, NULL out
queue_is_own(varchar)|queue|null|the row security test of fetchq.queues and fetchq.jobs: NULL in, NULL (not own) out
stream_append(varchar,text,jsonb)|payload|ok|a message's payload may be NULL
stream_set_max_age(varchar,interval)|max_age|ok|NULL turns the maximum age off
stream_set_group_max_idle(varchar,interval)|max_idle|ok|NULL: groups never expire
EOF
)

psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<SQL
CREATE TABLE public.na_allowed (fn text, arg text, expected text, reason text);
CREATE TABLE public.fc_outcomes (fn text, arg text, outcome text, context text,
    detail text, hint text);
CREATE TABLE public.fc_pending (fn text, arg text, sql text);
SQL
printf '%s\n' "$allowed" | tr '|' '\t' |
    psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "COPY public.na_allowed FROM STDIN WITH (FORMAT text)"

# Each function with NULL in each argument (but those whose default is NULL,
# where NULL means "not given"), in a subtransaction rolled back after it.
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL'
DO $test$
DECLARE
    f record;
    a record;
    sql text;
    res text;
    outcome text;
    st text;
    msg text;
BEGIN
    FOR f IN
        SELECT p.oid, p.prokind, public.fc_sig(p.oid) AS sig
          FROM pg_proc p
         WHERE p.pronamespace = 'fetchq'::regnamespace AND p.pronargs > 0
           AND p.prokind IN ('f', 'p') AND p.prorettype <> 'trigger'::regtype
         ORDER BY 3
    LOOP
        FOR a IN SELECT * FROM public.fc_args(f.oid) WHERE mode <> 'o' AND NOT null_default LOOP
            sql := public.fc_call(f.oid, a.i, 'NULL');
            -- A procedure (doc_pick_wait) runs only in a top-level CALL.
            IF f.prokind = 'p' THEN
                INSERT INTO public.fc_pending VALUES (f.sig, a.name, sql);
                CONTINUE;
            END IF;
            BEGIN
                EXECUTE sql INTO res;
                outcome := CASE WHEN res IS NULL THEN 'null' ELSE 'ok' END;
                RAISE EXCEPTION USING ERRCODE = 'NA999';  -- undoes the call
            EXCEPTION
                WHEN SQLSTATE 'NA999' THEN NULL;
                WHEN OTHERS THEN
                    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
                    outcome := st || ' ' || msg;
            END;
            INSERT INTO public.fc_outcomes VALUES (f.sig, a.name, outcome);
        END LOOP;
    END LOOP;
END
$test$;
SQL
fc_run_top_level ""

total=$(q "SELECT count(*) FROM public.fc_outcomes")
functions=$(q "SELECT count(DISTINCT fn) FROM public.fc_outcomes")
check_has "the test called $functions functions with NULL in each argument ($total calls)" \
    "$functions" '^[1-9][0-9]+$'

# Each outcome against what is expected of it.
report=$(q "
SELECT o.fn || ' ' || o.arg || ': ' ||
       CASE WHEN a.expected IS NULL
            THEN CASE WHEN o.outcome = '22004 argument ' || o.arg || ' must not be null'
                      THEN 'ok' ELSE 'wanted 22004, got ' || o.outcome END
            WHEN a.expected IN ('ok', 'null')
            THEN CASE WHEN o.outcome = a.expected THEN 'ok'
                      ELSE 'wanted ' || a.expected || ' (' || a.reason || '), got ' || o.outcome END
            ELSE CASE WHEN o.outcome LIKE a.expected || ' %' THEN 'ok'
                      ELSE 'wanted ' || a.expected || ' (' || a.reason || '), got ' || o.outcome END
       END
  FROM public.fc_outcomes o
  LEFT JOIN public.na_allowed a ON a.fn = o.fn AND a.arg = o.arg
 ORDER BY 1")
while IFS= read -r line; do
    case "$line" in
    *": ok") ok "NULL in $line" ;;
    *) fail "NULL in $line" ;;
    esac
done <<<"$report"

# Every entry of the allow-list names a function's argument that was called.
stale=$(q "SELECT string_agg(a.fn || ' ' || a.arg, ', ') FROM public.na_allowed a
            WHERE NOT EXISTS (SELECT FROM public.fc_outcomes o WHERE o.fn = a.fn AND o.arg = a.arg)")
check "every allow-list entry names a function's argument" "$stale" ""

echo "failures: $failures"
[ "$failures" -eq 0 ]
