#!/usr/bin/env bash
# What each index of a queue's documents table costs a push (issue 32, point 4).
#   bench/index_costs.sh [REPS]
# A table of the shape fetchq gives every queue (src/ops/queues/queue_tables.cpp:
# the primary key on subject and seven partial indexes), on a throwaway cluster
# of the private install that bench/run.sh or /work-style dev scripts leave in
# build/bench/pgroot or build/pgroot (else PATH's pg_config). For each set of
# indexes (all; all but one, for each; only the primary key and the pick index;
# only the primary key) one backend runs 3,000 prepared INSERTs of 100 pending
# documents (push 100) and 30,000 of one (push 1, each in its own
# transaction); the backend's CPU time (utime + stime of /proc/<pid>/stat, in
# clock ticks) is what is compared: it moves much less than throughput when
# the machine is shared. Prints one line per run: rep, operation, the indexes
# left out, ticks, microseconds per document.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
reps=${1:-2}
for p in "$ROOT/build/bench/pgroot" "$ROOT/build/pgroot"; do
    [ -x "$p/usr/lib/postgresql/15/bin/postgres" ] && PGBIN=$p/usr/lib/postgresql/15/bin && break
done
PGBIN=${PGBIN:-$(pg_config --bindir)}
export PGBIN PATH=$PGBIN:$PATH
work=$(mktemp -d /tmp/fetchq-index-costs.XXXXXX)
[ "$(id -u)" = 0 ] && chmod a+rwx "$work"
cleanup() {
    "$ROOT/scripts/pg_cluster.sh" stop "$work/cluster" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
port=$("$ROOT/scripts/pg_cluster.sh" start "$work/cluster" "shared_preload_libraries = ''" \
    "shared_buffers = 256MB" "max_wal_size = 4GB")
export PGHOST=$work/cluster PGPORT=$port PGUSER=postgres
psql -X -q -d postgres -c "CREATE DATABASE index_costs"
table="CREATE TABLE d (subject varchar(50) NOT NULL PRIMARY KEY, version integer DEFAULT 0,
 priority integer DEFAULT 0, status integer DEFAULT 0, attempts integer DEFAULT 0,
 iterations bigint DEFAULT 0, next_iteration timestamptz, lock_upgrade timestamptz,
 created_at timestamptz, last_iteration timestamptz, payload jsonb, expires_at timestamptz,
 lock_session bigint)"
names=(pick planned active expiry completed killed session)
declare -A def=(
    [pick]="(version, priority DESC, next_iteration, attempts) WHERE status = 1 AND lock_upgrade IS NULL"
    [planned]="(next_iteration) WHERE status = 0 AND lock_upgrade IS NULL"
    [active]="(next_iteration) WHERE status = 2 AND lock_upgrade IS NULL"
    [expiry]="(expires_at) WHERE expires_at IS NOT NULL AND status IN (0, 1)"
    [completed]="(last_iteration) WHERE status = 3"
    [killed]="(last_iteration) WHERE status = -1"
    [session]="(lock_session) WHERE lock_session IS NOT NULL"
)
# setup "index names left out": the table again, 100,000 pending documents.
setup() {
    local sql="DROP TABLE IF EXISTS d; $table;"
    for n in "${names[@]}"; do
        [[ " $1 " == *" $n "* ]] || sql+="CREATE INDEX d_$n ON d ${def[$n]};"
    done
    sql+="INSERT INTO d (subject, status, next_iteration, created_at, payload)
          SELECT 'b' || g, 1, now() - interval '1 hour', now(), '{\"bench\": 1}'
          FROM generate_series(1, 100000) g;"
    psql -X -q -d index_costs -c "SET client_min_messages = warning" -c "$sql" \
        -c "VACUUM ANALYZE d" -c "CHECKPOINT" >/dev/null
}
# workload FILE STATEMENTS ROWS_PER_STATEMENT
workload() {
    {
        echo "SELECT pg_backend_pid() AS pid \\gset"
        echo "\\setenv BPID :pid"
        echo "PREPARE p(text) AS INSERT INTO d (subject, version, priority, status, next_iteration,"
        echo "    created_at, payload) SELECT \$1 || '_' || g, 0, 0, 1, now(), now(), '{\"bench\": 1}'"
        echo "    FROM generate_series(1, $3) g ON CONFLICT DO NOTHING;"
        echo "\\! cat /proc/\$BPID/stat > $work/before"
        for ((i = 0; i < $2; i++)); do echo "EXECUTE p('k$i');"; done
        echo "\\! cat /proc/\$BPID/stat > $work/after"
    } >"$1"
}
workload "$work/push_100.sql" 3000 100
workload "$work/push_1.sql" 30000 1
ticks() { awk '{print $14 + $15}' "$1"; }
hz=$(getconf CLK_TCK)
configs=("none" "${names[@]}" "planned active expiry completed killed session"
    "pick planned active expiry completed killed session")
printf 'rep\toperation\tleft out\tticks\tus per document\n'
for ((rep = 1; rep <= reps; rep++)); do
    for op in push_100 push_1; do
        docs=$([ $op = push_100 ] && echo 300000 || echo 30000)
        for c in "${configs[@]}"; do
            setup "$c"
            psql -X -q -d index_costs -f "$work/$op.sql" >/dev/null
            t=$(($(ticks "$work/after") - $(ticks "$work/before")))
            printf '%s\t%s\t%s\t%s\t%.2f\n' "$rep" "$op" "${c// /+}" "$t" \
                "$(echo "$t * 1000000 / $hz / $docs" | bc -l)"
        done
    done
done
