#!/usr/bin/env bash
# The published Fetchq 4 Node.js client (npm fetchq 4.1.1, unchanged) against
# fetchq, with the client's own maintenance switched off: the server's
# scheduler promotes planned and rescheduled documents. The client pushes,
# runs its workers (complete, reject, throw, reschedule, kill, drop, pushMany,
# append, upsert, forward), and the test checks final statuses, attempts,
# payloads (quotes, backslashes, unicode), log rows and counters.
# See test/node_client/run.js.
#
#   PGHOST=... PGPORT=... PGUSER=postgres test/node_client_test.sh DBNAME
#
# DBNAME must have the extension, on a server with
# shared_preload_libraries = 'fetchq'. The client is installed with npm ci
# (test/node_client/package-lock.json) into build/node_client, once.
# Exits 0 when everything matched, 1 on a mismatch or a timeout, 2 on usage.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: PGHOST=... PGPORT=... PGUSER=... $0 DBNAME" >&2
    exit 2
fi
db=$1
cd "$(dirname "$0")/.." || exit 1
root=$(pwd -P)
src=$root/test/node_client
cache=$root/build/node_client

for cmd in node npm; do
    if ! command -v "$cmd" >/dev/null; then
        echo "FAIL: $cmd is not installed (scripts/install-deps.sh installs it)"
        exit 1
    fi
done

# Reinstall only when the lockfile changed.
stamp=$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$cache/.installed" 2>/dev/null)" != "$stamp" ]; then
    echo "installing the fetchq Node client (npm ci) into $cache"
    rm -rf "$cache"
    mkdir -p "$cache"
    cp "$src/package.json" "$src/package-lock.json" "$cache/"
    if ! (cd "$cache" && timeout -k 5 300 npm ci --ignore-scripts --no-audit --no-fund \
        --loglevel=error --cache "$root/build/npm-cache"); then
        echo "FAIL: npm ci of the fetchq client did not succeed (is the npm registry reachable?)"
        exit 1
    fi
    echo "$stamp" >"$cache/.installed"
fi
version=$(node -p "require('$cache/node_modules/fetchq/package.json').version")
if [ "$version" != 4.1.1 ]; then
    echo "FAIL: installed fetchq client is $version, wanted 4.1.1"
    exit 1
fi

status=0
NODE_PATH=$cache/node_modules timeout -k 5 120 node --no-deprecation "$src/run.js" "$db" || status=$?
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    echo "FAIL: the Node client test did not finish within 120 s"
fi
exit "$status"
