#!/usr/bin/env bash
# Behind PgBouncer in transaction mode (Debian's pgbouncer, started here with
# a pool of one server connection per database): a temporary queue belongs to
# the pooled server session and outlives the client that made it; with an
# idle timeout the scheduler drops it anyway. A request/reply round trip
# through a temporary reply queue (doc_send with reply_to, doc_reply), and
# the waiting pick, work through it.
# Env: PGHOST PGPORT PGUSER (a superuser) of a server with
# shared_preload_libraries = 'fetchq'; $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"
command -v pgbouncer >/dev/null || { echo "FAIL: pgbouncer is not installed (scripts/install-deps.sh)"; exit 1; }

dir=$(mktemp -d /tmp/fetchq-pgbouncer.XXXXXX)
port=$((20000 + RANDOM % 20000))
as_server_user() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
    [ -f "$dir/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT

cat >"$dir/pgbouncer.ini" <<INI
[databases]
$db = host=$PGHOST port=$PGPORT dbname=$db user=${PGUSER:-postgres}
[pgbouncer]
listen_addr =
listen_port = $port
unix_socket_dir = $dir
auth_type = trust
auth_file = $dir/users.txt
pool_mode = transaction
default_pool_size = 2
max_client_conn = 20
server_idle_timeout = 600
pidfile = $dir/pgbouncer.pid
logfile = $dir/pgbouncer.log
ignore_startup_parameters = extra_float_digits,options
INI
echo "\"${PGUSER:-postgres}\" \"\"" >"$dir/users.txt"
[ "$(id -u)" = 0 ] && chown -R postgres "$dir"
as_server_user pgbouncer -d "$dir/pgbouncer.ini"
# bq SQL: through the pooler.
bq() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -d "$db" -c "$1"; }
deadline=$((SECONDS + 10))
until bq "SELECT 1" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { echo "FAIL: pgbouncer did not start"; cat "$dir/pgbouncer.log"; exit 1; }
    sleep 0.2
done
ok "pgbouncer runs in transaction mode"

q "SELECT fetchq.queue_create('pb_requests')" >/dev/null
# A client makes a reply queue and leaves.
kept=$(bq "SELECT fetchq.queue_create_temporary()")
# Long enough for the request and reply below on a busy machine.
reply=$(bq "SELECT fetchq.queue_create_temporary(idle_timeout => '10 seconds')")
check "a temporary queue made through the pooler outlives its client" \
    "$(q "SELECT count(*) FROM fetchq.queues WHERE name IN ('$kept', '$reply')")" 2
check "... its session, the pooled server connection, is still alive" \
    "$(q "SELECT count(*) FROM fetchq.temporary_queues AS t JOIN pg_stat_activity AS a ON a.pid = (t.session_key >> 32)
          WHERE t.name = '$kept' AND a.backend_type = 'client backend'")" 1

# Request and reply, each a client of the pooler.
bq "SELECT fetchq.doc_send(queue => 'pb_requests', subject => 'req1',
                           payload => jsonb_build_object('n', 20), reply_to => '$reply')" >/dev/null
bq "SELECT fetchq.doc_reply(queue => 'pb_requests', subject => r.subject,
                            payload => jsonb_build_object('answer', (r.payload ->> 'n')::int * 2))
    FROM fetchq.doc_pick('pb_requests', 0, 1, '1 minute') AS r" >/dev/null
check "a reply (doc_reply) delivered into the reply queue by another client of the pool" \
    "$(bq "SELECT subject || ' ' || (payload ->> 'answer') FROM fetchq.doc_pick('$reply', 0, 1, '1 minute')")" "req1 40"
check "... and the request completed with it" \
    "$(q "SELECT status FROM fetchq_data.pb_requests__docs WHERE subject = 'req1'")" 3

# The waiting pick holds its server connection while it waits.
psql -X -q -At -h "$dir" -p "$port" -d "$db" \
    -c "CALL fetchq.doc_pick_wait('pb_requests', 0, 1, '1 minute', '20 seconds', NULL)" >"$dir/waited" 2>&1 &
waiter=$!
wait_for "a waiting pick through the pooler sleeps with no snapshot" 10 \
    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Extension' AND backend_xmin IS NULL AND query LIKE 'CALL fetchq.doc_pick_wait%'" 1
bq "SELECT fetchq.doc_push('pb_requests', 'req2')" >/dev/null
wait "$waiter" || true
check_has "... and a push through the pooler wakes it" "$(cat "$dir/waited")" '"subject": "req2"'

wait_for "left idle, the reply queue is dropped while the pooled session lives" 30 \
    "SELECT count(*) FROM fetchq.queues WHERE name = '$reply'" 0
check "a temporary queue without idle timeout stays with the pooled session" \
    "$(q "SELECT count(*) FROM fetchq.queues WHERE name = '$kept'")" 1

echo
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all pgbouncer checks passed"
