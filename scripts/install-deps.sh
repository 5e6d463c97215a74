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

# The exporter's package enables and starts a service on port 9187; the test
# runs an exporter of its own on a free port, so the service just installed
# is stopped and disabled.
if [[ " ${missing[*]} " == *" prometheus-postgres-exporter "* ]]; then
    if [ -d /run/systemd/system ]; then
        "${SUDO[@]}" systemctl disable --now prometheus-postgres-exporter.service >/dev/null 2>&1 || true
    else
        "${SUDO[@]}" invoke-rc.d prometheus-postgres-exporter stop >/dev/null 2>&1 || true
        "${SUDO[@]}" update-rc.d prometheus-postgres-exporter disable >/dev/null 2>&1 || true
    fi
fi
