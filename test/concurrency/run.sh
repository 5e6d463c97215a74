#!/usr/bin/env bash
# Concurrent consumers: CLIENTS sessions (pgbench) pick from one queue of DOCS
# documents until it is empty; every document must be received exactly once.
#   test/concurrency/run.sh DATABASE    (fetchq installed; PGHOST/PGPORT/PGUSER set)
set -euo pipefail
db=${1:?usage: $0 DATABASE}
here=$(cd "$(dirname "$0")" && pwd)
DOCS=${DOCS:-5000}
CLIENTS=${CLIENTS:-8}
TIME_LIMIT=${TIME_LIMIT:-300}  # seconds
q=concurrency_pick              # also named in pick.sql

sql() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
fail() {
    echo "concurrency: FAILED: $*" >&2
    exit 1
}

sql >/dev/null <<SQL
CREATE UNLOGGED TABLE picked (subject VARCHAR, pid INTEGER);
SELECT fetchq.queue_create('$q');
SELECT fetchq.doc_push_many('$q', ARRAY(SELECT 'doc' || g FROM generate_series(1, $DOCS) g),
                            NULL, now() - interval '1 second');
SQL
pending=$(sql -c "SELECT count(*) FROM fetchq_data.${q}__docs WHERE status = 1")
[ "$pending" = "$DOCS" ] || fail "$pending pending documents after pushing $DOCS"
echo "concurrency: $DOCS documents pushed; $CLIENTS sessions pick 1..20 at a time until none is left"

start=$SECONDS
round=0
while :; do
    left=$(sql -c "SELECT count(*) FROM fetchq_data.${q}__docs WHERE status = 1")
    [ "$left" = 0 ] && break
    budget=$((TIME_LIMIT - (SECONDS - start)))
    [ "$budget" -gt 0 ] || fail "time limit of ${TIME_LIMIT}s reached with $left documents pending"
    round=$((round + 1))
    if ! out=$(timeout -k 5 "$budget" pgbench -n -c "$CLIENTS" -j "$CLIENTS" -t 50 \
        -f "$here/pick.sql" "$db" 2>&1); then
        echo "$out" >&2
        fail "pgbench failed in round $round"
    fi
    echo "concurrency: round $round: $left pending before;" \
        "$(echo "$out" | grep -E '^tps' | sed 's/ (without.*//')"
done

# Each row is one broken promise.
problems=$(sql <<SQL
WITH per_subject AS (SELECT subject, count(*) AS n FROM picked GROUP BY subject),
     docs AS (SELECT subject, status, attempts FROM fetchq_data.${q}__docs),
     counters AS (
         SELECT coalesce(sum(value) FILTER (WHERE metric = 'act'), 0) AS act,
                coalesce(sum(value) FILTER (WHERE metric = 'pnd'), 0) AS pnd,
                coalesce(sum(value) FILTER (WHERE metric = 'pkd'), 0) AS pkd
         FROM fetchq.metrics WHERE queue = '$q')
SELECT format('%s subjects received more than once, e.g. %s (%s times)',
              count(*), min(subject), max(n))
  FROM per_subject WHERE n > 1 HAVING count(*) > 0
UNION ALL
SELECT format('%s documents never received, e.g. %s', count(*), min(subject))
  FROM docs d WHERE NOT EXISTS (SELECT 1 FROM picked p WHERE p.subject = d.subject)
  HAVING count(*) > 0
UNION ALL
SELECT format('%s received subjects are not in the queue', count(*))
  FROM per_subject p WHERE NOT EXISTS (SELECT 1 FROM docs d WHERE d.subject = p.subject)
  HAVING count(*) > 0
UNION ALL
SELECT format('the queue holds %s documents, %s pushed', count(*), $DOCS)
  FROM docs HAVING count(*) <> $DOCS
UNION ALL
SELECT format('%s documents are not active (status 2), e.g. %s with status %s',
              count(*), min(subject), min(status))
  FROM docs WHERE status <> 2 HAVING count(*) > 0
UNION ALL
SELECT format('%s documents were picked more than once (attempts > 1)', count(*))
  FROM docs WHERE attempts <> 1 HAVING count(*) > 0
UNION ALL
SELECT format('counters: act = %s, pnd = %s, pkd = %s; expected act = pkd = %s, pnd = 0',
              act, pnd, pkd, $DOCS)
  FROM counters WHERE act <> $DOCS OR pnd <> 0 OR pkd <> $DOCS
UNION ALL
SELECT format('only %s session(s) received documents; expected several', count(DISTINCT pid))
  FROM picked HAVING count(DISTINCT pid) < 2;
SQL
)
if [ -n "$problems" ]; then
    echo "$problems" | sed 's/^/concurrency: /' >&2
    fail "$(echo "$problems" | wc -l) check(s) failed"
fi
sql -c "SELECT format('concurrency: OK: %s documents received exactly once, by %s sessions',
                      count(DISTINCT subject), count(DISTINCT pid)) FROM picked"
