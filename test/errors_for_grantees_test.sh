#!/usr/bin/env bash
# Issue 31, point 1: what a role that holds queue grants only (USAGE on the
# schemas, nothing else) is told when it lacks a right. Every function of
# the API with a queue argument, read from pg_proc, answers it on a queue
# with grants it lacks, and on a queue without grants, with one message:
# 42501 permission denied for queue "q", DETAIL the privilege it lacks,
# HINT what the queue's owner would run; and on a missing queue with the
# same 42704 "queue does not exist". No error shows fetchq's own SQL in its
# CONTEXT; an error raised by a trigger on a queue table keeps its message.
# Env: PGHOST PGPORT PGUSER (a superuser) of a server with
# shared_preload_libraries = 'fetchq'; $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"
source "$(dirname "$0")/lib/function_calls.sh"

roles=(eg_pusher "eg_o'app" eg_tables eg_other)
drop_roles() {
    local r
    for r in "${roles[@]}"; do
        psql -X -q -d "$db" -v r="$r" >/dev/null 2>&1 <<<"DROP OWNED BY :\"r\" CASCADE" || true
        psql -X -q -d postgres -v r="$r" >/dev/null 2>&1 <<<"DROP ROLE IF EXISTS :\"r\"" || true
    done
}
cleanup() {
    q "DROP TABLE IF EXISTS public.fc_outcomes, public.fc_pending, public.eg_allowed" >/dev/null 2>&1 || true
    q "DROP FUNCTION IF EXISTS public.eg_boom()" >/dev/null 2>&1 || true
    fc_teardown
    drop_roles
}
trap cleanup EXIT
drop_roles

psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL'
CREATE ROLE eg_pusher LOGIN;
CREATE ROLE "eg_o'app" LOGIN;
CREATE ROLE eg_tables LOGIN;
CREATE ROLE eg_other;
GRANT USAGE ON SCHEMA fetchq, fetchq_data TO eg_pusher, "eg_o'app", eg_tables;
SELECT fetchq.queue_create('eg_orders');
SELECT fetchq.queue_create('eg_mail');
SELECT fetchq.queue_create('eg_plain');
SELECT fetchq.queue_create('eg_trg');
SELECT fetchq.queue_grant('eg_orders', 'eg_pusher', 'push');
SELECT fetchq.queue_grant('eg_orders', 'eg_o''app', 'push');
SELECT fetchq.queue_grant('eg_mail', 'eg_other', 'push');
SELECT fetchq.queue_grant('eg_trg', 'eg_pusher', 'push');
SELECT fetchq.doc_push('eg_mail', 'm1', '{}');
SELECT fetchq.doc_push('eg_plain', 'p1', '{}');
-- All-or-nothing with a grant short of what push needs.
GRANT INSERT ON fetchq_data.eg_plain__docs TO eg_tables;
-- The owner's trigger on a queue table, which refuses some documents.
CREATE FUNCTION public.eg_boom() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.subject LIKE 'bad%' THEN
        RAISE EXCEPTION 'eg_boom refuses %', NEW.subject USING DETAIL = 'from the trigger';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER eg_boom BEFORE INSERT ON fetchq_data.eg_trg__docs
    FOR EACH ROW EXECUTE FUNCTION public.eg_boom();
SQL

# as ROLE SQL: psql's report of the statement, verbose, with its context.
as() {
    PGOPTIONS="-c role=$1" psql -X -q -At -v VERBOSITY=verbose -v SHOW_CONTEXT=always \
        -d "$db" -c "$2" 2>&1 || true
}
# field NAME REPORT: the text after "NAME:  " (ERROR: without LOCATION).
field() { sed -n "s/^$1:  //p" <<<"$2" | head -1; }
# no_fetchq_sql DESCRIPTION REPORT: the report shows no SQL of fetchq's (in
# its CONTEXT, or as its internal QUERY); DETAIL and HINT may name tables.
no_fetchq_sql() {
    if grep -Ev '^(ERROR|DETAIL|HINT|LOCATION):  ' <<<"$2" |
        grep -Eq 'SQL statement|QUERY:|fetchq_data\.|fetchq\.queues|LINE [0-9]+:'; then
        fail "$1: no fetchq SQL in the report (got: $2)"
    else
        ok "$1: no fetchq SQL in the report"
    fi
}

