#!/usr/bin/env bash
# Flow limits (issue 35): doc_send's flow_key, queue_set_limits,
# queue_set_key_limits, queue_drop_key_limits; max_active and key_max_active
# enforced by doc_pick and doc_take, exact under 16 concurrent clients (every
# pick and outcome recorded with its time, every moment checked); no
# head-of-line blocking behind 100,000 held-back documents; a slot freed by
# every outcome and by the orphan re-queue; bad input; privileges; the
# unbuilt limits (key_rate, key_burst, fair) refused.
# Env: PGHOST PGPORT PGUSER (a superuser); $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

err() {
    local out
    out=$(psql -X -q -At -d "$db" -c '\set VERBOSITY verbose' -c "$1" 2>&1 |
        sed -n 's/^ERROR:  \([0-9A-Z]*\): \(.*\)$/\1 \2/p' | head -1 || true)
    echo "${out:-no error}"
}

# --- the key ---------------------------------------------------------------
q "SELECT fetchq.queue_create('fk'), fetchq.queue_create('fk_copy')" >/dev/null
q "SELECT fetchq.route_create('fk', 'fk_copy')" >/dev/null
check "doc_send with a flow_key" "$(q "SELECT fetchq.doc_send('fk', 'a', flow_key => 'tenant1')")" 1
check "stored in the queue's last column" \
    "$(q "SELECT flow_key FROM fetchq_data.fk__docs WHERE subject = 'a'")" tenant1
check "flow_key is the last column of a documents table" \
    "$(q "SELECT attname FROM pg_attribute WHERE attrelid = 'fetchq_data.fk__docs'::regclass
          AND attnum > 0 AND NOT attisdropped ORDER BY attnum DESC LIMIT 1")" flow_key
check "a route's copy keeps the key" \
    "$(q "SELECT flow_key FROM fetchq_data.fk_copy__docs WHERE subject = 'a'")" tenant1
q "SELECT fetchq.doc_push('fk', 'b', 0, 0, now(), '{}')" >/dev/null
check "a Fetchq 4 push has no key" \
    "$(q "SELECT flow_key IS NULL FROM fetchq_data.fk__docs WHERE subject = 'b'")" t
check "doc_peek returns the key last" "$(q "SELECT flow_key FROM fetchq.doc_peek('fk', 'a')")" tenant1
check "doc_take returns the key last" \
    "$(q "SELECT flow_key FROM fetchq.doc_take('fk', 'a', '1 minute')")" tenant1
check "doc_pick keeps Fetchq 4's ten columns" \
    "$(q "SELECT count(*) FROM pg_proc p, unnest(p.proargmodes) m
          WHERE p.oid = 'fetchq.doc_pick(varchar, integer, integer, varchar)'::regprocedure
            AND m = 't'")" 10
q "SELECT fetchq.doc_send('fk', 'w', flow_key => 'tenant9')" >/dev/null
check "doc_pick_wait's documents carry the key" \
    "$(psql -X -q -At -d "$db" -c "CALL fetchq.doc_pick_wait('fk', 0, 5, '1 minute', '0 seconds', NULL)" |
        grep -c tenant9)" 1
check_has "an empty flow_key: 22023" "$(err "SELECT fetchq.doc_send('fk', 'e', flow_key => '')")" '^22023'
check "requeue with if_finished sets the new key" \
    "$(q "SELECT fetchq.doc_complete('fk', 'a'); SELECT fetchq.doc_send('fk', 'a', if_finished => 'requeue', flow_key => 'tenant2');
          SELECT flow_key FROM fetchq_data.fk__docs WHERE subject = 'a'" | tail -1)" tenant2

