#!/usr/bin/env bash
# Runs every fetchq test, from a bare Debian 12 machine to one summary line:
# dependencies, build, unit tests, then against a throwaway PostgreSQL cluster
# (a private install under build/pgroot): pg_regress over sql/*.sql, the
# concurrency test, every executable test/*_test.sh, and a scan of the server
# log for crashes. Ends with "N passed, N failed"; exits non-zero on a failure.
#   FETCHQ_SKIP_DEPS=1 skips the dependency step.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd -P)

# Test output must not depend on the caller's locale.
export LANG=C.UTF-8 PGCLIENTENCODING=UTF8
unset LC_ALL PGDATABASE PGSERVICE PGOPTIONS

SYS_PGBIN=/usr/lib/postgresql/15/bin
PGROOT=$ROOT/build/pgroot
PGBIN=$PGROOT/usr/lib/postgresql/15/bin
LOGS=$ROOT/build/test-logs
CLUSTER=""

passed=0
failed=0
results=()

section() { printf '\n=== %s ===\n' "$*"; }

# record NAME STATUS: one suite's outcome.
record() {
    if [ "$2" = 0 ]; then
        passed=$((passed + 1))
        results+=("PASS  $1")
    else
        failed=$((failed + 1))
        results+=("FAIL  $1")
    fi
}

