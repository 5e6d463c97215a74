#!/usr/bin/env bash
# The tour-booking saga of the message-bus design (issue 30), as
# docs/sagas.md builds it: forward steps rooms -> tickets -> transfers ->
# tour_final chained by depends_on; a plug (tour_plugs, only ever taken)
# listing the forward steps; compensations for the room, the tickets and the
# transfer waiting on the plug; tour_cancelled waiting on them.
#   - happy path: every forward step runs in order, each only after the one
#     before; the final step takes the compensations and the plug: no
#     compensation ever runs;
#   - failure in the ticket step: its worker takes the plug and the forward
#     steps still to come in one transaction; exactly the compensations run,
#     tour_cancelled after the three others.
# Counters equal metric_compute's in every queue. Then docs/sagas.md runs as
# written, in a database of its own, request/response round trip included,
# and prints what the page shows.
# Env: PGHOST PGPORT PGUSER (a superuser); $1: a database with the extension.
set -euo pipefail
db=$1
here=$(cd "$(dirname "$0")/.." && pwd -P)
source "$here/test/lib/checks.sh"

docdb=${db}_sagas_doc
cleanup() { psql -X -q -d postgres -c "DROP DATABASE IF EXISTS \"$docdb\" WITH (FORCE)" >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup

# The page's SQL blocks, in order: $1 = first..last (1-based, "all" for every one).
doc_sql() {
    python3 - "$here/docs/sagas.md" "$1" <<'PY'
import re, sys
blocks = re.findall(r'```sql\n(.*?)```', open(sys.argv[1]).read(), re.S)
want = sys.argv[2]
if want != 'all':
    a, b = (int(x) for x in want.split('..'))
    blocks = blocks[a - 1:b]
print('\n'.join(blocks))
PY
}
queues="rooms tickets transfers tour_final tour_plugs cancel_rooms cancel_tickets cancel_transfers tour_cancelled"
agree() {
    local bad="" q1
    for q1 in $queues; do
        if [ "$(q "SELECT (SELECT cnt || ' ' || pln || ' ' || pnd || ' ' || act || ' ' || cpl || ' ' || kll
                          FROM fetchq.metric_get_common('$q1'))
                       = (SELECT cnt || ' ' || pln || ' ' || pnd || ' ' || act || ' ' || cpl || ' ' || kll
                          FROM fetchq.metric_compute('$q1'))")" != t ]; then bad+=" $q1"; fi
    done
    echo "${bad:-agree}"
}
work() { q "SELECT coalesce(tour_work('$1'${2:+, fail => $2}), 'none')"; }
log_of() { q "SELECT string_agg(step, ',' ORDER BY id) FROM tour_log WHERE tour = '$1'"; }
status_of() { q "SELECT string_agg(status::text, ',' ORDER BY s.ord) FROM unnest(string_to_array('$2', ' '))
                 WITH ORDINALITY AS s(queue, ord),
                 LATERAL (SELECT status FROM fetchq.doc_peek(s.queue, '$1')) AS p"; }

# the page's queues, table and functions (its first three blocks)
doc_sql 1..3 | psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null

echo "--- happy path"
q "SELECT tour_start('tour-a')" >/dev/null
check "the saga's documents: the room and the plug pending, the rest waiting" \
    "$(status_of tour-a "$queues")" "1,0,0,0,1,0,0,0,0"
check "counters agree at the start" "$(agree)" agree
check "tickets wait for the room" "$(work tickets)" none
check "the room is booked" "$(work rooms)" tour-a
check "transfers wait for the tickets" "$(work transfers)" none
check "the tickets are booked" "$(work tickets)" tour-a
check "the final step waits for the transfer" "$(work tour_final)" none
check "the transfer is booked" "$(work transfers)" tour-a
for c in cancel_rooms cancel_tickets cancel_transfers tour_cancelled; do
    check "no compensation is pickable: $c" "$(work $c)" none
done
check "the final step" "$(work tour_final)" tour-a
for c in cancel_rooms cancel_tickets cancel_transfers tour_cancelled; do
    check "no compensation ever runs: $c" "$(work $c)" none
done
check "the forward steps ran in order, nothing else" "$(log_of tour-a)" "rooms,tickets,transfers,tour_final"
check "every document of the saga is completed" "$(status_of tour-a "$queues")" "3,3,3,3,3,3,3,3,3"
check "counters agree after the happy path" "$(agree)" agree
check "no wait is left" "$(q "SELECT count(*) FROM fetchq.doc_waits")" 0

echo "--- failure in the ticket step"
q "SELECT tour_start('tour-b')" >/dev/null
check "the room is booked" "$(work rooms)" tour-b
check "the ticket step fails" "$(q "BEGIN; SELECT tour_work('tickets', fail => true);
    SELECT string_agg(status::text, ',') FROM (SELECT status FROM fetchq.doc_peek('cancel_rooms', 'tour-b')) AS x;
    COMMIT" | tr '\n' ' ')" "tour-b 1 "
check "it took the plug and the forward steps still to come, then completed the plug and killed them" \
    "$(status_of tour-b "$queues")" "3,-1,-1,-1,3,1,1,1,0"
check "counters agree after the failure" "$(agree)" agree
check "no forward step is left to run" "$(work transfers)/$(work tour_final)" none/none
check "the room's compensation runs" "$(work cancel_rooms)" tour-b
check "the tickets' compensation runs" "$(work cancel_tickets)" tour-b
check "the last compensation waits for the transfer's" "$(work tour_cancelled)" none
check "the transfer's compensation runs" "$(work cancel_transfers)" tour-b
check "then the last compensation" "$(work tour_cancelled)" tour-b
check "exactly the compensations ran, the last one after the others" "$(log_of tour-b)" \
    "rooms,tickets failed,cancel_rooms,cancel_tickets,cancel_transfers,tour_cancelled"
check "counters agree after the compensations" "$(agree)" agree
check "no wait is left" "$(q "SELECT count(*) FROM fetchq.doc_waits")" 0

echo "--- docs/sagas.md runs as written"
psql -X -q -d postgres -c "CREATE DATABASE \"$docdb\"" >/dev/null
psql -X -q -d "$docdb" -c "CREATE EXTENSION fetchq" >/dev/null
if out=$(doc_sql all | psql -X -q -v ON_ERROR_STOP=1 -d "$docdb" 2>&1); then
    ok "every block of docs/sagas.md runs"
else
    fail "docs/sagas.md does not run: $out"
fi
check "the page's happy tour" \
    "$(psql -X -q -At -d "$docdb" -c "SELECT string_agg(step, ',' ORDER BY id) FROM tour_log WHERE tour = 'tour-1'")" \
    "rooms,tickets,transfers,tour_final"
check "the page's failed tour" \
    "$(psql -X -q -At -d "$docdb" -c "SELECT string_agg(step, ',' ORDER BY id) FROM tour_log WHERE tour = 'tour-2'")" \
    "rooms,tickets failed,cancel_rooms,cancel_tickets,cancel_transfers,tour_cancelled"
check_has "the page's round trip prints the answer" "$out" 'quote-42 \| \{"price": 30\}'
check "the page's request is completed" \
    "$(psql -X -q -At -d "$docdb" -c "SELECT status FROM fetchq_data.prices__docs WHERE subject = 'quote-42'")" 3

[ "$failures" -eq 0 ]
