#!/usr/bin/env bash
# Installs what building and testing fetchq needs on Debian 12, and nothing
# that is already there: a second run changes nothing and needs no network.
set -euo pipefail

if [ "$(id -u)" = 0 ]; then SUDO=(); else SUDO=(sudo); fi
export DEBIAN_FRONTEND=noninteractive

PACKAGES=(
    postgresql-15 postgresql-server-dev-15
    build-essential g++ make cmake libboost-dev googletest libgtest-dev python3
    # the benchmarks (bench/): PgQ to compare with, gnuplot for the plot
    postgresql-15-pgq3 gnuplot-nox
    # test/prometheus_test.sh: deploy/prometheus/queries.yml through the exporter,
    # scraped with curl
    prometheus-postgres-exporter curl
    # test/pick_wait_clients_test.sh: docs/api.md's Python worker loop (psycopg 3)
    python3-psycopg
    # test/pgbouncer_test.sh: temporary queues and the waiting pick behind a
    # pooler in transaction mode (the test runs its own pgbouncer)
    pgbouncer
    # debian/ and test/deb_test.sh: the postgresql-15-fetchq package
    # (pg_buildext and the pgxs debhelper addon are in postgresql-server-dev-all)
    debhelper dpkg-dev postgresql-server-dev-all
)

installed() {
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

# A candidate version means a real package, not one only provided by another
# (on Debian 12, postgresql-15 itself provides postgresql-contrib-15).
has_candidate() {
    local c
    c=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
    [ -n "$c" ] && [ "$c" != "(none)" ]
}

missing=()
for p in "${PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
# Node.js may come from elsewhere (with its own npm): test the commands.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)

updated=false
apt_update() {
    $updated && return 0
    echo "install-deps: apt-get update" >&2
    "${SUDO[@]}" apt-get update -qq
    updated=true
}

[ ${#missing[@]} -gt 0 ] && apt_update
if ! installed postgresql-contrib-15; then
    # Package lists may be compressed (*_Packages.lz4): match any suffix.
    compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null || apt_update
    has_candidate postgresql-contrib-15 && missing+=(postgresql-contrib-15)
fi

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: everything is installed" >&2
    exit 0
fi
apt_update
echo "install-deps: installing ${missing[*]}" >&2
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"

# The exporter's and pgbouncer's packages enable and start a service (ports
# 9187 and 6432); the tests run their own on free ports or sockets, so the
# services just installed are stopped and disabled.
for service in prometheus-postgres-exporter pgbouncer; do
    [[ " ${missing[*]} " == *" $service "* ]] || continue
    if [ -d /run/systemd/system ]; then
        "${SUDO[@]}" systemctl disable --now "$service.service" >/dev/null 2>&1 || true
    else
        "${SUDO[@]}" invoke-rc.d "$service" stop >/dev/null 2>&1 || true
        "${SUDO[@]}" update-rc.d "$service" disable >/dev/null 2>&1 || true
    fi
done
