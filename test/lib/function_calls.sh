# Calls of every function of schema fetchq, built from pg_proc, for the tests
# that hold each function to a rule (test/null_arguments_test.sh,
# test/errors_for_grantees_test.sh). Sourced after test/lib/checks.sh.
#
# fc_setup creates, in $db:
# - public.fc_samples: a valid value of each argument, by argument name and
#   type, or by function and argument name where a name means different
#   things in different functions;
# - public.fc_args(f): the arguments a call of f takes, in order: IN ones,
#   and for a procedure its OUT ones too (CALL takes a placeholder);
# - public.fc_call(f, i, value): the text of a call of f (a SELECT of its
#   result as text, NULL when it returned NULL or no row; a CALL for a
#   procedure) with `value` (SQL text) as its i-th argument and samples in
#   the others;
# - public.fc_sig(f): its name and argument types, e.g. doc_push(varchar,varchar).
# Objects the samples name: queues fc_q, fc_dlq, topic fc_topic, stream
# fc_stream, role fc_role and a pending document fc_s in fc_q.
# fc_teardown drops them.

# Arguments of functions that other branches add are here too (doc_send,
# doc_reply: queue, subject, payload, version, priority, next_iteration,
# expires_at, depends_on, reply_to, if_finished, flow_key; doc_cancel:
# reason). A
# function with an argument that has no sample here fails the tests with
# "no sample value for argument ...": add one.
fc_sample_values=$(
    cat <<'EOF'
queue	varchar	'fc_q'
subject	varchar	'fc_s'
subjects	varchar[]	ARRAY['fc_s']
payload	jsonb	'{}'
payloads	jsonb[]	ARRAY['{}'::jsonb]
version	int4	0
priority	int4	0
next_iteration	timestamptz	now()
expires_at	timestamptz	now() + interval '1 hour'
depends_on	jsonb	'[]'
depends_on	text[]	'{}'
depends_on	varchar[]	'{}'
depends_on	jsonb[]	'{}'
depends_on	fetchq.doc_ref[]	'{}'
if_finished	text	'skip'
if_finished	varchar	'skip'
reason	text	'r'
reason	varchar	'r'
reply_to	varchar	'fc_dlq'
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
data	varchar	'(''fc_t'', 0, ''{}'', {DATA})'
metric	varchar	'cnt'
value	int4	1
whitelist	jsonb	'["cnt"]'
config	jsonb	'{}'
retention	varchar	'1 day'
retention	timestamptz	now() - interval '1 day'
queue_set_metrics_retention.retention	varchar	'[{"from": "30 days", "to": "1 day", "retain": "hour"}]'
role	name	'fc_role'
role	regrole	'fc_role'
privileges	text	'push'
privileges	text[]	ARRAY['push']
privilege	text	'push'
ttl	varchar	'1 day'
max_attempts	int4	3
completed	interval	'1 day'
killed	interval	'1 day'
dead_letter_queue	varchar	'fc_dlq'
factor	float8	2
max_delay	interval	'1 minute'
jitter	float8	0
empty	bool	false
nowait	bool	false
session_bound	bool	false
waits_before	bool	false
id	int4	1
topic	varchar	'fc_topic'
source	varchar	'fc_topic'
destination	varchar	'fc_q'
selector	text	'$.a == 1'
idle_timeout	interval	'1 hour'
subject_pattern	text	'fc_%'
order	varchar	'DESC'
stream	varchar	'fc_stream'
group_name	varchar	'fc_group'
key	text	'k'
body	jsonb	'{}'
max_keys	int4	1
lease	interval	'30 seconds'
max_age	interval	'1 day'
table_name	varchar	'fetchq_data.fc_q__metrics'
field_name	varchar	'created_at'
retain	varchar	'hour'
interval_start	timestamptz	now() - interval '30 days'
interval_end	timestamptz	now()
queue_set_counters.mode	text	'exact'
stream_create.name	varchar	'fc_stream2'
stream_drop.name	varchar	'fc_stream'
topic_create.name	varchar	'fc_topic2'
depends_on	fetchq.doc_ref[]	'{}'
subject	text	'fc-{tick}'
every	text	'1 hour'
catch_up	text	'none'
timezone	text	'UTC'
expires_after	interval	'1 hour'
max_idle	interval	'1 hour'
schedule_create.name	varchar	'fc_sched'
schedule_drop.name	varchar	'fc_sched'
schedule_pause.name	varchar	'fc_sched'
schedule_resume.name	varchar	'fc_sched'
flow_key	text	'fc_key'
max_active	int4	2
key_max_active	int4	1
key_rate	int4	5
key_burst	int4	1
key_rate_interval	interval	'1 second'
fair	bool	false
destination	text	'fc_link/fc_q'
remote_subscribe.name	varchar	'fc_link'
remote_unsubscribe.name	varchar	'fc_link'
conninfo	text	'host=/nonexistent dbname=fc'
as_role	regrole	'fc_role'
create_slot	bool	false
drop_slot	bool	false
EOF
)

fc_setup() {
    psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL'
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'fc_role') THEN
        CREATE ROLE fc_role;
    END IF;
END $$;
SELECT fetchq.queue_create('fc_q');
SELECT fetchq.queue_create('fc_dlq');
SELECT fetchq.topic_create('fc_topic');
SELECT fetchq.stream_create('fc_stream');
SELECT fetchq.doc_push('fc_q', 'fc_s', 0, 0, now() - interval '1 minute', '{}');
CREATE TABLE public.fc_samples (arg text, typ regtype, val text);
GRANT SELECT ON public.fc_samples TO PUBLIC;

