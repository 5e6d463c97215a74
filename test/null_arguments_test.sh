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

# The objects the sample values name.
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL'
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'na_role') THEN
        CREATE ROLE na_role;
    END IF;
END $$;
SELECT fetchq.queue_create('na_q');
SELECT fetchq.queue_create('na_dlq');
SELECT fetchq.topic_create('na_topic');
SELECT fetchq.stream_create('na_stream');
SELECT fetchq.doc_push('na_q', 'na_s', 0, 0, now() - interval '1 minute', '{}');
SQL

# A valid value of each argument, by argument name first, then by type
# (arguments of functions that another branch adds are here too: doc_send,
# doc_reply). A name that means different things in different functions is
# keyed by function and argument name.
sample_values=$(
    cat <<'EOF'
queue	varchar	'na_q'
subject	varchar	'na_s'
subjects	varchar[]	ARRAY['na_s']
payload	jsonb	'{}'
payloads	jsonb[]	ARRAY['{}'::jsonb]
version	int4	0
priority	int4	0
next_iteration	timestamptz	now()
expires_at	timestamptz	now() + interval '1 hour'
depends_on	jsonb	'[]'
depends_on	text[]	'{}'
depends_on	varchar[]	'{}'
reply_to	varchar	'na_dlq'
attempts	int4	1
limit	int4	1
offset	int4	0
offset	int8	0
duration	varchar	'5 minutes'
lock_duration	varchar	'5 minutes'
lock	interval	'5 minutes'
wait	interval	'0 seconds'
delay	interval	'1 second'
delay	varchar	'1 second'
message	varchar	'm'
details	jsonb	'{}'
ref_id	varchar	'r'
data	varchar	'(''na_t'', 0, ''{}'')'
metric	varchar	'cnt'
value	int4	1
whitelist	jsonb	'["cnt"]'
config	jsonb	'{}'
retention	varchar	'1 day'
retention	timestamptz	now() - interval '1 day'
role	name	'na_role'
role	regrole	'na_role'
privileges	text	'push'
privileges	text[]	ARRAY['push']
privilege	text	'push'
ttl	varchar	'1 day'
max_attempts	int4	3
completed	interval	'1 day'
killed	interval	'1 day'
dead_letter_queue	varchar	'na_dlq'
factor	float8	2
max_delay	interval	'1 minute'
jitter	float8	0
empty	bool	false
nowait	bool	false
session_bound	bool	false
waits_before	bool	false
id	int4	1
topic	varchar	'na_topic'
source	varchar	'na_topic'
destination	varchar	'na_q'
selector	text	'$.a == 1'
idle_timeout	interval	'1 hour'
subject_pattern	text	'na_%'
order	varchar	'DESC'
stream	varchar	'na_stream'
group_name	varchar	'na_group'
key	text	'k'
body	jsonb	'{}'
max_keys	int4	1
lease	interval	'30 seconds'
max_age	interval	'1 day'
table_name	varchar	'fetchq_data.na_q__metrics'
field_name	varchar	'created_at'
retain	varchar	'hour'
interval_start	timestamptz	now() - interval '30 days'
interval_end	timestamptz	now()
stream_create.name	varchar	'na_stream2'
stream_drop.name	varchar	'na_stream'
topic_create.name	varchar	'na_topic2'
EOF
)

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
EOF
)

# The table of sample values, the allow-list and the outcome of every call.
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<SQL
CREATE TABLE public.na_samples (arg text, typ regtype, val text);
CREATE TABLE public.na_allowed (fn text, arg text, expected text, reason text);
CREATE TABLE public.na_outcomes (fn text, arg text, outcome text);
CREATE TABLE public.na_calls (fn text, arg text, sql text);
SQL
printf '%s\n' "$sample_values" |
    psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "COPY public.na_samples FROM STDIN WITH (FORMAT text)"
