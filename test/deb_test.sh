#!/usr/bin/env bash
# The Debian package postgresql-15-fetchq (debian/), built from the tracked
# files and installed alone into a copy of PostgreSQL 15:
# - dpkg-buildpackage -b in a temporary directory, with DEB_BUILD_OPTIONS
#   nocheck, then again in the same tree with its check step (the regression
#   suite in pg_buildext's throwaway cluster): both ways must build, and the
#   first must leave nothing behind in the tree;
# - the package holds exactly pg_buildext's standard paths, no bitcode, and
#   depends only on packages that a stock postgresql-15 install brings;
# - a copy of /usr/lib/postgresql/15 and /usr/share/postgresql/15 without any
#   fetchq file, the package extracted into it (nothing of make install), a
#   cluster on it, CREATE EXTENSION fetchq and the regression suite, once with
#   the library preloaded and once without.
# FETCHQ_DEB_QUICK=1 skips the build with the check step (about 45 s).
# PATH's PostgreSQL is not used; $1 (the runner's database) is not used.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd -P)
failures=0
clusters=()

work=$(mktemp -d /tmp/fetchq-deb.XXXXXX)
cleanup() {
    local c
    for c in "${clusters[@]}"; do
        PGBIN=${PGBIN:-} "$here/scripts/pg_cluster.sh" stop "$c" >/dev/null 2>&1 || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# The server runs as postgres: it must reach the extracted root.
chmod 755 "$work"

ok() { echo "ok: $1"; }
fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}
check() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1 (wanted '$3', got '$2')"; fi; }
# elapsed START: seconds since START (an $EPOCHREALTIME), to a tenth.
elapsed() {
    local us=$((${EPOCHREALTIME/./} - ${1/./}))
    printf '%d.%d' $((us / 1000000)) $((us / 100000 % 10))
}
started=$EPOCHREALTIME

version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$here/fetchq.control")
pkg=postgresql-15-fetchq
deb=${pkg}_$version-1_$(dpkg --print-architecture).deb

