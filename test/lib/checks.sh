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

# wait_applied SETTING VALUE: after ALTER SYSTEM SET SETTING (the last one
# changed) and pg_reload_conf(), waits until $db's scheduler is bound to use
# the new configuration for whatever it does next. First the postmaster
# re-read the file: a new session shows VALUE (pg_settings.setting, in the
# setting's base unit); it signals every process before it accepts the next
# session. In that one, the scheduler is seen asleep on its latch (wait event
# Extension): from there, the first thing it does is to apply the file.
# A fixed sleep instead would be outrun by a busy machine.
wait_applied() {
    wait_for "the server read the new configuration ($1 = $2)" 30 \
        "SELECT setting FROM pg_settings WHERE name = '$1'" "$2"
    wait_for "the scheduler sleeps between rounds" 30 \
        "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler'
           AND datname = current_database() AND wait_event_type = 'Extension'" 1
}

# wait_for_output FILE SECONDS: waits until FILE, where a background session
# prints, holds a line. Its statement's effects can be seen by others before
# its client printed the result.
wait_for_output() {
    local deadline=$((SECONDS + $2))
    while ! grep -q . "$1" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
}
