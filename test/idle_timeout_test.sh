#!/usr/bin/env bash
# Temporary queues with an idle timeout (queue_create_temporary and
# subscribe_temporary): the scheduler drops one whose documents did not move
# for that long, while its session is still connected (as behind a pooler
# in transaction mode, where the server session outlives the client); a
# queue in use stays; a queue without an idle timeout stays while its
# session lives.
# Env: PGHOST PGPORT PGUSER of a server with shared_preload_libraries =
# 'fetchq'; $1: a database where CREATE EXTENSION fetchq was run.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"
out_dir=$(mktemp -d)
cleanup() {
    psql -X -q -d "$db" -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'it_%'" \
        >/dev/null 2>&1 || true
    rm -rf "$out_dir"
}
trap cleanup EXIT

# holder NAME SQL: a session that runs SQL (its first output line goes to
# $out_dir/NAME) and then stays connected.
holder() {
    PGAPPNAME="it_$1" psql -X -q -At -d "$db" -c "$2" -c "SELECT pg_sleep(600)" >"$out_dir/$1" 2>&1 &
}
# name_of NAME: the queue that holder created.
name_of() {
    local deadline=$((SECONDS + 20))
    while [ $SECONDS -lt $deadline ]; do
        if [ -s "$out_dir/$1" ]; then head -1 "$out_dir/$1"; return; fi
        sleep 0.2
    done
}
exists() { q "SELECT count(*) FROM fetchq.queues WHERE name = '$1'"; }
alive() { q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'it_$1'"; }

# Idle timeouts of a few seconds: the checks made before they pass must not
# race them on a busy machine.
holder idle "SELECT fetchq.queue_create_temporary(idle_timeout => '5 seconds')"
holder busy "SELECT fetchq.queue_create_temporary('6 seconds')"
holder plain "SELECT fetchq.queue_create_temporary()"
q "SELECT fetchq.topic_create('it_news')" >/dev/null
holder sub "SELECT fetchq.subscribe_temporary('it_news', NULL, '5 seconds')"
idle=$(name_of idle)
busy=$(name_of busy)
plain=$(name_of plain)
sub=$(name_of sub)
check "the idle timeout is registered" \
    "$(q "SELECT string_agg(coalesce(idle_timeout::text, '-'), ',' ORDER BY idle_timeout NULLS LAST) FROM fetchq.temporary_queues WHERE name IN ('$idle', '$busy', '$plain')")" \
    "00:00:05,00:00:06,-"
check "a push into the topic reaches the temporary subscription" "$(q "SELECT fetchq.doc_push('it_news', 'n1')")" 1

# The busy queue is used every second for longer than its timeout.
for i in 1 2 3 4 5 6 7 8; do
    q "SELECT fetchq.doc_push('$busy', 'd$i')" >/dev/null
    sleep 1
done
check "a queue in use for longer than its timeout stays" "$(exists "$busy")" 1
wait_for "an idle queue is dropped while its session is connected" 20 "SELECT count(*) FROM fetchq.queues WHERE name = '$idle'" 0
check "... its session still is" "$(alive idle)" 1
wait_for "an idle temporary subscription is dropped too" 20 "SELECT count(*) FROM fetchq.queues WHERE name = '$sub'" 0
check "... with its route: the next push counts no subscription" "$(q "SELECT fetchq.doc_push('it_news', 'n2')")" 0
wait_for "the busy queue, once left alone, is dropped" 30 "SELECT count(*) FROM fetchq.queues WHERE name = '$busy'" 0
check "a temporary queue without idle timeout stays while its session lives" "$(exists "$plain")" 1

out=$(psql -X -q -At -d "$db" -c '\set VERBOSITY verbose' -c "SELECT fetchq.queue_create_temporary('0 seconds')" 2>&1 || true)
check_has "an idle timeout of zero is refused" "$out" "22023: argument idle_timeout must be longer than zero"
out=$(psql -X -q -At -d "$db" -c "SELECT fetchq.subscribe_temporary('it_news', NULL, '-1 minute')" 2>&1 || true)
check_has "... and a negative one" "$out" "idle_timeout must be longer than zero"
check "a refused call made no queue" \
    "$(q "SELECT count(*) FROM fetchq.temporary_queues WHERE name NOT IN ('$plain')")" 0

echo
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all idle timeout checks passed"