stop_cluster() {
    [ -n "$CLUSTER" ] || return 0
    PGBIN=$PGBIN scripts/pg_cluster.sh stop "$CLUSTER" >/dev/null 2>&1 || true
    if [ -f "$CLUSTER/server.log" ]; then cp "$CLUSTER/server.log" "$LOGS/server.log"; fi
    rm -rf "$CLUSTER"
    CLUSTER=""
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM

finish() {
    stop_cluster
    section summary
    printf '%s\n' "${results[@]}"
    [ "$failed" = 0 ] || echo "logs: $LOGS"
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
    exit
}

# A step everything after it needs: on failure, the run ends here.
required() {
    record "$1" 1
    finish
}

mkdir -p "$LOGS"
rm -f "$LOGS"/*.log

section dependencies
if [ "${FETCHQ_SKIP_DEPS:-}" = 1 ]; then
    echo "skipped (FETCHQ_SKIP_DEPS=1)"
else
    scripts/install-deps.sh || required dependencies
fi

section build
# Warnings are shown, not fatal; the compile commands themselves are in build.log.
if make -j2 PG_CONFIG=$SYS_PGBIN/pg_config >"$LOGS/build.log" 2>&1; then
    grep -E -A3 '(warning|error):' "$LOGS/build.log" || true
    echo "fetchq.so built, $(grep -c 'warning:' "$LOGS/build.log") warning(s)"
else
    grep -E -A5 '(warning|error):' "$LOGS/build.log" || tail -n 40 "$LOGS/build.log"
    required build
fi

section "unit tests (GoogleTest, src/core)"
unit() {
    cmake -S . -B build/unit -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$LOGS/unit-build.log" 2>&1 &&
        cmake --build build/unit -j2 >>"$LOGS/unit-build.log" 2>&1 || {
        grep -E -A5 '(warning|error):' "$LOGS/unit-build.log" || tail -n 40 "$LOGS/unit-build.log"
        return 1
    }
    grep -E -A3 'warning:' "$LOGS/unit-build.log"
    ln -sfn build/unit/compile_commands.json compile_commands.json
    if ctest --test-dir build/unit -j2 --timeout 120 --output-on-failure >"$LOGS/unit.log" 2>&1; then
        tail -n 3 "$LOGS/unit.log"
    else
        sed -n '/The following tests FAILED/,$p;/Failure/,+8p' "$LOGS/unit.log" | head -n 200
        return 1
    fi
}
unit
record unit $?

section "private PostgreSQL install (build/pgroot)"
# A copy of the system's PostgreSQL 15 with fetchq installed into it: it finds
# its libraries and extensions relative to its own binaries.
rm -rf "$PGROOT"
mkdir -p "$PGROOT/usr/lib/postgresql" "$PGROOT/usr/share/postgresql"
cp -a /usr/lib/postgresql/15 "$PGROOT/usr/lib/postgresql/" &&
    cp -a /usr/share/postgresql/15 "$PGROOT/usr/share/postgresql/" || required "private install"
rm -f "$PGROOT"/usr/lib/postgresql/15/lib/fetchq.so "$PGROOT"/usr/share/postgresql/15/extension/fetchq*
make install DESTDIR="$PGROOT" PG_CONFIG=$SYS_PGBIN/pg_config >"$LOGS/install.log" 2>&1 || {
    tail -n 20 "$LOGS/install.log"
    required "private install"
}
if [ "$(id -u)" = 0 ]; then
    # The server runs as postgres: it must reach the binaries through every parent.
    chmod -R a+rX "$ROOT/build"
    d=$ROOT
    while [ "$d" != / ]; do
        if ! runuser -u postgres -- test -x "$d"; then
            echo "giving others search (x) permission on $d so that postgres can reach build/pgroot"
            chmod o+x "$d"
        fi
        d=$(dirname "$d")
    done
    runuser -u postgres -- test -x "$PGBIN/postgres" || {
        echo "the postgres user cannot run $PGBIN/postgres"
        required "private install"
    }
fi
echo "installed into $PGROOT"

section "throwaway cluster"
CLUSTER=$(mktemp -d /tmp/fetchq-test.XXXXXX)
PORT=$(PGBIN=$PGBIN scripts/pg_cluster.sh start "$CLUSTER") || required "cluster start"
export PGHOST=$CLUSTER PGPORT=$PORT PGUSER=postgres PATH=$PGBIN:$PATH
echo "running in $CLUSTER, port $PORT (shared_preload_libraries = 'fetchq')"

# fresh_db NAME: an empty database with the extension created in it.
fresh_db() {
    PGOPTIONS='-c client_min_messages=warning' psql -X -q -v ON_ERROR_STOP=1 -d postgres \
        -c "DROP DATABASE IF EXISTS \"$1\"" -c "CREATE DATABASE \"$1\"" &&
        psql -X -q -v ON_ERROR_STOP=1 -d "$1" -c 'CREATE EXTENSION fetchq'
}

# drop_db NAME: a test's database goes when the test is done, and with it
# its scheduler, so the next tests have background worker slots to spare.
drop_db() {
    PGOPTIONS='-c client_min_messages=warning' psql -X -q -d postgres \
        -c "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)" >/dev/null || true
}

section "regression tests (pg_regress, sql/*.sql)"
shopt -s nullglob
regress_files=(sql/*.sql)
isolation_specs=(specs/*.spec)
if [ ${#regress_files[@]} -eq 0 ]; then
    echo "no sql/*.sql: nothing to run"
else
    rm -rf results regression.diffs regression.out output_iso
    # make installcheck makes its own databases (fetchq_regress,
    # fetchq_isolation) and the extension in them (sql/setup.sql,
    # specs/isolation_setup.spec).
    timeout -k 10 1800 make installcheck PG_CONFIG="$PGBIN/pg_config" 2>&1 | tee "$LOGS/regress.log"
    status=${PIPESTATUS[0]}
    if [ "$status" != 0 ]; then
        for diffs in regression.diffs output_iso/regression.diffs; do
            [ -f "$diffs" ] || continue
            echo "--- $diffs ---"
            cat "$diffs"
            cp "$diffs" "$LOGS/${diffs//\//_}"
        done
    fi
    record "regress (${#regress_files[@]} files, ${#isolation_specs[@]} isolation specs)" "$status"
fi

section "concurrency (test/concurrency)"
fresh_db t_concurrency && timeout -k 10 600 test/concurrency/run.sh t_concurrency
record concurrency $?
drop_db t_concurrency

for t in test/*_test.sh; do
    name=$(basename "$t" .sh)
    section "$t"
    if [ ! -x "$t" ]; then
        echo "$t is not executable (chmod +x it)"
        record "$name" 1
        continue
    fi
    db=t_$(echo "$name" | tr -c 'a-z0-9_\n' '_')
    fresh_db "$db" && timeout -k 10 900 "$t" "$db"
    record "$name" $?
    drop_db "$db"
done

section "benchmark smoke run (bench/run.sh --smoke)"
# Seconds long, on its own cluster: every scenario runs once and is checked;
# no figure is asserted (the ratios are in docs/benchmarks.md).
timeout -k 10 600 bench/run.sh --smoke
record "bench smoke" $?

section "server log"
stop_cluster
crash='terminated by signal|server process .* was terminated|PANIC:|TRAP:'
if grep -E -B2 -A2 "$crash" "$LOGS/server.log"; then
    echo "the server log shows a crash (above); whole log: $LOGS/server.log"
    record "server log" 1
else
    echo "no crash in $LOGS/server.log"
    record "server log" 0
fi

finish
