#!/usr/bin/env bash
# deploy/prometheus/queries.yml through Debian's prometheus-postgres-exporter:
# a queue with documents in every status, an empty queue and the scheduler's
# tasks come out as fetchq_* series with the expected numbers.
# Env: PGHOST PGPORT PGUSER=postgres of a server with
# shared_preload_libraries = 'fetchq'; $1: a database where CREATE EXTENSION
# fetchq was run. Installs the exporter (apt-get) when it is missing; runs
# its own copy on a free port of 127.0.0.1 and stops it at exit.
set -euo pipefail
db=$1
cd "$(dirname "$0")/.." || exit 1
root=$(pwd -P)
exporter=prometheus-postgres-exporter
source "$root/test/lib/checks.sh"

if ! command -v $exporter >/dev/null; then
    if [ "$(id -u)" = 0 ]; then sudo=(); else sudo=(sudo); fi
    echo "installing $exporter (apt-get)"
    "${sudo[@]}" apt-get update -qq &&
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends $exporter >/dev/null || {
        fail "$exporter is not installed and apt-get could not install it"
        exit 1
    }
    # This test runs its own exporter: the service the package enables (on
    # port 9187) is not wanted.
    if [ -d /run/systemd/system ]; then
        "${sudo[@]}" systemctl disable --now $exporter.service >/dev/null 2>&1 || true
    else
        "${sudo[@]}" invoke-rc.d $exporter stop >/dev/null 2>&1 || true
        "${sudo[@]}" update-rc.d $exporter disable >/dev/null 2>&1 || true
    fi
fi
echo "using $($exporter --version 2>&1 | head -n 1)"

# Documents that stay where they are while the scheduler runs: planned an hour
# ahead, locked for an hour, no expiry (but e1's, below).
q "SELECT was_created FROM fetchq.queue_create('prom_q')" >/dev/null
q "SELECT was_created FROM fetchq.queue_create('prom_empty')" >/dev/null
# A dead-letter queue (of prom_q) and a subscription of a topic: labelled so
# that a backlog alert can leave them out (docs/operations.md).
q "SELECT was_created FROM fetchq.queue_create('prom_dlq')" >/dev/null
q "SELECT fetchq.queue_set_dead_letter('prom_q', 'prom_dlq')" >/dev/null
q "SELECT was_created FROM fetchq.topic_create('prom_t')" >/dev/null
q "SELECT was_created FROM fetchq.queue_create('prom_sub')" >/dev/null
q "SELECT fetchq.subscribe('prom_t', 'prom_sub')" >/dev/null
# A queue with flow limits (issue 35): one of key K's three documents
# active, the two others held back.
q "SELECT was_created FROM fetchq.queue_create('prom_fl')" >/dev/null
q "SELECT fetchq.queue_set_limits('prom_fl', key_max_active => 1)" >/dev/null
q "SELECT fetchq.doc_send('prom_fl', 'k' || i, flow_key => 'K') FROM generate_series(1, 3) AS i" >/dev/null
q "SELECT count(*) FROM fetchq.doc_pick('prom_fl', 0, 3, '1 hour')" >/dev/null
q "SELECT fetchq.doc_push('prom_q', s, 0, 0, now() - n * interval '1 minute', '{}')
   FROM (VALUES ('x1', 10), ('x2', 9), ('x3', 8), ('r1', 3), ('r2', 2), ('r3', 1)) AS v(s, n)" >/dev/null
q "SELECT fetchq.doc_push('prom_q', 'p' || i, 0, 0, now() + interval '1 hour', '{}')
   FROM generate_series(1, 2) AS i" >/dev/null
picked=$(q "SELECT string_agg(subject, ',' ORDER BY subject) FROM fetchq.doc_pick('prom_q', 0, 3, '1 hour')")
[ "$picked" = x1,x2,x3 ] || fail "picked $picked, wanted x1,x2,x3"
q "SELECT fetchq.doc_complete('prom_q', 'x1')" >/dev/null
q "SELECT fetchq.doc_kill('prom_q', 'x2')" >/dev/null
# A stream: three messages on two keys, group g committed one: a lag of 2.
q "SELECT was_created FROM fetchq.stream_create('prom_s')" >/dev/null
q "SELECT fetchq.stream_append('prom_s', k, '{}') FROM (VALUES ('a'), ('a'), ('b')) AS v(k)" >/dev/null
q "SELECT fetchq.stream_commit('prom_s', 'g', 'a', 1)" >/dev/null
# A document that expires in a moment: the scheduler deletes it and counts exp.
q "SELECT fetchq.doc_push('prom_q', 'e1', 0, 0, now() + interval '1 hour', '{}',
   clock_timestamp() + interval '200 milliseconds')" >/dev/null
deadline=$((SECONDS + 20))
until [ "$(q "SELECT exp FROM fetchq.stats('prom_q')")" = 1 ]; do
    if [ $SECONDS -ge $deadline ]; then
        fail "the scheduler did not expire e1 within 20 s"
        break
    fi
    sleep 0.1
