#!/usr/bin/env bash
# Side-by-side benchmarks of fetchq, in one command, from a clean checkout:
#   bench/run.sh            full run (~11 min on 2 CPUs): writes docs/benchmarks.md
#                           (the block between its results markers) and docs/benchmarks.png
#   bench/run.sh --smoke    every scenario once, a few hundred transactions, checked
#                           (about 10 s once built);
#                           writes nothing under docs/ (for CI)
#   bench/run.sh --profile  where the time of one client goes: pg_stat_statements
#                           (track = all) and, as root with perf, the backend's CPU
#                           by phase; into build/bench/results/profile.txt
#   bench/run.sh --workers  the background workers (bench/workers.py, ~8 min): round
#                           cost as the queue grows, idle cost, orphan and session-end
#                           recovery, bloat under churn; writes the "Background
#                           workers" section of docs/benchmarks.md and
#                           docs/benchmarks-bloat.png (bench/workers.py --help: sizes)
#   bench/run.sh --topics   pushes into topics with 1, 10 and 100 subscriptions next to
#                           the same inserts by hand (bench/topics.py, ~4 min): writes
#                           the "Topics" block of docs/benchmarks.md
#   bench/run.sh --pick-wait  the waiting pick (bench/pick_wait.py, ~1 min): wake latency
#                           from the pusher's commit, CPU of idle waiters; writes the
#                           "Waiting pick" block of docs/benchmarks.md
#   bench/run.sh --depends  push, send and pick + complete on a queue nobody waits on,
#                           with and without waiting documents elsewhere
#                           (bench/depends.py, ~3 min): writes the "Waiting
#                           documents" block of docs/benchmarks.md
#   bench/run.sh --privileges  push and pick + complete by a role with only a
#                           queue_grant next to the queue's owner (bench/privileges.py,
#                           ~2 min): writes the "Per-queue privileges" block of
#                           docs/benchmarks.md
#   bench/run.sh --schedules  periodic schedules: how late ticks are pushed, and the
#                           scheduler's idle CPU with 1,000 schedules next to none
#                           (bench/schedules.py, ~3 min): the "Periodic schedules" block
#   bench/run.sh --streams  stream appends and read + commit cycles next to the floor
#                           and PgQ's insert_event (bench/streams.py, ~10 min): writes
#                           the "Streams" block of docs/benchmarks.md (--only TEXT: the
#                           cases whose label has TEXT, --reps N; prints only)
#   bench/run.sh --flow     pick 1 + complete on a queue with key_max_active 1 over
#                           1,000 keys next to one without limits, 1, 4 and 16 clients
#                           (bench/flow.py, ~1 min): writes the "Flow limits" block
#   bench/run.sh --remote   pushes into a remote route (a second database of the same
#                           cluster, over logical replication) at 1 and 4 clients next
#                           to a local route's, with deliveries per second on the other
#                           side and the delivery latency (bench/remote.py, ~1 min):
#                           writes the "Remote routes" block of docs/benchmarks.md
#   bench/run.sh --memory   private memory of a client backend and of the scheduler
#                           for 10, 200 and 1,000 queues (bench/memory.py, ~3 min):
#                           writes the "Memory per queue" block of docs/benchmarks.md
#   bench/run.sh --held-horizon  pick 1 + complete and a producer while a REPEATABLE READ
#                           transaction is held idle (bench/held_horizon.py, ~6 min a
#                           system): throughput per 10 s slice for the floor, pgmq (with
#                           PGMQ_SQL) and fetchq; writes the "Held xmin horizon" block
#                           of docs/benchmarks.md
#   bench/run.sh --deferred push 1 and pick 1 + complete of the extension with deferred
#                           counters (bench/deferred.sql) next to the floor, the floor
#                           with counters and the extension with exact counters (~4 min;
#                           no reference, PgQ or pgmq): writes the "Deferred counters"
#                           block of docs/benchmarks.md
#   bench/run.sh --fsync    a full run on a cluster with fsync = on: commits wait for
#                           the disk; prints and keeps its results under build/bench,
#                           writes nothing under docs/
# PGMQ_SQL=/path/to/pgmq-extension/sql/pgmq.sql (of a pgmq snapshot): the full,
# smoke and profile runs add pgmq (send, read, archive) as a system.
# Other arguments go to bench/driver.py (--clients 1,4 --duration 5 --reps 5
# --ops pick_1 --systems floor,extension --backlog N --no-promotion).
#
# It builds fetchq, installs it into a private copy of the system's PostgreSQL 15
# (build/bench/pgroot), starts a throwaway cluster with
# shared_preload_libraries = 'fetchq' (the workers run, as in production), and
# runs pgbench against five databases on it: the floor (bench/floor.sql), the floor
# with counters (bench/floor_counted.sql), the
# reference Fetchq 4 (npm fetchq@4.1.1, fetched at bench time, never committed),
# PgQ (Debian postgresql-15-pgq3, installed with apt-get when missing and
# available) and the extension. BENCH_NO_INSTALL=1: install no package.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd -P)