echo "# the issue's calls, as a role with a push grant on eg_orders only"
out=$(as eg_pusher "SELECT fetchq.doc_push('eg_mail', 'x', '{}')")
check "doc_push into a queue with grants it lacks: 42501" "$(field ERROR "$out")" \
    '42501: permission denied for queue "eg_mail"'
check "... DETAIL: the privilege" "$(field DETAIL "$out")" \
    'Role "eg_pusher" lacks the push privilege on queue "eg_mail".'
check "... HINT: the grant its owner would run" "$(field HINT "$out")" \
    "The queue's owner, or a role with manage on it, may grant it: SELECT fetchq.queue_grant('eg_mail', 'eg_pusher', 'push');"
check "... no CONTEXT" "$(field CONTEXT "$out")" ""
no_fetchq_sql "doc_push into eg_mail" "$out"

missing_push=$(as eg_pusher "SELECT fetchq.doc_push('eg_nonexistent', 'x')")
missing_pick=$(as eg_pusher "SELECT fetchq.doc_pick('eg_nonexistent')")
check "doc_push into a missing queue: 42704" "$(field ERROR "$missing_push")" \
    '42704: queue "eg_nonexistent" does not exist'
check "... as doc_pick says" "$(field ERROR "$missing_pick")" "$(field ERROR "$missing_push")"
check "... with the same HINT" "$(field HINT "$missing_pick")" "$(field HINT "$missing_push")"
no_fetchq_sql "doc_push into a missing queue" "$missing_push"

out=$(as eg_pusher "SELECT * FROM fetchq.doc_pick('eg_mail')")
check "doc_pick on a queue with grants it lacks" "$(field ERROR "$out")" \
    '42501: permission denied for queue "eg_mail"'
check "... DETAIL: pick" "$(field DETAIL "$out")" 'Role "eg_pusher" lacks the pick privilege on queue "eg_mail".'
no_fetchq_sql "doc_pick on eg_mail" "$out"

for call in "fetchq.stats('eg_mail')" "fetchq.metric_get('eg_mail', 'cnt')" "fetchq.metric_get_common('eg_mail')"; do
    out=$(as eg_pusher "SELECT * FROM $call")
    check "$call: permission denied for queue" "$(field ERROR "$out")" '42501: permission denied for queue "eg_mail"'
    check "... DETAIL: read" "$(field DETAIL "$out")" 'Role "eg_pusher" lacks the read privilege on queue "eg_mail".'
    no_fetchq_sql "$call" "$out"
done

echo "# a queue without grants: the table privilege, in the same message"
out=$(as eg_pusher "SELECT fetchq.doc_push('eg_plain', 'x', '{}')")
check "doc_push into a queue without grants" "$(field ERROR "$out")" \
    '42501: permission denied for queue "eg_plain"'
check "... DETAIL: push, and the table privilege that stands for it" "$(field DETAIL "$out")" \
    'Role "eg_pusher" lacks the push privilege on queue "eg_plain": the queue has no grants of its own, so the privileges on its tables decide, and it lacks INSERT on table fetchq_data.eg_plain__docs.'
check_has "... HINT: the GRANT, or grants of its own" "$(field HINT "$out")" \
    "GRANT INSERT ON fetchq_data.eg_plain__docs TO eg_pusher; .*SELECT fetchq.queue_grant\('eg_plain', 'eg_pusher', 'push'\);"
out=$(as eg_pusher "SELECT * FROM fetchq.doc_pick('eg_plain')")
check "doc_pick on a queue without grants" "$(field ERROR "$out")" '42501: permission denied for queue "eg_plain"'
no_fetchq_sql "doc_pick on eg_plain" "$out"
out=$(as eg_pusher "SELECT * FROM fetchq.queue_set_max_attempts('eg_plain', 3)")
check "a setting of a queue without grants, by a role with no privilege on its tables" \
    "$(field ERROR "$out")" '42501: permission denied for queue "eg_plain"'
check_has "... DETAIL: manage" "$(field DETAIL "$out")" '^Role "eg_pusher" lacks the manage privilege on queue "eg_plain"'
# A privilege on a table short of what the call needs: PostgreSQL's refusal
# of the statement, without the statement.
out=$(as eg_tables "SELECT fetchq.doc_push('eg_plain', 'x', 0, 0, now(), '{}', now() + interval '1 hour')")
check_has "INSERT alone pushes, or is refused by PostgreSQL" "$out" '^1$|42501'
out=$(as eg_tables "SELECT fetchq.doc_push('eg_plain', 'y', '{}')")
check_has "a role short of the documented grants gets PostgreSQL's refusal" "$(field ERROR "$out")" \
    '^42501: permission denied for table'