done

# Two schedules that missed their last three hourly ticks: 'all' pushes the
# three, 'none' the latest and skips two.
q "SELECT fetchq.queue_create('prom_sq');
   SELECT fetchq.schedule_create('prom_all', 'prom_sq', '1 hour', 'pa', catch_up => 'all');
   SELECT fetchq.schedule_create('prom_none', 'prom_sq', '1 hour', 'pn');
   UPDATE fetchq.periodic_schedules SET next_at = date_trunc('hour', now()) - interval '2 hours'
   WHERE name IN ('prom_all', 'prom_none')" >/dev/null
deadline=$((SECONDS + 30))
until [ "$(q "SELECT string_agg(ticks_pushed::text, ',' ORDER BY name) FROM fetchq.schedules")" = "3,1" ]; do
    if [ $SECONDS -ge $deadline ]; then
        fail "the scheduler did not push the missed ticks within 30 s"
        break
    fi
    sleep 0.1
done

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
log=$(mktemp /tmp/fetchq-prometheus.XXXXXX)
scrape=$log.metrics
pid=""
stop_exporter() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -f "$log" "$scrape"
}
trap stop_exporter EXIT
trap 'exit 130' INT TERM

DATA_SOURCE_NAME="host=$PGHOST port=$PGPORT user=postgres dbname=$db sslmode=disable" \
    $exporter --web.listen-address="127.0.0.1:$port" \
    --extend.query-path="$root/deploy/prometheus/queries.yml" \
    --disable-default-metrics --disable-settings-metrics \
    --no-collector.database --no-collector.bgwriter --log.level=warn >"$log" 2>&1 &
pid=$!

# Scrape until the scheduler's promote task has run at least once (it runs
# for the first time within a second of the test database's creation).
runs_re="^fetchq_worker_runs_total\{datname=\"$db\",[^}]*task=\"promote\"[^}]*\} [1-9]"
deadline=$((SECONDS + 30))
until curl -fsS -o "$scrape" "http://127.0.0.1:$port/metrics" 2>/dev/null &&
    grep -Eq "$runs_re" "$scrape"; do
    if ! kill -0 "$pid" 2>/dev/null; then
        fail "the exporter exited; its log:"
        cat "$log"
        exit 1
    fi
    if [ $SECONDS -ge $deadline ]; then
        fail "no fetchq_worker_runs_total for task promote after 30 s; exporter log:"
        cat "$log"
        [ -f "$scrape" ] && grep -E '^(fetchq|pg_)' "$scrape" | head -n 40
        exit 1
    fi
    sleep 0.2
done
echo "ok: scraped http://127.0.0.1:$port/metrics"

# value NAME QUEUE_OR_TASK_LABEL: the sample's value, or "missing".
value() {
    awk -v name="$1" -v label="$2" -v datname="datname=\"$db\"" '
        index($0, name "{") == 1 && index($0, label) && index($0, datname) { print $NF; found = 1; exit }
        END { if (!found) print "missing" }' "$scrape"
}
expect() {
    local got
    got=$(value "$1" "$2")
    if [ "$got" = "$3" ]; then echo "ok: $1{$2} $3"; else fail "$1{$2}: got $got, wanted $3"; fi
}

# Documents by status and what is ready: r1, r2, r3 pending and due; x3 active;
# x1 completed; x2 killed; p1, p2 planned.
for m in planned:2 pending:3 active:1 completed:1 killed:1 ready:3; do
    expect "fetchq_queue_${m%%:*}" 'queue="prom_q"' "${m#*:}"
done
# r1 became due 3 minutes before the push: its age is 180 s and some.
age=$(value fetchq_queue_oldest_ready_age_seconds 'queue="prom_q"')
if awk -v a="$age" 'BEGIN { exit !(a >= 180 && a < 600) }'; then
    echo "ok: fetchq_queue_oldest_ready_age_seconds{queue=\"prom_q\"} $age"
else
    fail "fetchq_queue_oldest_ready_age_seconds{queue=\"prom_q\"}: got $age, wanted 180 to 600"
fi
# The counters: 9 pushed, e1 expired, 3 picked, 2 processed.
for m in cnt:8 pln:2 pnd:3 act:1 cpl:1 kll:1 ent_total:9 drp_total:0 pkd_total:3 prc_total:2 \
    res_total:0 rej_total:0 orp_total:0 err_total:0 exp_total:1 rtn_total:0; do
    expect "fetchq_queue_${m%%:*}" 'queue="prom_q"' "${m#*:}"