CREATE FUNCTION public.fc_sig(f oid) RETURNS text LANGUAGE sql STABLE AS $f$
    SELECT p.proname || '(' || array_to_string(ARRAY(
               SELECT CASE WHEN ty.typcategory = 'A' THEN el.typname || '[]' ELSE ty.typname END
                 FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, n)
                 JOIN pg_type ty ON ty.oid = a.t
                 LEFT JOIN pg_type el ON el.oid = ty.typelem
                ORDER BY a.n), ',') || ')'
      FROM pg_proc p WHERE p.oid = f
$f$;

CREATE FUNCTION public.fc_args(f oid)
RETURNS TABLE(i int, name text, typ oid, mode "char", null_default boolean)
LANGUAGE sql STABLE AS $f$
    SELECT row_number() OVER (ORDER BY a.n)::int, p.proargnames[a.n], a.t,
           coalesce(p.proargmodes[a.n], 'i'),
           coalesce(pg_get_function_arg_default(p.oid, a.n::int) ~* '^NULL\M', false)
      FROM pg_proc p,
           unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) WITH ORDINALITY AS a(t, n)
     WHERE p.oid = f
       AND coalesce(p.proargmodes[a.n], 'i') IN ('i', 'b', 'o')
       AND (coalesce(p.proargmodes[a.n], 'i') <> 'o' OR p.prokind = 'p')
     ORDER BY a.n
$f$;

CREATE FUNCTION public.fc_call(f oid, which int, value text) RETURNS text
LANGUAGE plpgsql STABLE AS $f$
DECLARE
    a record;
    args text[] := '{}';
    v text;
    p record;
BEGIN
    SELECT proname, prokind INTO p FROM pg_proc WHERE oid = f;
    FOR a IN SELECT * FROM public.fc_args(f) LOOP
        IF a.i = which THEN
            args := args || format('(%s)::%s', value, format_type(a.typ, NULL));
            CONTINUE;
        END IF;
        IF a.mode = 'o' THEN
            args := args || format('NULL::%s', format_type(a.typ, NULL));
            CONTINUE;
        END IF;
        SELECT s.val INTO v FROM public.fc_samples s
         WHERE (s.arg = p.proname || '.' || a.name OR s.arg = a.name) AND s.typ = a.typ
         ORDER BY s.arg = a.name
         LIMIT 1;
        IF v IS NULL THEN
            RAISE EXCEPTION 'no sample value for argument % (%) of %', a.name,
                format_type(a.typ, NULL), public.fc_sig(f);
        END IF;
        args := args || format('(%s)::%s', v, format_type(a.typ, NULL));
    END LOOP;
    IF p.prokind = 'p' THEN
        RETURN format('CALL fetchq.%I(%s)', p.proname, array_to_string(args, ', '));
    END IF;
    RETURN format('SELECT CASE WHEN x IS NULL THEN NULL ELSE x::text END'
                  ' FROM fetchq.%I(%s) AS x LIMIT 1', p.proname, array_to_string(args, ', '));
END
$f$;
SQL
    printf '%s\n' "$fc_sample_values" |
        psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "COPY public.fc_samples FROM STDIN WITH (FORMAT text)"
}

# fc_run_top_level ROLE: runs each CALL of public.fc_pending(fn, arg, sql)
# (procedures, which need a top-level CALL) as ROLE (empty: the test's user)
# and records its outcome ("ok", or "SQLSTATE message"), CONTEXT, DETAIL and
# HINT in public.fc_outcomes(fn, arg, outcome, context, detail, hint).
fc_run_top_level() {
    local role=$1 fn arg sql out outcome
    while IFS=$'\t' read -r fn arg sql; do
        out=$(PGOPTIONS="${role:+-c role=$role}" psql -X -q -At -v VERBOSITY=verbose \
            -v SHOW_CONTEXT=always -d "$db" -c "$sql" 2>&1) && outcome=ok ||
            outcome=$(sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\): /\1 /p' <<<"$out" | head -1)
        outcome=${outcome:-$out}
        psql -X -q -v ON_ERROR_STOP=1 -d "$db" -v fn="$fn" -v arg="$arg" -v outcome="$outcome" \
            -v context="$(sed -n 's/^CONTEXT:  //p' <<<"$out")" \
            -v detail="$(sed -n 's/^DETAIL:  //p' <<<"$out")" \
            -v hint="$(sed -n 's/^HINT:  //p' <<<"$out")" >/dev/null \
            <<<"INSERT INTO public.fc_outcomes VALUES (:'fn', :'arg', :'outcome',
                NULLIF(:'context', ''), NULLIF(:'detail', ''), NULLIF(:'hint', ''))"
    done < <(psql -X -q -At -F $'\t' -d "$db" -c "SELECT fn, arg, sql FROM public.fc_pending")
    q "DELETE FROM public.fc_pending" >/dev/null
}

fc_teardown() {
    psql -X -q -d "$db" >/dev/null 2>&1 <<'SQL' || true
DROP FUNCTION IF EXISTS public.fc_call(oid, int, text), public.fc_args(oid), public.fc_sig(oid);
DROP TABLE IF EXISTS public.fc_samples;
SELECT fetchq.queue_drop(q) FROM unnest(ARRAY['fc_q', 'fc_dlq', 'fc_topic']) AS q;
SELECT fetchq.stream_drop('fc_stream');
DROP OWNED BY fc_role;
SQL
    psql -X -q -d postgres -c "DROP ROLE IF EXISTS fc_role" >/dev/null 2>&1 || true
}