# --- bad input -------------------------------------------------------------
q "SELECT fetchq.queue_create('fl')" >/dev/null
check_has "max_active 0: 22023" "$(err "SELECT fetchq.queue_set_limits('fl', max_active => 0)")" '^22023'
check_has "key_max_active -1: 22023" "$(err "SELECT fetchq.queue_set_limits('fl', key_max_active => -1)")" '^22023'
check_has "key_rate 0: 22023" "$(err "SELECT fetchq.queue_set_limits('fl', key_rate => 0)")" '^22023'
check_has "key_burst 0: 22023" "$(err "SELECT fetchq.queue_set_limits('fl', key_rate => 1, key_burst => 0)")" '^22023'
check_has "a key's key_rate 0: 22023" "$(err "SELECT fetchq.queue_set_key_limits('fl', 'k', key_rate => 0)")" '^22023'
check_has "a rate interval under 1 ms: 22023" \
    "$(err "SELECT fetchq.queue_set_limits('fl', key_rate => 5, key_rate_interval => '0.5 ms')")" '^22023'
check_has "a NULL rate interval: 22023" \
    "$(err "SELECT fetchq.queue_set_limits('fl', key_max_active => 1, key_rate_interval => NULL)")" '^22'
check_has "key limits: key_max_active 0: 22023" \
    "$(err "SELECT fetchq.queue_set_key_limits('fl', 'k', key_max_active => 0)")" '^22023'
check_has "key limits: empty key: 22023" \
    "$(err "SELECT fetchq.queue_set_key_limits('fl', '', key_max_active => 2)")" '^22023'
missing_set=$(err "SELECT fetchq.queue_set_max_attempts('nope', 3)")
check "limits on a missing queue: as queue_set_max_attempts reports it" \
    "$(err "SELECT fetchq.queue_set_limits('nope', max_active => 3)" | cut -c1-5)" "${missing_set:0:5}"
check "key limits on a missing queue: the same" \
    "$(err "SELECT fetchq.queue_set_key_limits('nope', 'k', 3)" | cut -c1-5)" "${missing_set:0:5}"
check "drop key limits on a missing queue: the same" \
    "$(err "SELECT fetchq.queue_drop_key_limits('nope', 'k')" | cut -c1-5)" "${missing_set:0:5}"
# not built yet: refused, never accepted silently
check_has "key_burst without key_rate: 22023" "$(err "SELECT fetchq.queue_set_limits('fl', key_burst => 10)")" '^22023'
check "nothing was changed by the refusals" \
    "$(q "SELECT (SELECT count(*) FROM fetchq.flow_limits) + (SELECT count(*) FROM fetchq.flow_key_limits)")" 0

# --- privileges ------------------------------------------------------------
q "DROP ROLE IF EXISTS fl_worker; CREATE ROLE fl_worker LOGIN" >/dev/null
q "GRANT USAGE ON SCHEMA fetchq TO fl_worker" >/dev/null
q "SELECT fetchq.queue_grant('fl', 'fl_worker', 'pick')" >/dev/null
check_has "a role without manage cannot set limits" \
    "$(PGUSER=fl_worker err "SELECT fetchq.queue_set_limits('fl', max_active => 1)")" '^42501'
check_has "nor a key's limits" \
    "$(PGUSER=fl_worker err "SELECT fetchq.queue_set_key_limits('fl', 'k', 1)")" '^42501'
check_has "nor drop them" \
    "$(PGUSER=fl_worker err "SELECT fetchq.queue_drop_key_limits('fl', 'k')")" '^42501'
q "SELECT fetchq.queue_grant('fl', 'fl_worker', 'manage')" >/dev/null
check "a role with manage sets them" \
    "$(PGUSER=fl_worker psql -X -q -At -d "$db" -c "SELECT fetchq.queue_set_limits('fl', max_active => 2)")" 1
check "recorded as set by it" "$(q "SELECT set_by FROM fetchq.flow_limits WHERE queue = 'fl'")" fl_worker
check "all NULL removes the limits" "$(q "SELECT fetchq.queue_set_limits('fl')")" 1
check "gone" "$(q "SELECT count(*) FROM fetchq.flow_limits")" 0
check_has "no role but the catalog's owner writes the tables" \
    "$(PGUSER=fl_worker err "INSERT INTO fetchq.flow_limits (queue, set_by) VALUES ('fl', 'fl_worker')")" '^42501'