# The tracked files as they are in the working tree (deleted ones left out),
# in a directory named as dpkg-source expects.
src=$work/fetchq-$version
mkdir "$src"
(cd "$here" && git ls-files -z | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
    tar -xf - -C "$src"
(cd "$src" && find . -path ./debian -prune -o -type f -print | sort) >"$work/files.before"

# build NAME DEB_BUILD_OPTIONS: dpkg-buildpackage -b in $src, in an environment
# free of the runner's cluster (pg_virtualenv would take PGPORT) and of PATH's
# private PostgreSQL; the .deb is kept in $work/NAME.
build() {
    local name=$1 options=$2 t0=$EPOCHREALTIME
    echo "building $deb ($name, DEB_BUILD_OPTIONS='$options')"
    if (cd "$src" && env -u PGHOST -u PGPORT -u PGUSER -u PGDATABASE -u PGOPTIONS \
        -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        DEB_BUILD_OPTIONS="$options" dpkg-buildpackage -us -uc -b >"$work/$name.log" 2>&1); then
        ok "$name build ($(elapsed "$t0") s)"
        mkdir "$work/$name"
        mv "$work/$deb" "$work/$name/"
    else
        tail -n 60 "$work/$name.log"
        fail "$name build ($(elapsed "$t0") s; log above)"
        return 1
    fi
}

if ! build nocheck "nocheck parallel=2"; then
    echo "deb test: $failures failure(s)"
    exit 1
fi

# left_behind NAME: the build ran make clean (pg_buildext's loop, and after
# the check step): outside debian/, the tree must hold what it held before.
left_behind() {
    (cd "$src" && find . -path ./debian -prune -o -type f -print | sort) >"$work/files.after"
    if diff "$work/files.before" "$work/files.after"; then
        ok "$1 build left nothing in the source tree outside debian/"
    else
        fail "$1 build left the source tree changed (above)"
    fi
}
left_behind nocheck

if [ "${FETCHQ_DEB_QUICK:-}" = 1 ]; then
    echo "skipped: the build with its check step (FETCHQ_DEB_QUICK=1)"
elif build check "parallel=2"; then
    # The same tree a second time: a later build starts from what the first left.
    left_behind check
    suites=$(grep -c 'tests passed' "$work/check.log" || true)
    check "check step ran the regression and isolation suites" "$suites" 2
    check "both builds ship the same files" \
        "$(dpkg-deb -c "$work/check/$deb" | awk '{print $6}' | md5sum)" \
        "$(dpkg-deb -c "$work/nocheck/$deb" | awk '{print $6}' | md5sum)"
    if grep -q 'override_dh_pgxs_test' "$work/nocheck.log"; then
        fail "the nocheck build ran the regression suite"
    else
        ok "the nocheck build ran no test"
    fi
fi

deb=$work/nocheck/$deb

section() { printf '\n--- %s ---\n' "$*"; }
section "package contents"
# Regular files only: the library, the control file, the install script,
# the update scripts (those of released versions, committed in src/upgrade,
# and the one from the last release, which the Makefile generates), and the
# package's documentation (Debian's changelog, the upstream CHANGELOG.md,
# the copyright).
last_release=$(for f in "$here"/src/upgrade/fetchq--*--*.sql; do f=${f##*--}; echo "${f%.sql}"; done |
    sort -V | tail -n 1)
files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {sub(/^\.\//, "", $6); print "/" $6}' | sort)
ext=/usr/share/postgresql/15/extension
want=$(
    {
        echo /usr/lib/postgresql/15/lib/fetchq.so
        echo "$ext/fetchq.control"
        echo "$ext/fetchq--$version.sql"
        for f in "$here"/src/upgrade/fetchq--*--*.sql; do echo "$ext/${f##*/}"; done
        echo "$ext/fetchq--$last_release--$version.sql"
        echo "/usr/share/doc/$pkg/changelog.Debian.gz"
        echo "/usr/share/doc/$pkg/changelog.gz"
        echo "/usr/share/doc/$pkg/copyright"
    } | sort
)
check "package files are pg_buildext's standard paths" "$files" "$want"

section "package dependencies"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# What a stock postgresql-15 brings: its dependency closure (alternatives and
# virtual packages included), at the versions installed here.
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances postgresql-15 2>/dev/null | grep -E '^[a-z0-9]' | sed 's/:.*//' | sort -u)
IFS=',' read -ra deps <<<"$depends"
for d in "${deps[@]}"; do
    d=$(echo "$d" | xargs)
    name=${d%% *} name=${name%%:*}
    if ! grep -qx "$name" <<<"$closure"; then
        fail "Depends names $name, which postgresql-15 does not bring"
        continue
    fi
    if [[ "$d" =~ \((.+)\ (.+)\) ]]; then
        have=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null || true)
        if [ -n "$have" ] && dpkg --compare-versions "$have" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"; then
            ok "$d (installed with postgresql-15: $have)"
        else
            fail "$d not met by the installed $name '$have'"
        fi
    else
        ok "$d (installed with postgresql-15)"
    fi
done

section "PostgreSQL 15 copy with the package's files only"
root=$work/root
mkdir -p "$root/usr/lib/postgresql" "$root/usr/share/postgresql"
cp -a /usr/lib/postgresql/15 "$root/usr/lib/postgresql/"
cp -a /usr/share/postgresql/15 "$root/usr/share/postgresql/"
rm -f "$root"/usr/lib/postgresql/15/lib/fetchq* "$root"/usr/share/postgresql/15/extension/fetchq*
rm -rf "$root"/usr/lib/postgresql/15/lib/bitcode/fetchq*
dpkg-deb -x "$deb" "$root"
PGBIN=$root/usr/lib/postgresql/15/bin
export PGBIN PGUSER=postgres
check "the copy's library directory" "$("$PGBIN/pg_config" --pkglibdir)" "$root/usr/lib/postgresql/15/lib"
echo "extracted into $root"

# regress NAME [postgresql.conf lines...]: a cluster on the copy, the
# extension created in a database of its own, then the Makefile's
# installcheck (the copy's pg_regress and pg_isolation_regress, through its
# pg_config), which makes its own databases.
regress() {
    local name=$1 dir port t0=$EPOCHREALTIME
    shift
    section "cluster $name"
    dir=$work/cluster-$name
    clusters+=("$dir")
    port=$("$here/scripts/pg_cluster.sh" start "$dir" "$@") || {
        fail "$name: cluster start"
        return
    }
    export PGHOST=$dir PGPORT=$port
    local pid
    pid=$(head -n 1 "$dir/data/postmaster.pid")
    local psql=("$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1)
    if ! "${psql[@]}" -d postgres -c "CREATE DATABASE deb_check" ||
        ! "${psql[@]}" -d deb_check -c 'SET client_min_messages = warning' -c 'CREATE EXTENSION fetchq'; then
        fail "$name: CREATE EXTENSION fetchq"
        return
    fi
    check "$name: extension version" \
        "$("${psql[@]}" -d deb_check -c "SELECT extversion FROM pg_extension WHERE extname = 'fetchq'")" \
        "$version"
    local preload launchers deadline=$((SECONDS + 10))
    preload=$("${psql[@]}" -d postgres -c 'SHOW shared_preload_libraries')
    # The launcher may still be starting.
    while :; do
        launchers=$("${psql[@]}" -d postgres -c \
            "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq launcher'")
        [ -z "$preload" ] || [ "$launchers" = 1 ] || [ $SECONDS -ge $deadline ] || { sleep 0.2; continue; }
        break
    done
    if [ "$preload" = fetchq ]; then
        check "$name: the packaged library preloaded, launcher running" "$launchers" 1
        if grep -q "$root/usr/lib/postgresql/15/lib/fetchq.so" "/proc/$pid/maps"; then
            ok "$name: the postmaster mapped the package's fetchq.so"
        else
            fail "$name: the postmaster did not map $root/usr/lib/postgresql/15/lib/fetchq.so"
        fi
    else
        check "$name: nothing preloaded, no launcher" "$preload:$launchers" ":0"
    fi
    if (cd "$src" && timeout -k 10 900 make installcheck \
        PG_CONFIG="$PGBIN/pg_config" >"$work/regress-$name.log" 2>&1); then
        ok "$name: regression suite ($(grep -o '[0-9]* tests passed' "$work/regress-$name.log" |
            cut -d' ' -f1 | paste -sd+) tests, $(elapsed "$t0") s)"
    else
        tail -n 30 "$work/regress-$name.log"
        local diffs
        for diffs in "$src/regression.diffs" "$src/output_iso/regression.diffs"; do
            if [ -f "$diffs" ]; then head -n 200 "$diffs"; fi
        done
        fail "$name: regression suite"
    fi
    rm -rf "$src/results" "$src/regression.diffs" "$src/regression.out" "$src/output_iso"
    if grep -E 'terminated by signal|PANIC:|TRAP:' "$dir/server.log"; then
        fail "$name: the server log shows a crash"
    fi
    "$here/scripts/pg_cluster.sh" stop "$dir"
}

regress preloaded
regress "not-preloaded" "shared_preload_libraries = ''"

echo "deb test: $failures failure(s), $(elapsed "$started") s"
[ "$failures" = 0 ]
