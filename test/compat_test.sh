#!/usr/bin/env bash
# Compatibility test: replays every scenario test/compat/*.sql, call by call,
# against the original Fetchq 4 (PL/pgSQL, from the npm package fetchq@4.1.1)
# and against the fetchq extension, on the same server, and compares outputs.
#
#   test/compat_test.sh DBNAME     (PGHOST, PGPORT, PGUSER from the environment)
#
# DBNAME (where CREATE EXTENSION fetchq was done) is only used to connect:
# both sides get fresh databases, compat_ext_<pid> (CREATE EXTENSION fetchq)
# and compat_ref_<pid> (uuid-ossp, the reference script, fetchq.init()), so
# that global functions (mnt_run_all, metric_get_all, ...) see only the
# scenarios' queues and touch nobody else's. Both are dropped at exit.
#
# Scenarios named defects_*.sql exercise the reference's known defects and the
# places where fetchq deliberately answers differently (an error instead of
# NULL/0/false, fixed functions). Their difference from the reference is
# recorded in test/compat/expected_differences/<scenario>.diff and must match
# it exactly. Every other scenario must match the reference exactly.
#
# A scenario calling a fetchq.* function the extension lacks is skipped and
# reported. A main scenario listed in test/compat/known_bugs shows a bug of
# the extension: reported as XFAIL while it differs, a failure once it
# matches. COMPAT_STRICT=1 makes skips and known bugs failures.
# COMPAT_RECORD=1 (re)writes the expected differences of defects_* scenarios.
# COMPAT_ONLY=name runs one scenario. Outputs go to build/compat/ (COMPAT_OUT).
# COMPAT_SELF_TEST=1 installs the reference on both sides: every scenario
# must then match exactly, which shows that the scenarios are deterministic.
set -euo pipefail

admin_db=${1:?usage: $0 DBNAME}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
scenarios=$here/compat
expected_dir=$scenarios/expected_differences
known_bugs=$scenarios/known_bugs
intended_signatures=$scenarios/intended_signatures

REF_VERSION=4.1.1
REF_FILE=package/lib/functions/client/client.init.sql
REF_SHA256=af82c628a1d4260af7cb7be658566adcf49838f04ca9c65cf22662f4f09d16df
ref_cache=${FETCHQ_REF_CACHE:-$root/build/ref}
out=${COMPAT_OUT:-$root/build/compat}
ref_db=compat_ref_$$
ext_db=compat_ext_$$

# Same session settings on both sides; nothing printed depends on them, but a
# stray timestamp in a diff should at least be readable.
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning -c TimeZone=UTC -c DateStyle=ISO,YMD"
export PGAPPNAME=fetchq_compat

say() { printf 'compat: %s\n' "$*"; }
die() { say "ERROR: $*" >&2; exit 1; }
psql_db() { psql -X -q -v ON_ERROR_STOP=1 -d "$@"; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# The reference script, from the npm registry into a cache; never committed.
fetch_reference() {
    local sql=$ref_cache/fetchq-$REF_VERSION/client.init.sql
    if [ -f "$sql" ] && [ "$(sha256_of "$sql")" = "$REF_SHA256" ]; then
        echo "$sql"
        return
    fi
    command -v npm >/dev/null 2>&1 ||
        die "npm is needed to fetch the reference (npm pack fetchq@$REF_VERSION); install nodejs and npm (the project's dependency installer does), or put client.init.sql in $ref_cache/fetchq-$REF_VERSION/"
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "fetchq@$REF_VERSION" >/dev/null) ||
        die "npm pack fetchq@$REF_VERSION failed"
    tar -xzf "$tmp/fetchq-$REF_VERSION.tgz" -C "$tmp" "$REF_FILE" ||
        die "fetchq-$REF_VERSION.tgz has no $REF_FILE"
    [ "$(sha256_of "$tmp/$REF_FILE")" = "$REF_SHA256" ] ||
        die "the $REF_FILE of fetchq@$REF_VERSION is not the expected one (sha256 differs)"
    mkdir -p "$(dirname "$sql")"
    mv "$tmp/$REF_FILE" "$sql"
    rm -rf "$tmp"
    echo "$sql"
}