# --- max_active ------------------------------------------------------------
picked() { q "SELECT coalesce(string_agg(subject, ',' ORDER BY subject), '-') FROM fetchq.doc_pick('$1', 0, $2, '5 minutes')"; }
q "SELECT fetchq.queue_create('cap')" >/dev/null
q "SELECT fetchq.doc_send('cap', 'd' || i) FROM generate_series(1, 9) AS i" >/dev/null
q "SELECT fetchq.queue_set_limits('cap', max_active => 2)" >/dev/null
check "max_active 2: a pick of 5 takes 2" "$(picked cap 5)" d1,d2
check "then none while 2 are active" "$(picked cap 5)" -
check "doc_take of a third: no row, held back" "$(q "SELECT count(*) FROM fetchq.doc_take('cap', 'd3', '1 minute')")" 0
check "and it stays pending" "$(q "SELECT status FROM fetchq_data.cap__docs WHERE subject = 'd3'")" 1
q "SELECT fetchq.doc_complete('cap', 'd1')" >/dev/null
check "a completion frees one slot" "$(picked cap 5)" d3
npicked() { q "SELECT count(*) FROM fetchq.doc_pick('$1', 0, $2, '5 minutes')"; }
active() { q "SELECT count(*) FROM fetchq_data.$1__docs WHERE status = 2"; }
q "SELECT fetchq.doc_reject('cap', 'd2', 'no', '{}')" >/dev/null
check "a rejection frees one" "$(npicked cap 5)" 1
q "SELECT fetchq.doc_kill('cap', subject) FROM fetchq_data.cap__docs WHERE status = 2 LIMIT 1" >/dev/null
check "a kill frees one" "$(npicked cap 5)" 1
q "SELECT fetchq.doc_drop('cap', subject) FROM fetchq_data.cap__docs WHERE status = 2 LIMIT 1" >/dev/null
check "a drop frees one" "$(npicked cap 5)" 1
q "SELECT fetchq.doc_reschedule('cap', subject, now() + interval '1 hour') FROM fetchq_data.cap__docs WHERE status = 2 LIMIT 1" >/dev/null
q "SELECT fetchq.doc_send('cap', 'd6'), fetchq.doc_send('cap', 'd7')" >/dev/null
check "a reschedule frees one" "$(npicked cap 5)" 1
check "never more than 2 active" "$(active cap)" 2

# Limits set by another session reach a session that cached "no limits"
# (the per-backend cache is emptied by the change's commit).
q "SELECT fetchq.queue_create('cache')" >/dev/null
q "SELECT fetchq.doc_send('cache', 'c' || i) FROM generate_series(1, 6) AS i" >/dev/null
check "a session that picked without limits obeys limits set meanwhile by another" \
    "$(psql -X -q -At -d "$db" -c "SELECT count(*) FROM fetchq.doc_pick('cache', 0, 1, '5m')" \
        -c "\\! psql -X -q -At -d $db -c \"SELECT fetchq.queue_set_limits('cache', max_active => 2)\" >/dev/null" \
        -c "SELECT count(*) FROM fetchq.doc_pick('cache', 0, 5, '5m')" | paste -sd, -)" 1,1
check "dropping a queue drops its limits" \
    "$(q "SELECT fetchq.queue_set_key_limits('cache', 'k', 1); SELECT was_dropped FROM fetchq.queue_drop('cache');
          SELECT (SELECT count(*) FROM fetchq.flow_limits WHERE queue = 'cache') + (SELECT count(*) FROM fetchq.flow_key_limits WHERE queue = 'cache')" | tail -1)" 0

# --- key_max_active --------------------------------------------------------
q "SELECT fetchq.queue_create('kc')" >/dev/null
q "SELECT fetchq.queue_set_limits('kc', key_max_active => 1)" >/dev/null
q "SELECT fetchq.doc_send('kc', 'a' || i, next_iteration => now() - interval '1 minute' + i * interval '1 second', flow_key => 'A')
   FROM generate_series(1, 3) AS i" >/dev/null
