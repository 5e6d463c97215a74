#!/usr/bin/env bash
# Retention of finished documents, done by the scheduler: completed and killed
# documents older than the queue's retention are deleted, and the counters
# stay exact (cnt, cpl and kll down, rtn up, ent and pkd unchanged).
# Env: PGHOST PGPORT PGUSER of a server with shared_preload_libraries = 'fetchq';
# $1: a database where CREATE EXTENSION fetchq was run.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

# finish QUEUE: five documents, three completed and two killed.
finish() {
    q "SELECT fetchq.doc_push('$1', s, 0, 0, now(), '{}') FROM unnest(ARRAY['a','b','c','d','e']) AS s" >/dev/null
    q "SELECT count(*) FROM fetchq.doc_pick('$1', 0, 10, '1 hour')" >/dev/null
    q "SELECT sum(fetchq.doc_complete('$1', s)) FROM unnest(ARRAY['a','b','c']) AS s" >/dev/null
    q "SELECT sum(fetchq.doc_kill('$1', s)) FROM unnest(ARRAY['d','e']) AS s" >/dev/null
}
# counters QUEUE: cnt cpl kll ent pkd rtn, from the counters.
counters() {
    q "SELECT string_agg(coalesce((SELECT sum(current_value) FROM fetchq.metric_get('$1') WHERE metric = m), 0)::text, ' ' ORDER BY o)
       FROM unnest(ARRAY['cnt','cpl','kll','ent','pkd','rtn']) WITH ORDINALITY AS t(m, o)"
}

for queue in rt_both rt_none rt_killed; do q "SELECT fetchq.queue_create('$queue')" >/dev/null; done
for queue in rt_both rt_none rt_killed; do finish "$queue"; done
check "before: cnt cpl kll ent pkd rtn" "$(counters rt_both)" "5 3 2 5 5 0"

q "SELECT fetchq.queue_set_retention('rt_both', '1 second', '1 second')" >/dev/null
q "SELECT fetchq.queue_set_retention('rt_killed', NULL, '1 second')" >/dev/null
wait_for "the scheduler deletes the finished documents past the retention" 30 \
    "SELECT count(*) FROM fetchq_data.rt_both__docs" 0
wait_for "... only the killed ones where only they have a retention" 30 \
    "SELECT string_agg(subject, ',' ORDER BY subject) FROM fetchq_data.rt_killed__docs" "a,b,c"
check "a queue without retention keeps them" "$(q "SELECT count(*) FROM fetchq_data.rt_none__docs")" 5
check "after: cnt cpl kll down, rtn up, ent and pkd unchanged" "$(counters rt_both)" "0 0 0 5 5 5"
check "... and for the killed ones only" "$(counters rt_killed)" "3 3 0 5 5 2"
for queue in rt_both rt_killed rt_none; do
    check "the counters agree with the documents ($queue)" \
        "$(q "SELECT cnt || ' ' || cpl || ' ' || kll FROM fetchq.metric_compute('$queue')")" \
        "$(counters "$queue" | cut -d' ' -f1-3)"
done
check "stats shows rtn" "$(q "SELECT rtn FROM fetchq.stats WHERE queue = 'rt_both'")" 5
wait_for "worker_status shows the purge task" 10 \
    "SELECT rows_total >= 7 FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'purge'" t

# Documents finished later are kept until their own retention passes.
q "SELECT fetchq.queue_set_retention('rt_none', '1 hour', '1 hour')" >/dev/null
check "a longer retention keeps recent documents" "$(q "SELECT count(*) FROM fetchq_data.rt_none__docs")" 5

out=$(q "SELECT fetchq.queue_set_retention('rt_both', '0 seconds', NULL)" 2>&1 || true)
check_has "a retention of zero is refused" "$out" "must be longer than zero"
out=$(q "SELECT fetchq.queue_set_retention('rt_both', NULL, '-1 second')" 2>&1 || true)
check_has "a negative retention is refused" "$out" "must not be negative"
out=$(q "SELECT fetchq.queue_set_retention('rt_missing', '1 day', NULL)" 2>&1 || true)
check_has "a missing queue is refused" "$out" 'queue "rt_missing" does not exist'

echo
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "retention works"