done
# The kind of each queue, as labels of every fetchq_queue_* series.
for l in 'prom_q:false:false' 'prom_empty:false:false' 'prom_dlq:true:false' 'prom_sub:false:true'; do
    IFS=: read -r name dlq sub <<<"$l"
    if grep -Eq "^fetchq_queue_cnt\{[^}]*datname=\"$db\"[^}]*\}" "$scrape" &&
        grep -E "^fetchq_queue_cnt\{" "$scrape" | grep -F "queue=\"$name\"" |
        grep -F "is_dead_letter_queue=\"$dlq\"" | grep -Fq "is_subscription=\"$sub\""; then
        echo "ok: fetchq_queue_cnt{queue=\"$name\"} is_dead_letter_queue=\"$dlq\" is_subscription=\"$sub\""
    else
        fail "fetchq_queue_cnt{queue=\"$name\"}: wanted is_dead_letter_queue=\"$dlq\", is_subscription=\"$sub\" in: $(grep -F "queue=\"$name\"" "$scrape" | grep '^fetchq_queue_cnt' || echo none)"
    fi
done
# Flow limits: what they hold back.
expect fetchq_queue_held_back 'queue="prom_fl"' 2
expect fetchq_queue_active 'queue="prom_fl"' 1
expect fetchq_flow_key_held_back 'flow_key="K"' 2
expect fetchq_flow_key_active 'flow_key="K"' 1
expect fetchq_flow_key_tokens 'flow_key="K"' -1
# An empty queue: zeros, not missing series.
for m in planned pending active completed killed ready oldest_ready_age_seconds cnt ent_total exp_total held_back; do
    expect "fetchq_queue_$m" 'queue="prom_empty"' 0
done
# Counters are typed as counters, counts as gauges.
for t in "fetchq_queue_ent_total counter" "fetchq_queue_pending gauge" \
    "fetchq_worker_runs_total counter" "fetchq_worker_last_duration_seconds gauge" \
    "fetchq_worker_failing gauge"; do
    if grep -qx "# TYPE $t" "$scrape"; then echo "ok: # TYPE $t"; else fail "no '# TYPE $t'"; fi
done
# Every task of the scheduler, with its errors and last duration.
for task in promote orphans retention snapshot expire sessions vacuum purge streams schedules origins; do
    for m in runs_total errors_total last_duration_seconds failing; do
        [ "$(value "fetchq_worker_$m" "task=\"$task\"")" != missing ] ||
            fail "no fetchq_worker_$m{task=\"$task\"}"
    done
done
expect fetchq_worker_errors_total 'task="promote"' 0
expect fetchq_worker_failing 'task="promote"' 0
expect fetchq_stream_lag 'group_name="g"' 2
expect fetchq_schedule_ticks_total 'schedule="prom_all"' 3
expect fetchq_schedule_ticks_skipped_total 'schedule="prom_all"' 0
expect fetchq_schedule_ticks_total 'schedule="prom_none"' 1
expect fetchq_schedule_ticks_skipped_total 'schedule="prom_none"' 2
expect fetchq_schedule_overdue_seconds 'schedule="prom_none"' 0
expect fetchq_schedule_paused 'schedule="prom_none"' 0
tick_age=$(value fetchq_schedule_last_tick_age_seconds 'schedule="prom_all"')
awk -v a="$tick_age" 'BEGIN { exit !(a >= 0 && a <= 3600) }' &&
    echo "ok: fetchq_schedule_last_tick_age_seconds $tick_age" ||
    fail "fetchq_schedule_last_tick_age_seconds: got $tick_age"
age=$(value fetchq_stream_oldest_unread_age_seconds 'group_name="g"')
awk -v a="$age" 'BEGIN { exit !(a > 0 && a < 600) }' && echo "ok: fetchq_stream_oldest_unread_age_seconds $age" ||
    fail "fetchq_stream_oldest_unread_age_seconds: got $age"
# The exporter loaded the queries and ran them without an error.
grep -Eq '^pg_exporter_user_queries_load_error\{.*\} 0$' "$scrape" ||
    fail "the exporter did not load deploy/prometheus/queries.yml: $(grep user_queries_load_error "$scrape" || true)"
grep -qx 'pg_exporter_last_scrape_error 0' "$scrape" ||
    fail "the exporter's last scrape had an error; its log: $(cat "$log")"
# Nothing but fetchq's series and the exporter's own (default metrics off).
other=$(grep -Ev '^(#|fetchq_|pg_exporter_|pg_up |go_|process_|promhttp_|postgres_exporter_build_info)' "$scrape" | head -n 5 || true)
[ -z "$other" ] || fail "unexpected series: $other"

q "SELECT was_dropped FROM fetchq.queue_drop('prom_q')" >/dev/null
q "SELECT was_dropped FROM fetchq.queue_drop('prom_empty')" >/dev/null
q "SELECT was_dropped FROM fetchq.queue_drop('prom_sub')" >/dev/null
q "SELECT was_dropped FROM fetchq.queue_drop('prom_t')" >/dev/null
q "SELECT was_dropped FROM fetchq.queue_drop('prom_dlq')" >/dev/null
q "SELECT fetchq.stream_drop('prom_s')" >/dev/null
echo "prometheus test: $failures failure(s)"
[ "$failures" = 0 ]