q "SELECT fetchq.doc_send('kc', 'b1', next_iteration => now() - interval '30 seconds', flow_key => 'B'),
          fetchq.doc_send('kc', 'n1', next_iteration => now() - interval '20 seconds'),
          fetchq.doc_send('kc', 'n2', next_iteration => now() - interval '10 seconds')" >/dev/null
check "key_max_active 1: one of each key, and every document without a key" "$(picked kc 10)" a1,b1,n1,n2
check "then nothing" "$(picked kc 10)" -
check "doc_take of a held-back document: no row" "$(q "SELECT count(*) FROM fetchq.doc_take('kc', 'a3', '1 minute')")" 0
check "doc_take with nowait: no row" "$(q "SELECT count(*) FROM fetchq.doc_take('kc', 'a3', '1 minute', true)")" 0
q "SELECT fetchq.doc_complete('kc', 'a1')" >/dev/null
check "a key's documents one at a time, in pick order (FIFO)" "$(picked kc 10)" a2
q "SELECT fetchq.queue_set_key_limits('kc', 'A', 2)" >/dev/null
check "a key's own cap (a tier)" "$(picked kc 10)" a3
q "SELECT fetchq.queue_drop_key_limits('kc', 'A')" >/dev/null
q "SELECT fetchq.doc_send('kc', 'a4', flow_key => 'A')" >/dev/null
q "SELECT fetchq.doc_complete('kc', 'a2')" >/dev/null
check "dropped: the queue's cap again (a3 still active)" "$(picked kc 10)" -
q "SELECT fetchq.doc_complete('kc', 'a3')" >/dev/null
check "and a4 once a3 is done" "$(picked kc 10)" a4

# --- orphans free their slot ------------------------------------------------
q "SELECT fetchq.queue_create('ko')" >/dev/null
q "SELECT fetchq.queue_set_limits('ko', key_max_active => 1)" >/dev/null
q "SELECT fetchq.doc_send('ko', 'o1', next_iteration => now() - interval '1 minute', flow_key => 'K'),
          fetchq.doc_send('ko', 'o2', flow_key => 'K')" >/dev/null
check "picked with a short lock" "$(q "SELECT subject FROM fetchq.doc_pick('ko', 0, 5, '1 second')")" o1
check "the key is full" "$(picked ko 5)" -
wait_for "the orphan is re-queued by the scheduler" 60 \
    "SELECT status FROM fetchq_data.ko__docs WHERE subject = 'o1'" 1
check "its slot is free again" "$(npicked ko 5)" 1

# --- a waiting pick wakes when a slot frees ----------------------------------------
q "SELECT fetchq.queue_create('kw')" >/dev/null
q "SELECT fetchq.queue_set_limits('kw', key_max_active => 1)" >/dev/null
q "SELECT fetchq.doc_send('kw', 'w1', next_iteration => now() - interval '1 minute', flow_key => 'W'),
          fetchq.doc_send('kw', 'w2', flow_key => 'W')" >/dev/null
check "w1 picked, w2 held back" "$(picked kw 5)" w1
wait_out=$(mktemp)
PGAPPNAME=fl_waiter psql -X -q -At -d "$db" \
    -c "CALL fetchq.doc_pick_wait('kw', 0, 1, '1 minute', '60 seconds', NULL)" >"$wait_out" 2>&1 &
waiter=$!
wait_for "doc_pick_wait sleeps: the key is full" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'fl_waiter' AND wait_event_type = 'Extension'" 1
q "SELECT fetchq.doc_complete('kw', 'w1')" >/dev/null
wait_for "the completion that frees the key's slot wakes it (not its 60 s timeout)" 20 \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'fl_waiter'" 0
wait "$waiter" || true
check_has "... and it took w2" "$(cat "$wait_out")" '"subject": "w2"'
rm -f "$wait_out"