cleanup() {
    local db
    for db in "$ref_db" "$ext_db"; do
        psql -X -q -d "$admin_db" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 ||
            say "could not drop database $db" >&2
    done
}

create_databases() {
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    local opts="TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
    psql_db "$admin_db" -c "CREATE DATABASE $ref_db $opts" -c "CREATE DATABASE $ext_db $opts" >/dev/null
    # The scenarios compare the SQL API; the scheduler would race them (it
    # promotes what a call made due before the next statement looks).
    psql_db "$admin_db" -c "ALTER DATABASE $ext_db SET fetchq.enabled = off" >/dev/null
    [ "${COMPAT_SELF_TEST:-0}" = 1 ] && return
    psql_db "$ext_db" -c 'CREATE EXTENSION fetchq' >"$out/extension-install.log" 2>&1 ||
        die "CREATE EXTENSION fetchq failed, see $out/extension-install.log"
}

install_reference() {
    local sql=$1 db=${2:-$ref_db}
    local ok
    ok=$(psql_db "$db" -A -t -c 'CREATE EXTENSION "uuid-ossp"' -f "$sql" \
        -c 'SELECT was_initialized FROM fetchq.init()' 2>"$out/reference-install.log" | tail -n 1) ||
        die "installing the reference failed, see $out/reference-install.log"
    [ "$ok" = t ] || die "fetchq.init() of the reference returned '$ok'"
}

# fetchq.* functions a scenario calls: every name written fetchq.name( (but
# not a table, as in INSERT INTO fetchq.queues (...)) plus the exact
# signatures of its "-- requires: fetchq.f(type, ...)" lines.
required_names() {
    grep -v '^\s*--' "$1" | grep -oE 'fetchq\.[a-z_0-9]+[[:space:]]*\(' |
        sed -E 's/^fetchq\.([a-z_0-9]+).*/\1/' | sort -u
}
required_signatures() {
    sed -n -E 's/^--[[:space:]]*requires:[[:space:]]*//p' "$1" | tr ';' '\n' |
        sed -E 's/^[[:space:]]+|[[:space:]]+$//g' | grep -v '^$' || true
}

# Prints what of the scenario's needs the database lacks, one per line.
missing_functions() {
    local db=$1 file=$2 names sigs
    names=$(required_names "$file" | paste -sd, -)
    sigs=$(required_signatures "$file" | sed "s/'/''/g; s/.*/'&'/" | paste -sd, -)
    psql_db "$db" -A -t <<SQL
SELECT 'fetchq.' || n || '()' FROM unnest(string_to_array('$names', ',')) AS n
WHERE to_regclass('fetchq.' || quote_ident(n)) IS NULL
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_proc p
                  WHERE p.pronamespace = 'fetchq'::regnamespace AND p.proname = n)
UNION ALL
SELECT s FROM unnest(ARRAY[$sigs]::text[]) AS s
WHERE to_regprocedure(s) IS NULL
  AND EXISTS (SELECT 1 FROM pg_catalog.pg_proc p
              WHERE p.pronamespace = 'fetchq'::regnamespace
                AND 'fetchq.' || p.proname = split_part(s, '(', 1));
SQL
}

# The reason given after NAME on its line of FILE, if any. NAME may hold
# spaces (a signature such as "f(character varying)").
reason_for() {
    awk -v n="$1" 'index($0, n) == 1 && substr($0, length(n) + 1, 1) ~ /[ \t]/ {
        r = substr($0, length(n) + 1); sub(/^[ \t]+/, "", r); print r; exit }' "$2"
}

# The reason given in known_bugs for a scenario, if any.
known_bug() {
    [ -f "$known_bugs" ] && [ "${COMPAT_SELF_TEST:-0}" != 1 ] || return 0
    reason_for "$1" "$known_bugs"
}

# The reason a function's result columns differ on purpose, or nothing.
intended_signature() {
    [ -f "$intended_signatures" ] && [ "${COMPAT_SELF_TEST:-0}" != 1 ] || return 0
    reason_for "$1" "$intended_signatures"
}

