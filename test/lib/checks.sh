# The assertions of the shell tests, sourced by them after setting $db (the
# database the statements run in). Each check prints "ok: ..." or
# "FAIL: ..." and counts the failures in $failures; the test exits non-zero
# when it is not 0.
failures=0

# q SQL: the statement's output (unaligned, tuples only); an error stops the test.
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "$1"; }

ok() { echo "ok: $1"; }
fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}

# check DESCRIPTION GOT WANT
check() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1 (wanted '$3', got '$2')"; fi; }

# check_has DESCRIPTION TEXT PATTERN (extended regex)
check_has() {
    if grep -Eq -- "$3" <<<"$2"; then ok "$1"; else fail "$1 (no /$3/ in: $2)"; fi
}

# wait_for_in DESCRIPTION SECONDS DB SQL EXPECTED: polls until SQL, run in
# DB, returns EXPECTED, or fails at the deadline (errors meanwhile count as
# not yet). wait_for DESCRIPTION SECONDS SQL EXPECTED: the same in $db.
wait_for_in() {
    local what=$1 secs=$2 in=$3 sql=$4 want=$5 got=""
    local deadline=$((SECONDS + secs))
    while [ $SECONDS -lt $deadline ]; do
        got=$(psql -X -q -At -d "$in" -c "$sql" 2>/dev/null || true)
        if [ "$got" = "$want" ]; then
            ok "$what"
            return 0
        fi
        sleep 0.2
    done
    fail "$what (wanted '$want', got '$got' after ${secs}s)"
}
wait_for() { wait_for_in "$1" "$2" "$db" "$3" "$4"; }