# --- no head-of-line blocking -----------------------------------------------
q "SELECT fetchq.queue_create('hol')" >/dev/null
q "SELECT fetchq.queue_set_limits('hol', key_max_active => 1)" >/dev/null
q "INSERT INTO fetchq_data.hol__docs (subject, version, priority, status, next_iteration, created_at, payload, flow_key)
   SELECT 'big' || i, 0, 0, 1, now() - interval '1 hour' + i * interval '1 millisecond', now(), '{}', 'big'
   FROM generate_series(1, 100000) AS i" >/dev/null
q "SELECT fetchq.doc_send('hol', 'small', flow_key => 'small')" >/dev/null
q "ANALYZE fetchq_data.hol__docs" >/dev/null
check "the big key's first document is picked" "$(picked hol 1)" big1
hol=$(q "CREATE TEMP TABLE r AS SELECT sum(pg_stat_get_xact_tuples_returned(indexrelid)) AS n FROM pg_index WHERE indrelid = 'fetchq_data.hol__docs'::regclass;
         CREATE TEMP TABLE t AS SELECT clock_timestamp() AS at;
         CREATE TEMP TABLE p AS SELECT subject FROM fetchq.doc_pick('hol', 0, 1, '5 minutes');
         SELECT (SELECT string_agg(subject, ',') FROM p),
                (SELECT sum(pg_stat_get_xact_tuples_returned(indexrelid)) FROM pg_index WHERE indrelid = 'fetchq_data.hol__docs'::regclass) - (SELECT n FROM r) < 1000,
                extract(epoch FROM clock_timestamp() - (SELECT at FROM t)) * 1000 < 300" | tail -1)
check "behind 100,000 held-back documents of a capped key, another key's document is picked, reading under 1000 index entries, in under 300 ms" \
    "$hol" "small|t|t"
check "stats: held_back counts the capped key's ready documents" \
    "$(q "SELECT fetchq.doc_send('hol', 'small2', flow_key => 'small'); SELECT held_back FROM fetchq.stats WHERE queue = 'hol'" | tail -1)" 100000

# --- key_rate: a token bucket per key -----------------------------------------
q "SELECT fetchq.queue_create('rt')" >/dev/null
q "SELECT fetchq.queue_set_limits('rt', key_rate => 2, key_rate_interval => '20 seconds')" >/dev/null
q "SELECT fetchq.doc_send('rt', 'r' || i, next_iteration => now() - interval '1 minute' + i * interval '1 second', flow_key => 'R')
   FROM generate_series(1, 5) AS i" >/dev/null
q "SELECT fetchq.doc_send('rt', 's1', flow_key => 'S')" >/dev/null
check "key_rate 2 per 20 s, no burst: one of the key's documents now (the next in 10 s), and the other key's" \
    "$(picked rt 10)" r1,s1
check "then none of it" "$(picked rt 10)" -
check "doc_take of the key's next: no row" "$(q "SELECT count(*) FROM fetchq.doc_take('rt', 'r2', '1 minute')")" 0
check "a completion frees no token" "$(q "SELECT fetchq.doc_complete('rt', 'r1')"; picked rt 10)" "1
-"
q "SELECT fetchq.queue_create('rb')" >/dev/null
q "SELECT fetchq.queue_set_limits('rb', key_rate => 1, key_rate_interval => '1 hour', key_burst => 2)" >/dev/null
q "SELECT fetchq.doc_send('rb', 'b' || i, next_iteration => now() - interval '1 minute' + i * interval '1 second', flow_key => 'B')
   FROM generate_series(1, 6) AS i" >/dev/null
check "key_burst 2: a quiet key takes 3 at once" "$(picked rb 10)" b1,b2,b3
check "then none" "$(picked rb 10)" -
q "SELECT fetchq.queue_set_key_limits('rb', 'B', key_rate => 3600)" >/dev/null
check "a key's own rate starts its bucket afresh: the burst again" "$(npicked rb 10)" 3
check "rate limits seen in the catalog" \
    "$(q "SELECT key_rate || '/' || key_rate_interval || '/' || key_burst FROM fetchq.flow_limits WHERE queue = 'rb'")" "1/01:00:00/2"

# --- seen: fetchq.flow_keys, fetchq.stats.held_back ---------------------------------
check "flow_keys: a key at its rate: ready, held back, no whole token" \
    "$(q "SELECT ready || '|' || held_back || '|' || (tokens < 1) FROM fetchq.flow_keys WHERE queue = 'rt' AND flow_key = 'R'")" "4|4|true"
check "flow_keys: a key with nothing ready holds nothing back (its token spent)" \
    "$(q "SELECT active || '|' || held_back || '|' || (tokens < 1) FROM fetchq.flow_keys WHERE queue = 'rt' AND flow_key = 'S'")" "1|0|true"
check "stats: held_back counts what a rate keeps back" \
    "$(q "SELECT held_back FROM fetchq.stats WHERE queue = 'rt'")" 4
check "flow_keys: the capped key behind which 100,000 wait" \
    "$(q "SELECT active || '|' || ready || '|' || held_back || '|' || (tokens IS NULL) FROM fetchq.flow_keys WHERE queue = 'hol' AND flow_key = 'big'")" "1|99999|99999|true"
check "flow_keys shows a role only the queues it may read" \
    "$(PGUSER=fl_worker psql -X -q -At -d "$db" -c "SELECT count(*) FROM fetchq.flow_keys WHERE queue <> 'fl'")" 0
check "stats: a queue without limits holds nothing back" \
    "$(q "SELECT held_back FROM fetchq.stats WHERE queue = 'fk'")" 0

# --- fair: the keys in turn -----------------------------------------------------
q "SELECT fetchq.queue_create('fair')" >/dev/null
q "SELECT fetchq.queue_set_limits('fair', fair => true)" >/dev/null
q "SELECT fetchq.doc_send('fair', 'a' || lpad(i::text, 3, '0'), next_iteration => now() - interval '1 hour' + i * interval '1 millisecond', flow_key => 'A')
   FROM generate_series(1, 300) AS i" >/dev/null
q "SELECT fetchq.doc_send('fair', k || i, next_iteration => now() - interval '1 minute' + i * interval '1 millisecond', flow_key => upper(k))
   FROM generate_series(1, 5) AS i, unnest(ARRAY['b', 'c']) AS k" >/dev/null
q "SELECT fetchq.doc_send('fair', 'n' || i, next_iteration => now() - interval '1 second') FROM generate_series(1, 3) AS i" >/dev/null
check "fair: a pick of 8 goes round the keys (A's 300 earlier documents do not delay B, C and the keyless)" \
    "$(q "SELECT string_agg(subject, ',' ORDER BY subject) FROM fetchq.doc_pick('fair', 0, 8, '5 minutes')")" \
    a001,a002,b1,b2,c1,c2,n1,n2
check "fair: one by one in a session, the turn goes on from the key served last" \
    "$(psql -X -q -At -d "$db" -c "SELECT subject FROM fetchq.doc_pick('fair', 0, 1, '5 minutes')" \
        -c "SELECT subject FROM fetchq.doc_pick('fair', 0, 1, '5 minutes')" \
        -c "SELECT subject FROM fetchq.doc_pick('fair', 0, 1, '5 minutes')" \
        -c "SELECT subject FROM fetchq.doc_pick('fair', 0, 1, '5 minutes')" | paste -sd, -)" a003,b3,c3,n3
q "SELECT fetchq.queue_create('fair2')" >/dev/null
q "SELECT fetchq.queue_set_limits('fair2', fair => true)" >/dev/null
q "SELECT fetchq.doc_send('fair2', k || i, next_iteration => now() - interval '1 minute' + i * interval '1 millisecond', flow_key => k)
   FROM generate_series(1, 3) AS i, unnest(ARRAY['x', 'y']) AS k" >/dev/null
picks=()
for i in 1 2 3 4 5 6 7; do picks+=(-c "SELECT count(*) FROM fetchq.doc_pick('fair2', 0, 1, '5m')"); done
check "fair without keyless documents: every pick of one in a session takes one" \
    "$(psql -X -q -At -d "$db" "${picks[@]}" | paste -sd, -)" 1,1,1,1,1,1,0
q "SELECT fetchq.queue_set_limits('fair', key_max_active => 2, fair => true)" >/dev/null
q "SELECT fetchq.doc_complete('fair', s) FROM unnest(ARRAY['a001', 'a002', 'a003', 'b1', 'b2', 'b3']) AS s" >/dev/null
check "fair with a cap: each key's turns end at its cap (C has 2 active already)" \
    "$(q "SELECT string_agg(subject, ',' ORDER BY subject) FROM fetchq.doc_pick('fair', 0, 10, '5 minutes')")" \
    a004,a005,b4,b5

# --- exact under 16 concurrent clients ----------------------------------------
# Each client loops in a procedure: pick one (commit), note the time after
# the pick returned; work a little; note the time, then complete (commit).
# A document counts as active from its noted start to its noted end, which
# lie inside the time it was really active (after the pick's count, before
# the completion's commit): a limit that held shows no overlap above it.
q "CREATE UNLOGGED TABLE public.fl_log (queue text, subject text, started timestamptz, ended timestamptz, asked timestamptz)" >/dev/null
q "GRANT ALL ON public.fl_log TO PUBLIC" >/dev/null
q "CREATE PROCEDURE public.fl_client(q text, deadline timestamptz) LANGUAGE plpgsql AS \$p\$
DECLARE s text; left_over boolean; asked timestamptz;
BEGIN
    WHILE clock_timestamp() < deadline LOOP
        asked := clock_timestamp();
        SELECT subject INTO s FROM fetchq.doc_pick(q, 0, 1, '1 minute');
        IF s IS NULL THEN
            COMMIT;
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM fetchq_data.%I WHERE status IN (1, 2))',
                           q || '__docs') INTO left_over;
            EXIT WHEN NOT left_over;
            PERFORM pg_sleep(0.002);
            CONTINUE;
        END IF;
        INSERT INTO public.fl_log VALUES (q, s, clock_timestamp(), NULL, asked);
        COMMIT;
        PERFORM pg_sleep(0.001 + random() * 0.004);
        UPDATE public.fl_log SET ended = clock_timestamp() WHERE queue = q AND subject = s;
        PERFORM fetchq.doc_complete(q, s);
        COMMIT;
    END LOOP;
