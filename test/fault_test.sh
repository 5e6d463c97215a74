#!/usr/bin/env bash
# Every kind of entry where PostgreSQL calls into fetchq outside an SQL
# function (transaction and subtransaction callbacks, the utility hook, an
# exit callback, the scheduler's and the launcher's main) turns a C++
# exception into a clean ERROR, WARNING or LOG: the superuser-only setting
# fetchq.fault_injection makes fetchq throw there on purpose. The server log
# must show the report and no crash (test.sh scans it for crashes as well).
# Env: PGHOST (the cluster's directory, which holds server.log) PGPORT PGUSER;
# $1: a database with the extension.
set -euo pipefail
db=$1
log=$PGHOST/server.log
source "$(dirname "$0")/lib/checks.sh"

# wait_for_log DESCRIPTION SECONDS PATTERN: a new line of the server log.
log_start=$(wc -l <"$log")
wait_for_log() {
    local what=$1 secs=$2 pattern=$3
    local deadline=$((SECONDS + secs))
    while [ $SECONDS -lt $deadline ]; do
        if tail -n +"$log_start" "$log" | grep -Eq -- "$pattern"; then
            ok "$what"
            return 0
        fi
        sleep 0.2
    done
    fail "$what (no /$pattern/ in the server log after ${secs}s)"
}

cleanup() {
    psql -X -q -d postgres -c "ALTER SYSTEM RESET fetchq.fault_injection" \
        -c "SELECT pg_reload_conf()" >/dev/null 2>&1 || true
    psql -X -q -d postgres -c "ALTER DATABASE \"$db\" RESET fetchq.fault_injection" \
        >/dev/null 2>&1 || true
}
trap cleanup EXIT

q "SELECT fetchq.queue_create('fault_q')" >/dev/null

out=$(psql -X -q -At -d "$db" 2>&1 <<'SQL' || true
SET fetchq.fault_injection = 'subxact_callback';
BEGIN;
SAVEPOINT s;
SELECT fetchq.doc_push('fault_q', 'in_savepoint', 0, 0, now(), '{}');
RELEASE SAVEPOINT s;
COMMIT;
SQL
)
check_has "a fault in the subtransaction callback is a clean ERROR" "$out" \
    "ERROR:  fault injected at subxact_callback"
check "... and the transaction is rolled back" \
    "$(q "SELECT count(*) FROM fetchq_data.fault_q__docs WHERE subject = 'in_savepoint'")" 0

out=$(psql -X -q -At -d "$db" 2>&1 <<'SQL' || true
SET fetchq.fault_injection = 'xact_callback';
SELECT fetchq.doc_push('fault_q', 'committed', 0, 0, now(), '{}');
SQL
)
check_has "a fault in the callback after a commit is a WARNING" "$out" \
    "WARNING:  fetchq: xact_callback: fault injected at xact_callback"
check "... and the commit stands" \
    "$(q "SELECT count(*) FROM fetchq_data.fault_q__docs WHERE subject = 'committed'")" 1

out=$(psql -X -q -At -d "$db" 2>&1 <<'SQL' || true
SET fetchq.fault_injection = 'utility_hook';
CREATE TABLE fault_table (x int);
SQL
)
check_has "a fault in the utility hook is a clean ERROR" "$out" \
    "ERROR:  fault injected at utility_hook"
check "... and the statement did not run" "$(q "SELECT to_regclass('fault_table') IS NULL")" t

psql -X -q -At -d "$db" >/dev/null 2>&1 <<'SQL' || true
SET fetchq.fault_injection = 'session_exit';
SELECT fetchq.queue_create_temporary();
SQL
wait_for_log "a fault in the session's exit callback is a LOG line" 10 \
    "LOG:  fetchq: session_exit: fault injected at session_exit"
check "the server still answers" "$(q "SELECT 1")" 1

out=$(psql -X -q -At -d "$db" -c "SET ROLE pg_monitor" -c "SET fetchq.fault_injection = 'xact_callback'" 2>&1 || true)
check_has "only a superuser sets fetchq.fault_injection" "$out" "permission denied"

# The scheduler: it reads the database's settings when it starts.
q "ALTER DATABASE \"$db\" SET fetchq.fault_injection = 'scheduler_main'"
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = current_database()" >/dev/null
wait_for_log "a fault in the scheduler's main is a clean ERROR, and the worker exits" 30 \
    "ERROR:  fault injected at scheduler_main"
q "ALTER DATABASE \"$db\" RESET fetchq.fault_injection"
wait_for "the launcher starts the scheduler again" 60 \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = current_database()" 1

# The launcher: it reads postgresql.conf when it starts.
psql -X -q -d postgres -c "ALTER SYSTEM SET fetchq.fault_injection = 'launcher_main'" \
    -c "SELECT pg_reload_conf()" >/dev/null
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'fetchq launcher'" >/dev/null
wait_for_log "a fault in the launcher's main is a clean ERROR, and the worker exits" 30 \
    "ERROR:  fault injected at launcher_main"
psql -X -q -d postgres -c "ALTER SYSTEM RESET fetchq.fault_injection" \
    -c "SELECT pg_reload_conf()" >/dev/null
wait_for "the postmaster starts the launcher again" 60 \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'fetchq launcher'" 1

if tail -n +"$log_start" "$log" | grep -E "terminated by signal|PANIC:|TRAP:"; then
    fail "the server log shows a crash"
else
    ok "no crash in the server log"
fi

echo
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "every injected fault was reported cleanly"