printf '%s\n' "$allowed" | tr '|' '\t' |
    psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "COPY public.na_allowed FROM STDIN WITH (FORMAT text)"

psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL'
DO $test$
DECLARE
    f record;
    i int;
    k int;
    args text[];
    arg_names text[];
    arg_types oid[];
    modes "char"[];
    positions int[];
    sql text;
    res text;
    outcome text;
    st text;
    msg text;
    v text;
    short_name text;
BEGIN
    FOR f IN
        SELECT p.oid, p.proname, p.prokind, p.pronargs, p.proargnames, p.proargmodes,
               p.proallargtypes, p.proargtypes,
               p.proname || '(' || array_to_string(ARRAY(
                   SELECT CASE WHEN ty.typcategory = 'A' THEN el.typname || '[]'
                               ELSE ty.typname END
                     FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, n)
                     JOIN pg_type ty ON ty.oid = a.t
                     LEFT JOIN pg_type el ON el.oid = ty.typelem
                    ORDER BY a.n), ',') || ')' AS sig
          FROM pg_proc p
         WHERE p.pronamespace = 'fetchq'::regnamespace AND p.pronargs > 0
           AND p.prokind IN ('f', 'p')
           AND p.prorettype <> 'trigger'::regtype
         ORDER BY 1
    LOOP
        -- Every argument of the call: IN ones from proargtypes, and for a
        -- procedure also the OUT ones (CALL takes a placeholder for them).
        arg_names := '{}';
        arg_types := '{}';
        modes := '{}';
        positions := '{}';
        IF f.proallargtypes IS NULL THEN
            FOR k IN 1 .. f.pronargs LOOP
                arg_names := arg_names || f.proargnames[k];
                arg_types := arg_types || f.proargtypes[k - 1];
                modes := modes || 'i'::"char";
                positions := positions || k;
            END LOOP;
        ELSE
            FOR k IN 1 .. array_length(f.proallargtypes, 1) LOOP
                CONTINUE WHEN f.proargmodes[k] IN ('t')
                    OR (f.proargmodes[k] = 'o' AND f.prokind <> 'p');
                arg_names := arg_names || f.proargnames[k];
                arg_types := arg_types || f.proallargtypes[k];
                modes := modes || f.proargmodes[k];
                positions := positions || k;
            END LOOP;
        END IF;
        FOR i IN 1 .. array_length(arg_names, 1) LOOP
            CONTINUE WHEN modes[i] = 'o';
            -- An argument whose default is NULL: NULL means "not given".
            CONTINUE WHEN pg_get_function_arg_default(f.oid, positions[i]) ~* '^NULL\M';
            args := '{}';
            FOR k IN 1 .. array_length(arg_names, 1) LOOP
                IF k = i OR modes[k] = 'o' THEN
                    args := args || format('NULL::%s', format_type(arg_types[k], NULL));
                    CONTINUE;
                END IF;
                SELECT s.val INTO v FROM public.na_samples s
                 WHERE (s.arg = f.proname || '.' || arg_names[k] OR s.arg = arg_names[k])
                   AND s.typ = arg_types[k]
                 ORDER BY s.arg = arg_names[k]
                 LIMIT 1;
                IF v IS NULL THEN
                    RAISE EXCEPTION 'no sample value for argument % (%) of %', arg_names[k],
                        format_type(arg_types[k], NULL), f.sig;
                END IF;
                args := args || format('(%s)::%s', v, format_type(arg_types[k], NULL));
            END LOOP;
            IF f.prokind = 'p' THEN
                sql := format('CALL fetchq.%I(%s)', f.proname, array_to_string(args, ', '));
            ELSE
                sql := format('SELECT CASE WHEN x IS NULL THEN NULL ELSE x::text END'
                              ' FROM fetchq.%I(%s) AS x LIMIT 1',
                              f.proname, array_to_string(args, ', '));
            END IF;
            -- A procedure (doc_pick_wait) waits only when called by a
            -- top-level CALL: run by psql below.
            IF f.prokind = 'p' THEN
                INSERT INTO public.na_calls VALUES (f.sig, arg_names[i], sql);
                CONTINUE;
            END IF;
            BEGIN
                EXECUTE sql INTO res;
                outcome := CASE WHEN res IS NULL THEN 'null' ELSE 'ok' END;
                -- Undo what the call did.
                RAISE EXCEPTION USING ERRCODE = 'NA999';
            EXCEPTION
                WHEN SQLSTATE 'NA999' THEN NULL;
                WHEN OTHERS THEN
                    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
                    outcome := st || ' ' || msg;
            END;
            INSERT INTO public.na_outcomes VALUES (f.sig, arg_names[i], outcome);
        END LOOP;
    END LOOP;