END \$p\$" >/dev/null
# The highest number of documents active at once in the log of `queue`, per
# key (a key's name) or over the queue (''): the running sum of +1 at each
# start and -1 at each end, ends first at the same instant.
max_overlap() {
    q "WITH e AS (SELECT coalesce(d.flow_key, '-') AS k, l.started AS at, 1 AS delta FROM public.fl_log l
                  JOIN fetchq_data.$1__docs d USING (subject) WHERE l.queue = '$1'
                  UNION ALL
                  SELECT coalesce(d.flow_key, '-'), l.ended, -1 FROM public.fl_log l
                  JOIN fetchq_data.$1__docs d USING (subject) WHERE l.queue = '$1'),
            per_key AS (SELECT k, sum(delta) OVER (PARTITION BY k ORDER BY at, delta ROWS UNBOUNDED PRECEDING) AS n FROM e),
            overall AS (SELECT sum(delta) OVER (ORDER BY at, delta ROWS UNBOUNDED PRECEDING) AS n FROM e)
       SELECT coalesce((SELECT max(n) FROM per_key WHERE k = 'vip'), 0) || ':' ||
              coalesce((SELECT max(n) FROM per_key WHERE k NOT IN ('vip', '-')), 0) || ':' ||
              coalesce((SELECT max(n) FROM overall), 0)"
}
run_clients() {
    local pids=() i
    for i in $(seq 1 16); do
        psql -X -q -d "$db" -c "CALL public.fl_client('$1', clock_timestamp() + interval '90 seconds')" >/dev/null &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i"; done
}
load_docs() {
    q "SELECT fetchq.queue_create('$1')" >/dev/null
    q "SELECT fetchq.doc_send('$1', 'd' || i, next_iteration => now() - interval '1 hour' + i * interval '1 millisecond',
              flow_key => CASE WHEN i % 10 = 0 THEN NULL WHEN i % 10 = 1 THEN 'vip' ELSE 'k' || (i % 4) END)
       FROM generate_series(1, 600) AS i" >/dev/null
}
# Without limits first: the same load does overlap, so the check can fail.
load_docs fl_free
run_clients fl_free
check "no limits: every document completed" \
    "$(q "SELECT count(*) FILTER (WHERE status = 3) || '/' || count(*) FROM fetchq_data.fl_free__docs")" 600/600