# Runs one scenario file on one database; output and errors, in order.
# Two kinds of lines vary between runs and are normalized: the statement
# excerpt PostgreSQL prints under an error (QUERY:/LINE n:/caret lines; the
# reference's internal statements embed timestamps), and the backend PID of
# a notification.
run_scenario() {
    local db=$1 file=$2 dest=$3
    (cd "$scenarios" && psql -X -a -q -A -F ' | ' -P footer=off -P null='<null>' \
        -v VERBOSITY=default -v SHOW_CONTEXT=never -d "$db" -f "$(basename "$file")") 2>&1 |
        sed -E -e '/^QUERY:  /d' -e '/^LINE [0-9]+: /d' -e '/^ +\^$/d' \
            -e 's/(received from server process with PID) [0-9]+/\1 <pid>/' >"$dest" || true
}

# Every function of the reference: name(input types) | result shape (OUT
# columns with their names and types, SETOF). The extension must have the
# same shape for each one it has; the ones it lacks are listed.
signatures() {
    psql_db "$1" -A -t -F '|' <<'SQL'
SELECT p.proname || '(' || pg_catalog.oidvectortypes(p.proargtypes) || ')',
       CASE WHEN p.proretset THEN 'SETOF ' ELSE '' END ||
       COALESCE((SELECT '(' || string_agg(a.n || ' ' || format_type(a.t, NULL), ', ' ORDER BY a.i) || ')'
                 FROM unnest(p.proargnames, p.proallargtypes, p.proargmodes)
                      WITH ORDINALITY AS a(n, t, m, i)
                 WHERE a.m IN ('o', 't', 'b')),
                format_type(p.prorettype, NULL))
FROM pg_catalog.pg_proc p
WHERE p.pronamespace = 'fetchq'::regnamespace
ORDER BY 1;
SQL
}

# A known bug "signature:f(types)" in known_bugs excuses that one function
# (XFAIL), and fails once its shape matches (XPASS).
check_signatures() {
    signatures "$ref_db" >"$out/signatures.ref"
    signatures "$ext_db" >"$out/signatures.ext"
    awk -F'|' 'NR == FNR { ext[$1] = $2; next }
               !($1 in ext) { print "missing " $1 > "/dev/stderr"; next }
               ext[$1] != $2 { print $1 "|reference " $2 ", extension " ext[$1]; next }
               { print $1 "|same" > "/dev/fd/3" }' \
        "$out/signatures.ext" "$out/signatures.ref" >"$out/signatures.diff" \
        2>"$out/signatures.missing" 3>"$out/signatures.same"
    local missing fn what bug status=0
    missing=$(wc -l <"$out/signatures.missing")
    local intended
    while IFS='|' read -r fn what; do
        bug=$(known_bug "signature:$fn")
        intended=$(intended_signature "$fn")
        if [ -n "$intended" ]; then
            say "ok   signature of $fn differs as intended: $what ($intended)"
        elif [ -n "$bug" ]; then
            say "XFAIL signature of $fn: $what (known extension bug: $bug)"
            xfails+=("signature:$fn")
            xfailed=$((xfailed + 1))
        else
            say "FAIL signature of $fn: $what"
            status=1
        fi
    done <"$out/signatures.diff"
    while IFS='|' read -r fn what; do
        if [ -n "$(known_bug "signature:$fn")" ]; then
            say "FAIL signature of $fn matches the reference now (XPASS): remove it from $known_bugs"
            status=1
        fi
    done <"$out/signatures.same"
    [ "$status" = 0 ] &&
        say "ok   signatures ($(wc -l <"$out/signatures.same") functions with the reference's arguments and results)"
    if [ "$missing" -gt 0 ]; then
        say "!!! the extension lacks $missing functions of the reference: $(sed 's/^missing //' "$out/signatures.missing" | paste -sd' ' -)"
    fi
    return "$status"
}