check "... without fetchq's statement in its CONTEXT" "$(field CONTEXT "$out")" ""
no_fetchq_sql "a refused statement of fetchq" "$out"

echo "# the refusal of queue_grant names the refused role"
out=$(as eg_pusher "SELECT fetchq.queue_grant('eg_orders', 'eg_pusher', 'manage')")
check "queue_grant without manage: 42501" "$(field ERROR "$out")" \
    '42501: permission denied to grant privileges on queue "eg_orders"'
check "... HINT names the refused role, not current_user" "$(field HINT "$out")" \
    "The queue's owner may grant manage: SELECT fetchq.queue_grant('eg_orders', 'eg_pusher', 'manage');"
out=$(as "eg_o'app" "SELECT fetchq.queue_grant('eg_orders', 'eg_pusher', 'manage')")
check "... a role name with a quote is an SQL literal in the HINT" "$(field HINT "$out")" \
    "The queue's owner may grant manage: SELECT fetchq.queue_grant('eg_orders', 'eg_o''app', 'manage');"
out=$(as "eg_o'app" "SELECT fetchq.doc_push('eg_mail', 'x')")
check "... and in the HINT of a refused call" "$(field HINT "$out")" \
    "The queue's owner, or a role with manage on it, may grant it: SELECT fetchq.queue_grant('eg_mail', 'eg_o''app', 'push');"
# The hint, pasted by the owner, gives the role what it lacked.
psql -X -q -d "$db" -c "$(sed "s/^.*may grant it: //" <<<"$(field HINT "$out")")" >/dev/null 2>&1 || true
check "the HINT pasted by the owner lets the role push" "$(as "eg_o'app" "SELECT fetchq.doc_push('eg_mail', 'x')")" 1

echo "# a trigger's error keeps its message and its own context"
check "a document the trigger accepts" "$(as eg_pusher "SELECT fetchq.doc_push('eg_trg', 'good')")" 1
out=$(as eg_pusher "SELECT fetchq.doc_push('eg_trg', 'bad1')")
check "the trigger's message" "$(field ERROR "$out")" 'P0001: eg_boom refuses bad1'
check "the trigger's DETAIL" "$(field DETAIL "$out")" 'from the trigger'
check_has "the trigger's own context line" "$(field CONTEXT "$out")" '^PL/pgSQL function public.eg_boom\(\) line [0-9]+ at RAISE'
no_fetchq_sql "the trigger's error" "$out"
out=$(as eg_pusher "DO \$\$ BEGIN PERFORM fetchq.doc_push('eg_trg', 'bad2'); END \$\$")
check_has "inside the caller's function: the caller's lines stay" "$out" \
    'SQL statement "SELECT fetchq.doc_push\('"'"'eg_trg'"'"', '"'"'bad2'"'"'\)"'
check_has "... and no fetchq statement" "$(grep -c 'SQL statement' <<<"$out")" '^1$'

echo "# every function with a queue argument, as a role with no right on the queue"
fc_setup
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL'
-- queue_set_dead_letter: the role may push into the sample dead-letter
-- queue, so that the queue's own privilege is what it lacks.
SELECT fetchq.queue_grant('fc_dlq', 'eg_pusher', 'push');
CREATE TABLE public.fc_outcomes (fn text, arg text, outcome text, context text,
    detail text, hint text);