free=$(max_overlap fl_free)
check "no limits: the check sees a key with more than 2 active at once (it can fail)" \
    "$(awk -F: '{ print ($2 > 2) }' <<<"$free")" 1
# With limits: max_active 6, key_max_active 2, the key vip 3.
load_docs fl_load
q "SELECT fetchq.queue_set_limits('fl_load', max_active => 6, key_max_active => 2)" >/dev/null
q "SELECT fetchq.queue_set_key_limits('fl_load', 'vip', 3)" >/dev/null
run_clients fl_load
check "limits: every document completed" \
    "$(q "SELECT count(*) FILTER (WHERE status = 3) || '/' || count(*) FROM fetchq_data.fl_load__docs")" 600/600
check "every pick and outcome recorded" "$(q "SELECT count(*) FROM public.fl_log WHERE queue = 'fl_load' AND ended IS NOT NULL")" 600
got=$(max_overlap fl_load)
echo "   highest at once (vip:other keys:queue): limited $got, unlimited $free"
check "vip never above 3, no other key above 2, the queue never above 6, at any instant" \
    "$(awk -F: '{ print ($1 <= 3 && $2 <= 2 && $3 <= 6) }' <<<"$got")" 1
check "and the limits were reached (the load was enough to test them)" \
    "$(awk -F: '{ print ($3 == 6) }' <<<"$got")" 1