main() {
    mkdir -p "$out"
    rm -f "$out"/*.out "$out"/*.diff
    local sql
    sql=$(fetch_reference)
    create_databases
    install_reference "$sql"
    # Self-test: the reference on both sides shows what is not deterministic.
    [ "${COMPAT_SELF_TEST:-0}" = 1 ] && install_reference "$sql" "$ext_db"

    local passed=0 failed=0 skipped=0 expected=0 xfailed=0
    local failures=() skips=() xfails=()
    if [ -z "${COMPAT_ONLY:-}" ]; then
        if check_signatures; then passed=$((passed + 1)); else
            failures+=(signatures)
            failed=$((failed + 1))
        fi
    fi
    for file in "$scenarios"/*.sql; do
        local name
        name=$(basename "$file" .sql)
        [ -n "${COMPAT_ONLY:-}" ] && [ "$name" != "$COMPAT_ONLY" ] && continue
        local recorded=$expected_dir/$name.diff
        local is_defects=false
        [[ $name == defects_* ]] && [ "${COMPAT_SELF_TEST:-0}" != 1 ] && is_defects=true
        if ! $is_defects && [ -f "$recorded" ] && [ "${COMPAT_SELF_TEST:-0}" != 1 ]; then
            say "FAIL $name: only defects_* scenarios may have recorded differences ($recorded)"
            failures+=("$name")
            failed=$((failed + 1))
            continue
        fi

        local bug
        bug=$(known_bug "$name")
        if $is_defects && [ -n "$bug" ]; then
            say "FAIL $name: defects_* scenarios cannot be known bugs ($known_bugs)"
            failures+=("$name")
            failed=$((failed + 1))
            continue
        fi
        local lacking_ref lacking_ext
        lacking_ref=$(missing_functions "$ref_db" "$file")
        if [ -n "$lacking_ref" ]; then
            say "FAIL $name: the reference has no $(paste -sd" " - <<<"$lacking_ref")"
            failures+=("$name")
            failed=$((failed + 1))
            continue
        fi
        lacking_ext=$(missing_functions "$ext_db" "$file")
        if [ -n "$lacking_ext" ]; then
            say "SKIP $name: the extension has no $(paste -sd" " - <<<"$lacking_ext")"
            skips+=("$name")
            skipped=$((skipped + 1))
            continue
        fi

        run_scenario "$ref_db" "$file" "$out/$name.ref.out"
        run_scenario "$ext_db" "$file" "$out/$name.ext.out"
        local actual=$out/$name.diff
        diff -u --label "reference fetchq@$REF_VERSION" --label "extension" \
            "$out/$name.ref.out" "$out/$name.ext.out" >"$actual" || true

        if $is_defects && [ "${COMPAT_RECORD:-0}" = 1 ]; then
            mkdir -p "$expected_dir"
            cp "$actual" "$recorded"
            say "recorded $name ($(grep -c '^[-+][^-+]' "$recorded" || true) differing lines)"
        fi
        if $is_defects; then
            if [ ! -f "$recorded" ]; then
                say "FAIL $name: no recorded differences ($recorded); see $actual"
            elif cmp -s "$actual" "$recorded"; then
                say "ok   $name (exactly the recorded differences)"
                passed=$((passed + 1))
                expected=$((expected + 1))
                continue
            else
                say "FAIL $name: the differences are not the recorded ones:"
                diff -u --label recorded --label actual "$recorded" "$actual" | sed 's/^/    /' || true
            fi
        elif [ -n "$bug" ]; then
            if [ -s "$actual" ]; then
                say "XFAIL $name (known extension bug: $bug); see $actual"
                xfails+=("$name")
                xfailed=$((xfailed + 1))
                continue
            fi
            say "FAIL $name: matches the reference now (XPASS): remove it from $known_bugs"
        elif [ -s "$actual" ]; then
            say "FAIL $name: the extension differs from the reference:"
            sed 's/^/    /' "$actual"
        else
            say "ok   $name"
            passed=$((passed + 1))
            continue
        fi
        failures+=("$name")
        failed=$((failed + 1))
    done

    echo
    say "$passed passed ($expected of them with recorded differences), $failed failed, $skipped skipped, $xfailed known bugs"
    if [ "$skipped" -gt 0 ]; then
        say "!!! SKIPPED (the extension lacks functions they call): ${skips[*]}"
    fi
    if [ "$xfailed" -gt 0 ]; then
        say "!!! KNOWN EXTENSION BUGS (differ from the reference, see $known_bugs): ${xfails[*]}"
    fi
    [ "$failed" -gt 0 ] && say "failed: ${failures[*]}; outputs in $out"
    [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ] && say "nothing ran" && return 1
    [ "$failed" -gt 0 ] && return 1
    [ $((skipped + xfailed)) -gt 0 ] && [ "${COMPAT_STRICT:-0}" = 1 ] && return 1
    return 0
}

main