mode=full
fsync=off
pass=()
for arg in "$@"; do
    case "$arg" in
    --smoke) mode=smoke ;;
    --profile) mode=profile ;;
    --workers) mode=workers ;;
    --topics) mode=topics ;;
    --pick-wait) mode=pick_wait ;;
    --privileges) mode=privileges ;;
    --depends) mode=depends ;;
    --streams) mode=streams ;;
    --schedules) mode=schedules ;;
    --flow) mode=flow ;;
    --remote) mode=remote ;;
    --memory) mode=memory ;;
    --held-horizon) mode=held_horizon ;;
    --deferred) mode=deferred ;;
    --fsync) fsync=on ;;
    *) pass+=("$arg") ;;
    esac
done

export LANG=C.UTF-8 PGCLIENTENCODING=UTF8
unset LC_ALL PGDATABASE PGSERVICE PGOPTIONS

SYS_PGBIN=/usr/lib/postgresql/15/bin
OUT=$ROOT/build/bench
PGROOT=$OUT/pgroot
PGBIN=$PGROOT/usr/lib/postgresql/15/bin
CLUSTER=""

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

stop_cluster() {
    [ -n "$CLUSTER" ] || return 0
    PGBIN=$PGBIN scripts/pg_cluster.sh stop "$CLUSTER" >/dev/null 2>&1 || true
    [ -f "$CLUSTER/server.log" ] && cp "$CLUSTER/server.log" "$OUT/server.log"
    rm -rf "$CLUSTER"
    CLUSTER=""
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM

installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }

# ensure_package PKG: installs a Debian package when it is missing and available.
ensure_package() {
    installed "$1" && return 0
    if [ "${BENCH_NO_INSTALL:-}" = 1 ] || ! command -v apt-get >/dev/null; then return 1; fi
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || return 1
        sudo=(sudo)
    fi
    local candidate
    candidate=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
    if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
        "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 || true
        candidate=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
    fi
    [ -n "$candidate" ] && [ "$candidate" != "(none)" ] || return 1
    say "installing $1 ($candidate)"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "$1" >/dev/null
}

# The reference script, from the npm registry into a cache shared with
# test/compat_test.sh; checked by its sha256; never committed.
REF_VERSION=4.1.1
REF_FILE=package/lib/functions/client/client.init.sql
REF_SHA256=af82c628a1d4260af7cb7be658566adcf49838f04ca9c65cf22662f4f09d16df
fetch_reference() {
    local sql=${FETCHQ_REF_CACHE:-$ROOT/build/ref}/fetchq-$REF_VERSION/client.init.sql
    if [ -f "$sql" ] && [ "$(sha256sum "$sql" | cut -d' ' -f1)" = "$REF_SHA256" ]; then
        echo "$sql"
        return
    fi
    command -v npm >/dev/null || die "npm is needed to fetch the reference (npm pack fetchq@$REF_VERSION)"
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "fetchq@$REF_VERSION" >/dev/null) || die "npm pack fetchq@$REF_VERSION failed"
    tar -xzf "$tmp/fetchq-$REF_VERSION.tgz" -C "$tmp" "$REF_FILE" || die "no $REF_FILE in the package"
    [ "$(sha256sum "$tmp/$REF_FILE" | cut -d' ' -f1)" = "$REF_SHA256" ] ||
        die "the $REF_FILE of fetchq@$REF_VERSION is not the expected one (sha256 differs)"
    mkdir -p "$(dirname "$sql")"
    mv "$tmp/$REF_FILE" "$sql"
    rm -rf "$tmp"
    echo "$sql"
}

mkdir -p "$OUT"
systems=floor,floor_counted,reference,extension,deferred
if [ "$mode" = deferred ]; then
    systems=floor,floor_counted,extension,deferred
elif [ "$mode" = workers ] || [ "$mode" = topics ] || [ "$mode" = pick_wait ] ||
    [ "$mode" = privileges ] || [ "$mode" = memory ] || [ "$mode" = held_horizon ] ||
    [ "$mode" = depends ] || [ "$mode" = remote ]; then
    : # only the extension: no PgQ, no reference
elif ensure_package postgresql-15-pgq3; then
    systems=floor,floor_counted,reference,pgq,extension,deferred
else
    say "PgQ (postgresql-15-pgq3) is not available: its column stays empty"
fi
# pgmq: its SQL file from a snapshot the person running the benchmark points
# to (PGMQ_SQL=/path/to/pgmq-extension/sql/pgmq.sql); loaded into its own
# database at each run, never fetched or committed by this repository.
pgmq_args=()
case "$mode" in
full | smoke | profile | held_horizon)
    if [ -n "${PGMQ_SQL:-}" ]; then
        [ -f "$PGMQ_SQL" ] || die "PGMQ_SQL=$PGMQ_SQL: no such file"
        systems=${systems/extension/pgmq,extension}
        pgmq_args=(--pgmq-sql "$(realpath "$PGMQ_SQL")")
    else
        say "PGMQ_SQL is not set: no pgmq column (PGMQ_SQL=/path/to/pgmq-extension/sql/pgmq.sql)"
    fi
    ;;