END
$test$;
SQL

# The procedures' calls, each a top-level CALL of its own.
while IFS=$'\t' read -r fn arg sql; do
    out=$(psql -X -q -At -v VERBOSITY=verbose -d "$db" -c "$sql" 2>&1) && outcome=ok ||
        outcome=$(sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\): /\1 /p' <<<"$out" | head -1)
    outcome=${outcome:-$out}
    psql -X -q -v ON_ERROR_STOP=1 -d "$db" -v fn="$fn" -v arg="$arg" -v outcome="$outcome" \
        >/dev/null <<<"INSERT INTO public.na_outcomes VALUES (:'fn', :'arg', :'outcome')"
done < <(psql -X -q -At -F $'\t' -d "$db" -c "SELECT fn, arg, sql FROM public.na_calls")

total=$(q "SELECT count(*) FROM public.na_outcomes")
functions=$(q "SELECT count(DISTINCT fn) FROM public.na_outcomes")
check_has "the test called $functions functions with NULL in each argument ($total calls)" \
    "$functions" '^[1-9][0-9]+$'

# Each outcome against what is expected of it.
report=$(q "
SELECT o.fn || ' ' || o.arg || ': ' ||
       CASE WHEN a.expected IS NULL
            THEN CASE WHEN o.outcome = '22004 argument ' || o.arg || ' must not be null'
                      THEN 'ok' ELSE 'FAIL wanted 22004, got ' || o.outcome END
            WHEN a.expected IN ('ok', 'null')
            THEN CASE WHEN o.outcome = a.expected THEN 'ok'
                      ELSE 'FAIL wanted ' || a.expected || ' (' || a.reason || '), got ' || o.outcome END
            ELSE CASE WHEN o.outcome LIKE a.expected || ' %' THEN 'ok'
                      ELSE 'FAIL wanted ' || a.expected || ' (' || a.reason || '), got ' || o.outcome END
       END
  FROM public.na_outcomes o
  LEFT JOIN public.na_allowed a ON a.fn = o.fn AND a.arg = o.arg
 ORDER BY 1")
while IFS= read -r line; do
    case "$line" in
    *": ok") ok "NULL in $line" ;;
    *) fail "NULL in $line" ;;
    esac
done <<<"$report"

# Every entry of the allow-list names a function and argument that exist.
stale=$(q "SELECT string_agg(a.fn || ' ' || a.arg, ', ') FROM public.na_allowed a
            WHERE NOT EXISTS (SELECT FROM public.na_outcomes o WHERE o.fn = a.fn AND o.arg = a.arg)")
check "every allow-list entry names a function's argument" "$stale" ""

q "DROP TABLE public.na_samples, public.na_allowed, public.na_outcomes, public.na_calls" >/dev/null
q "DROP OWNED BY na_role" >/dev/null
q "SELECT fetchq.queue_drop('na_q'), fetchq.queue_drop('na_dlq')" >/dev/null || true
psql -X -q -d postgres -c "DROP ROLE IF EXISTS na_role" >/dev/null 2>&1 || true

echo "failures: $failures"
[ "$failures" -eq 0 ]
