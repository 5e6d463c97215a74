#!/usr/bin/env bash
# fetchq.doc_origins follows its documents (issue 34): the origin row of a
# document a remote route delivered goes when the document goes, whichever
# way (completed and removed by retention, killed and removed, dropped,
# expired, deleted by hand: the scheduler's task origins, within seconds;
# queue_truncate: at once), and doc_origin() never describes a document
# pushed again here under the subject of a delivered one that went. The rows
# are written here as remote_subscribe's apply worker writes them (as the
# extension's owner, with the delivered document's created_at), without a
# second cluster: test/remote_routes_test.sh delivers for real. Removals by
# the scheduler are polled for with deadlines.
# Env: PGHOST PGPORT PGUSER (a superuser, the extension's owner); $1: a
# database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

cleanup() {
    psql -X -q -d "$db" -c "ALTER SYSTEM RESET fetchq.batch_size" -c "SELECT pg_reload_conf()" \
        >/dev/null 2>&1 || true
}
trap cleanup EXIT

# Origin rows for the queue's documents, as a delivery records them.
deliver() {
    q "INSERT INTO fetchq.doc_origins (queue, subject, source_db, seenby, link, sent_at,
         arrived_at, doc_created_at)
       SELECT '$1', subject, '7/a', ARRAY['7/a', '8/b'], 'l', now(), clock_timestamp(), created_at
       FROM fetchq_data.$1__docs WHERE subject LIKE '$2'" >/dev/null
}
origins() { q "SELECT coalesce(string_agg(subject, ',' ORDER BY subject), '-') FROM fetchq.doc_origins WHERE queue = '$1'"; }
origin_of() { q "SELECT count(*) FROM fetchq.doc_origin('$1', '$2')"; }

echo "# documents delivered into og, then gone each its own way"
q "SELECT fetchq.queue_create('og');
   SELECT fetchq.doc_push('og', s) FROM unnest(ARRAY['keep1', 'done1', 'kill1', 'drop1',
     'again1', 'hand1', 'planned1']) AS s;
   SELECT fetchq.doc_push('og', 'exp1', 0, 0, now(), '{}', now() + interval '1 second');
   UPDATE fetchq_data.og__docs SET status = 0, next_iteration = now() + interval '1 day'
   WHERE subject = 'planned1'" >/dev/null
deliver og '%'
check "every document has its origin row" "$(origins og)" "again1,done1,drop1,exp1,hand1,keep1,kill1,planned1"
check "doc_origin tells where a delivered document came from" \
    "$(q "SELECT source_db || ' ' || array_to_string(seenby, '>') || ' ' || link FROM fetchq.doc_origin('og', 'keep1')")" \
    "7/a 7/a>8/b l"

q "SELECT fetchq.queue_set_retention('og', '1 millisecond', '1 millisecond')" >/dev/null
for s in done1 kill1 drop1 again1; do q "SELECT count(*) FROM fetchq.doc_take('og', '$s', '5m')" >/dev/null; done
check "completed" "$(q "SELECT fetchq.doc_complete('og', 'done1')")" 1
check "killed" "$(q "SELECT fetchq.doc_kill('og', 'kill1')")" 1
check "dropped" "$(q "SELECT fetchq.doc_drop('og', 'drop1')")" 1
check "dropped, and pushed again here" \
    "$(q "SELECT fetchq.doc_drop('og', 'again1'); SELECT fetchq.doc_push('og', 'again1')")" "1
1"
q "DELETE FROM fetchq_data.og__docs WHERE subject = 'hand1'" >/dev/null

echo "# doc_origin() at once, before the scheduler came"
check "no origin for a dropped document" "$(origin_of og drop1)" 0
check "no origin for a document pushed again here under a delivered subject" "$(origin_of og again1)" 0
check "no origin for a document deleted by hand" "$(origin_of og hand1)" 0
check "the origin of a planned document stays" "$(origin_of og planned1)" 1

echo "# the scheduler removes the rows of the documents that went"
wait_for "retention, expiry: the documents are gone" 60 \
    "SELECT string_agg(subject, ',' ORDER BY subject) FROM fetchq_data.og__docs" "again1,keep1,planned1"
wait_for "their origin rows are removed (retention, kill, drop, expiry, by hand, pushed again)" 60 \
    "SELECT string_agg(subject, ',' ORDER BY subject) FROM fetchq.doc_origins WHERE queue = 'og'" \
    "keep1,planned1"
check "the live documents keep theirs" "$(origin_of og keep1)$(origin_of og planned1)" 11
wait_for "worker_status: task origins counts the rows it removed, without error" 30 \
    "SELECT rows_total || ' ' || errors FROM fetchq.worker_status()
     WHERE datname = current_database() AND task = 'origins'" "6 0"

echo "# queue_truncate: the origin rows go at once"
q "SELECT fetchq.queue_create('og_t');
   SELECT fetchq.doc_push('og_t', 't' || i) FROM generate_series(1, 5) AS i" >/dev/null
deliver og_t '%'
check "queue_truncate removes the queue's origin rows in its transaction" \
    "$(q "BEGIN; SELECT fetchq.queue_truncate('og_t');
          SELECT count(*) FROM fetchq.doc_origins WHERE queue = 'og_t'; ROLLBACK")" "t
0"
check "... and a rollback keeps them" "$(q "SELECT count(*) FROM fetchq.doc_origins WHERE queue = 'og_t'")" 5
q "SELECT fetchq.queue_truncate('og_t')" >/dev/null
check "queue_truncate: none left" "$(origins og_t)" "-"
check "the other queue's rows stay" "$(origins og)" "keep1,planned1"

echo "# many rows, in batches of fetchq.batch_size, over several runs"
# 50 batches a run: 300 rows of 2 a batch take two runs, the second going on
# where the first stopped.
q "ALTER SYSTEM SET fetchq.batch_size = 2" && q "SELECT pg_reload_conf()" >/dev/null
wait_applied fetchq.batch_size 2
q "SELECT fetchq.queue_create('og_b');
   SELECT fetchq.doc_push('og_b', 'b' || lpad(i::text, 3, '0')) FROM generate_series(1, 300) AS i" >/dev/null
deliver og_b '%'
q "DELETE FROM fetchq_data.og_b__docs WHERE subject NOT IN ('b150', 'b300')" >/dev/null
wait_for "298 rows of documents deleted by hand, 2 a transaction: all removed" 60 \
    "SELECT string_agg(subject, ',' ORDER BY subject) FROM fetchq.doc_origins WHERE queue = 'og_b'" b150,b300
q "ALTER SYSTEM RESET fetchq.batch_size" && q "SELECT pg_reload_conf()" >/dev/null

echo "# the rows go with their queue"
q "SELECT fetchq.queue_drop('og_b')" >/dev/null
check "queue_drop" "$(origins og_b)" "-"

[ "$failures" = 0 ] || exit 1
echo "doc_origins_test: all ok"