CREATE TABLE public.fc_pending (fn text, arg text, sql text);
GRANT ALL ON public.fc_outcomes, public.fc_pending TO PUBLIC;
SQL
# What the functions that answer otherwise say, and why (the queue name
# replaced by Q). function|queue kind (granted, plain, missing)|outcome
allowed=$(
    cat <<'EOF'
queue_grant|granted|42501 permission denied to grant privileges on queue "Q"|its own refusal, tested above
queue_grant|plain|42501 permission denied to grant privileges on queue "Q"|its own refusal, tested above
queue_revoke|granted|42501 permission denied to grant privileges on queue "Q"|queue_grant's refusal
queue_revoke|plain|42501 permission denied to grant privileges on queue "Q"|queue_grant's refusal
queue_has_privilege|granted|42501 permission denied to ask about another role's privileges on queue "Q"|asking about another role takes read
queue_has_privilege|plain|42501 permission denied to ask about another role's privileges on queue "Q"|asking about another role takes read
queue_has_privilege|missing|ok|false for a missing queue (docs/api.md)
queue_is_own|granted|ok|the row security test: false
queue_is_own|plain|ok|the row security test: false
queue_is_own|missing|ok|the row security test: false
queue_create|granted|42501 permission denied to create queue "Q"|creating a queue takes CREATE on schema fetchq_data (docs/install.md); an existing one is returned to a role that may read it
queue_create|plain|42501 permission denied to create queue "Q"|creating a queue takes CREATE on schema fetchq_data (docs/install.md); an existing one is returned to a role that may read it
queue_create|missing|42501 permission denied to create queue "Q"|creating a queue takes CREATE on schema fetchq_data (docs/install.md); an existing one is returned to a role that may read it
subscribe|granted|42501 permission denied to create a route from queue "fc_topic" to queue "Q"|a route's own refusal
subscribe|plain|42501 permission denied to create a route from queue "fc_topic" to queue "Q"|a route's own refusal
subscribe|missing|42501 permission denied to create queue "Q"|subscribe creates a missing queue, which takes CREATE on schema fetchq_data
unsubscribe|granted|42704 a route from queue "fc_topic" to queue "Q" does not exist|there is no such subscription
unsubscribe|plain|42704 a route from queue "fc_topic" to queue "Q" does not exist|there is no such subscription
unsubscribe|missing|42704 a route from queue "fc_topic" to queue "Q" does not exist|there is no such subscription
EOF
)
q "CREATE TABLE public.eg_allowed (fn text, kind text, outcome text, reason text)" >/dev/null
printf '%s\n' "$allowed" | tr '|' '\t' |
    psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "COPY public.eg_allowed FROM STDIN WITH (FORMAT text)"

