# shellcheck shell=bash
# For the tests that run PostgreSQL clusters of their own
# (scripts/pg_cluster.sh) under one directory; sourced after setting $here.
# own_clusters NAME makes /tmp/fetchq-NAME.XXXXXX as $dir (the servers run
# as postgres); at exit every cluster in it ($dir itself or a directory just
# below) is stopped and $dir removed (kept with KEEP=1).

# as_pg CMD...: runs CMD as postgres when we are root (initdb and pg_ctl
# refuse root).
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

own_clusters() {
    dir=$(mktemp -d "/tmp/fetchq-$1.XXXXXX")
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
    trap stop_own_clusters EXIT
}

stop_own_clusters() {
    local c
    for c in "$dir" "$dir"/*/; do
        if [ -d "$c/data" ]; then "$here/scripts/pg_cluster.sh" stop "${c%/}" >/dev/null 2>&1 || true; fi
    done
    [ -n "${KEEP:-}" ] || rm -rf "$dir"
}