# Rates under the same 16 clients: key_rate 5 per second, key_burst 2, four
# keys. A pick's moment lies between the time noted before it asked and the
# time noted after it returned; picks of one key whose moments certainly lie
# in one second (asked at or after the first one asked, returned less than a
# second after it) must be at most 5 + 2.
rate_violations() {
    q "SELECT count(*) FROM (SELECT a.subject FROM public.fl_log a JOIN fetchq_data.$1__docs da USING (subject)
                            JOIN public.fl_log b ON b.queue = a.queue AND b.asked >= a.asked
                                 AND b.started < a.asked + interval '1 second'
                            JOIN fetchq_data.$1__docs db ON db.subject = b.subject AND db.flow_key = da.flow_key
                            WHERE a.queue = '$1' GROUP BY a.subject HAVING count(*) > 7) AS v"
}
rate_docs() {
    q "SELECT fetchq.queue_create('$1')" >/dev/null
    q "SELECT fetchq.doc_send('$1', 'd' || i, next_iteration => now() - interval '1 hour' + i * interval '1 millisecond',
              flow_key => 'k' || (i % 4)) FROM generate_series(1, 80) AS i" >/dev/null
}
rate_docs fl_rfree
run_clients fl_rfree
check "no rate: the check finds seconds with more than 7 picks of a key (it can fail)" \
    "$(q "SELECT $(rate_violations fl_rfree) > 0")" t
rate_docs fl_rate
q "SELECT fetchq.queue_set_limits('fl_rate', key_rate => 5, key_burst => 2)" >/dev/null
started=$SECONDS
run_clients fl_rate
check "rate: every document completed" \
    "$(q "SELECT count(*) FILTER (WHERE status = 3) || '/' || count(*) FROM fetchq_data.fl_rate__docs")" 80/80
check "rate: no second with more than 5 + 2 picks of one key" "$(rate_violations fl_rate)" 0
check "rate: 20 documents per key at 5 a second took at least 3 seconds (the rate held them)" \
    "$((SECONDS - started >= 3))" 1

echo "failures: $failures"
[ "$failures" -eq 0 ]