for kind in granted:eg_mail plain:eg_plain missing:eg_missing; do
    queue=${kind#*:}
    PGOPTIONS="-c role=eg_pusher" psql -X -q -v ON_ERROR_STOP=1 -d "$db" -v queue="$queue" \
        -v kind="${kind%%:*}" >/dev/null <<'SQL'
SELECT set_config('eg.queue', :'queue', false), set_config('eg.kind', :'kind', false);
DO $test$
DECLARE
    f record;
    a record;
    sql text;
    res text;
    outcome text;
    st text;
    msg text;
    det text;
    hnt text;
    ctx text;
BEGIN
    FOR f IN
        SELECT p.oid, p.prokind, public.fc_sig(p.oid) AS sig
          FROM pg_proc p
         WHERE p.pronamespace = 'fetchq'::regnamespace AND p.prokind IN ('f', 'p')
           AND EXISTS (SELECT FROM public.fc_args(p.oid) WHERE name = 'queue' AND mode <> 'o')
         ORDER BY 3
    LOOP
        SELECT * INTO a FROM public.fc_args(f.oid) WHERE name = 'queue';
        sql := public.fc_call(f.oid, a.i, quote_literal(current_setting('eg.queue')));
        IF f.prokind = 'p' THEN
            INSERT INTO public.fc_pending VALUES (f.sig, current_setting('eg.kind'), sql);
            CONTINUE;
        END IF;
        det := NULL; hnt := NULL; ctx := NULL;
        BEGIN
            EXECUTE sql INTO res;
            outcome := 'ok';
            RAISE EXCEPTION USING ERRCODE = 'EG999';  -- undoes the call
        EXCEPTION
            WHEN SQLSTATE 'EG999' THEN NULL;
            WHEN OTHERS THEN
                GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                    det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT,
                    ctx = PG_EXCEPTION_CONTEXT;
                outcome := st || ' ' || msg;
                -- This block's own lines (its EXECUTE) are not fetchq's.
                ctx := nullif(split_part(ctx, 'SQL statement "SELECT CASE WHEN x IS NULL', 1), '');
        END;
        INSERT INTO public.fc_outcomes
            VALUES (f.sig, current_setting('eg.kind'), outcome, ctx, det, hnt);
    END LOOP;
END
$test$;
SQL
    fc_run_top_level eg_pusher
done

total=$(q "SELECT count(*) FROM public.fc_outcomes")
check_has "calls of the functions with a queue argument ($total)" "$total" '^[0-9]{3,}$'
report=$(q "
WITH o AS (
    SELECT o.*, split_part(o.fn, '(', 1) AS name,
           CASE o.arg WHEN 'granted' THEN 'eg_mail' WHEN 'plain' THEN 'eg_plain'
                      ELSE 'eg_missing' END AS queue,
           substring(o.detail FROM 'lacks the ([a-z]+) privilege') AS privilege
      FROM public.fc_outcomes o)
SELECT o.fn || ' on a ' || o.arg || ' queue: ' ||
       CASE WHEN a.outcome IS NOT NULL
            THEN CASE WHEN o.outcome = replace(a.outcome, '\"Q\"', '\"' || o.queue || '\"')
                      THEN 'ok' ELSE 'wanted ' || a.outcome || ' (' || a.reason || '), got ' || o.outcome END
            WHEN o.arg = 'missing'
            THEN CASE WHEN o.outcome = '42704 queue \"eg_missing\" does not exist'
                      THEN 'ok' ELSE 'wanted 42704 queue \"eg_missing\" does not exist, got ' || o.outcome END
            WHEN o.outcome <> '42501 permission denied for queue \"' || o.queue || '\"'
            THEN 'wanted 42501 permission denied for queue \"' || o.queue || '\", got ' || o.outcome
            WHEN o.privilege IS NULL OR o.detail NOT LIKE
                 'Role \"eg_pusher\" lacks the ' || o.privilege || ' privilege on queue \"' || o.queue || '\"%'
            THEN 'a DETAIL naming the privilege, got ' || coalesce(o.detail, 'none')
            WHEN o.hint NOT LIKE '%SELECT fetchq.queue_grant(''' || o.queue || ''', ''eg_pusher'', '''
                                  || o.privilege || ''');'
            THEN 'a HINT with the queue_grant call, got ' || coalesce(o.hint, 'none')
            ELSE 'ok'
       END
  FROM o LEFT JOIN public.eg_allowed a ON a.fn = o.name AND a.kind = o.arg
 ORDER BY 1")
while IFS= read -r line; do
    case "$line" in
    *": ok") ok "$line" ;;
    *) fail "$line" ;;
    esac
done <<<"$report"
check "no error of these calls shows fetchq's SQL in its CONTEXT" \
    "$(q "SELECT string_agg(fn || ' ' || arg || ': ' || context, '; ') FROM public.fc_outcomes
           WHERE context ~ 'SQL statement|fetchq_data\.|fetchq\.queues'")" ""
# The privilege each refusal names is the one docs/api.md's table gives the function.
api=$(dirname "$0")/../docs/api.md
while IFS='|' read -r name privilege; do
    row=$(grep -E "^\| \`$privilege\` \|" "$api" || true)
    if grep -Eq "\`$name\`|\`${name%_*}_\*\`" <<<"$row" ||
        { [ "$privilege" = push ] && grep -q "\`doc_push\` in all its forms" <<<"$row" && [ "$name" = doc_push ]; } ||
        { [ "$privilege" = manage ] && [[ $name == queue_set_* || $name == mnt_* ]]; }; then
        ok "$name needs $privilege, as docs/api.md says"
    else
        fail "$name needs $privilege, which docs/api.md's table of privileges does not say"
    fi
done < <(q "SELECT DISTINCT split_part(fn, '(', 1), substring(detail FROM 'lacks the ([a-z]+) privilege')
              FROM public.fc_outcomes WHERE detail ~ 'lacks the [a-z]+ privilege' ORDER BY 1")

echo "# queue_create of a queue that exists, by a role with read by a grant only"
q "GRANT USAGE ON SCHEMA fetchq, fetchq_data TO eg_other; SELECT fetchq.queue_grant('eg_mail', 'eg_other', 'read')" >/dev/null
check "it is returned, not created" "$(as eg_other "SELECT was_created, queue_id > 0 FROM fetchq.queue_create('eg_mail')")" "f|t"
check "queue_get_id answers it" "$(as eg_other "SELECT fetchq.queue_get_id('eg_mail') > 0")" t
check "a queue it cannot read is refused as one it would create" \
    "$(field ERROR "$(as eg_other "SELECT fetchq.queue_create('eg_plain')")")" '42501: permission denied to create queue "eg_plain"'

echo "failures: $failures"
[ "$failures" -eq 0 ]