esac
if [ "$mode" = full ] || [ "$mode" = workers ] && ! command -v gnuplot >/dev/null; then
    ensure_package gnuplot-nox || say "gnuplot is not available: no plot"
fi
command -v python3 >/dev/null || die "python3 is needed"
REF_SQL=/dev/null
case "$mode" in workers | topics | pick_wait | privileges | depends | streams | memory | held_horizon | schedules | deferred | flow | remote) ;; *) REF_SQL=$(fetch_reference) ;; esac

say "building fetchq (log: build/bench/build.log)"
make -j2 PG_CONFIG=$SYS_PGBIN/pg_config >"$OUT/build.log" 2>&1 || {
    grep -E -A5 '(error):' "$OUT/build.log" || tail -n 40 "$OUT/build.log"
    die "the build failed"
}

# A copy of the system's PostgreSQL 15 (with PgQ and contrib, if installed),
# with fetchq installed into it: nothing is installed into the system.
rm -rf "$PGROOT"
mkdir -p "$PGROOT/usr/lib/postgresql" "$PGROOT/usr/share/postgresql"
cp -a /usr/lib/postgresql/15 "$PGROOT/usr/lib/postgresql/"
cp -a /usr/share/postgresql/15 "$PGROOT/usr/share/postgresql/"
rm -f "$PGROOT"/usr/lib/postgresql/15/lib/fetchq.so "$PGROOT"/usr/share/postgresql/15/extension/fetchq*
make install DESTDIR="$PGROOT" PG_CONFIG=$SYS_PGBIN/pg_config >"$OUT/install.log" 2>&1 ||
    die "make install into $PGROOT failed, see $OUT/install.log"
if [ "$(id -u)" = 0 ]; then
    # The server runs as postgres: it must reach the binaries through every parent.
    chmod -R a+rX "$OUT"
    d=$ROOT
    while [ "$d" != / ]; do
        runuser -u postgres -- test -x "$d" || chmod o+x "$d"
        d=$(dirname "$d")
    done
fi

conf=(
    "shared_buffers = 256MB"
    "max_connections = 60"
    "max_wal_size = 4GB"
    "checkpoint_timeout = 30min"
)
preload="fetchq"
if [ "$mode" = profile ]; then
    preload="fetchq,pg_stat_statements"
    conf+=("pg_stat_statements.track = all" "pg_stat_statements.track_planning = on")
fi
conf+=("shared_preload_libraries = '$preload'")
# Remote routes need logical decoding (bench/remote.py, in the smoke run too).
if [ "$mode" = remote ] || [ "$mode" = smoke ]; then
    conf+=("wal_level = logical" "max_replication_slots = 4" "max_wal_senders = 4")
fi
# scripts/pg_cluster.sh turns fsync off; a later line of postgresql.conf wins.
[ "$fsync" = on ] && conf+=("fsync = on")
CLUSTER=$(mktemp -d /tmp/fetchq-bench.XXXXXX)
PORT=$(PGBIN=$PGBIN scripts/pg_cluster.sh start "$CLUSTER" "${conf[@]}") || die "the cluster did not start"
export PGHOST=$CLUSTER PGPORT=$PORT PGUSER=postgres PATH=$PGBIN:$PATH
say "cluster in $CLUSTER, port $PORT, shared_preload_libraries = '$preload'"

# The benchmarks of one feature: each writes its block of docs/benchmarks.md.
case "$mode" in
pick_wait | streams | privileges | depends | topics | memory | held_horizon | schedules | flow | remote)
    python3 "bench/$mode.py" --doc "$ROOT/docs/benchmarks.md" --command "bench/run.sh${*:+ $*}" \
        "${pgmq_args[@]}" "${pass[@]}"
    exit
    ;;
esac
if [ "$mode" = workers ]; then
    python3 bench/workers.py --doc "$ROOT/docs/benchmarks.md" --out "$OUT/results" \
        --command "bench/run.sh${*:+ $*}" "${pass[@]}"
    exit
fi
args=(--ref-sql "$REF_SQL" --out "$OUT/results" --systems "$systems" "${pgmq_args[@]}"
    --command "bench/run.sh${*:+ $*}")
case "$mode" in
smoke) args+=(--smoke) ;;
profile) args+=(--profile) ;;
deferred) args+=(--ops push_1,pick_1 --no-promotion --deferred-doc "$ROOT/docs/benchmarks.md") ;;
full) [ "$fsync" = on ] || args+=(--doc "$ROOT/docs/benchmarks.md") ;;
esac
python3 bench/driver.py "${args[@]}" "${pass[@]}"
if [ "$mode" = smoke ]; then
    for script in topics pick_wait privileges depends streams memory schedules remote; do
        python3 "bench/$script.py" --smoke || die "the $script smoke run failed"
    done
    python3 bench/held_horizon.py --smoke "${pgmq_args[@]}" || die "the held_horizon smoke run failed"
fi
exit 0
