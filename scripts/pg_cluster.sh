#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and the demo.
#   scripts/pg_cluster.sh start DIR [extra postgresql.conf lines...]  -> prints the port
#   scripts/pg_cluster.sh stop DIR
# As root, the server runs as the "postgres" user (initdb refuses root).
set -euo pipefail
PGBIN=${PGBIN:-$(pg_config --bindir)}
cmd=$1 dir=$2
shift 2

as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
    python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

case "$cmd" in
start)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    # UTF8 and a fixed locale, whatever the caller's environment: test output must not vary.
    if ! as_pg "$PGBIN/initdb" -D "$dir/data" -A trust -U postgres --no-sync --encoding=UTF8 \
        --locale=C.UTF-8 >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2
        exit 1
    fi
    {
        echo "listen_addresses = '127.0.0.1'"
        echo "unix_socket_directories = '$dir'"
        echo "shared_preload_libraries = 'fetchq'"
        echo "fsync = off"
        # one fetchq scheduler per test database, plus the launcher
        echo "max_worker_processes = 32"
        echo "log_line_prefix = '%m [%p] %b '"
        for line in "$@"; do echo "$line"; done
    } >>"$dir/data/postgresql.conf"
    # The free port may be taken before the server binds it: then try another
    # (the last "port" line of postgresql.conf wins).
    for attempt in 1 2 3; do
        port=$(free_port)
        echo "port = $port" >>"$dir/data/postgresql.conf"
        if as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null; then
            break
        fi
        if [ "$attempt" = 3 ] || ! grep -q 'could not bind' "$dir/server.log"; then
            echo "pg_cluster: the server did not start; end of $dir/server.log:" >&2
            tail -n 30 "$dir/server.log" >&2 || true
            exit 1
        fi
    done
    echo "$port"
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    fi
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
