#!/usr/bin/env bash
# Builds fetchq, installs it into the system's PostgreSQL 15, starts a
# throwaway cluster with the library preloaded (left running), and walks one
# queue through a job's life; at the end, one document crosses to a second
# database of the cluster over a remote route (wal_level = logical). FETCHQ_DEMO_DIR (default /tmp/fetchq-demo) holds
# the cluster; a previous demo cluster there is stopped and replaced.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd -P)
export LANG=C.UTF-8 PGCLIENTENCODING=UTF8
unset LC_ALL PGDATABASE PGSERVICE PGOPTIONS

SYS_PGBIN=/usr/lib/postgresql/15/bin
DIR=${FETCHQ_DEMO_DIR:-/tmp/fetchq-demo}
DB=fetchq_demo
DB_B=fetchq_demo_billing
if [ "$(id -u)" = 0 ]; then SUDO=(); else SUDO=(sudo); fi

echo "== installing dependencies"
scripts/install-deps.sh

echo "== building"
mkdir -p build
if ! make -j2 PG_CONFIG=$SYS_PGBIN/pg_config >build/demo-build.log 2>&1; then
    grep -E -A5 '(warning|error):' build/demo-build.log || tail -n 40 build/demo-build.log
    echo "build failed (build/demo-build.log)" >&2
    exit 1
fi
grep -E -A3 'warning:' build/demo-build.log || true

echo "== installing into the system PostgreSQL ($("$SYS_PGBIN/pg_config" --pkglibdir))"
"${SUDO[@]}" make install PG_CONFIG=$SYS_PGBIN/pg_config >/dev/null

echo "== starting a throwaway cluster in $DIR"
if [ -e "$DIR" ]; then
    if [ ! -f "$DIR/data/PG_VERSION" ] && [ -n "$(ls -A "$DIR")" ]; then
        echo "$DIR exists and is not a demo cluster: set FETCHQ_DEMO_DIR elsewhere" >&2
        exit 1
    fi
    PGBIN=$SYS_PGBIN scripts/pg_cluster.sh stop "$DIR"
    rm -rf "$DIR"
fi
PORT=$(PGBIN=$SYS_PGBIN scripts/pg_cluster.sh start "$DIR" "wal_level = logical")
export PGHOST=$DIR PGPORT=$PORT PGUSER=postgres
psql -X -q -d postgres -c "CREATE DATABASE $DB"

echo "== the demo (each statement is echoed, then its result)"
psql -X -q -e -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
\pset footer off
\echo
\echo '-- Install the extension in this database.'
CREATE EXTENSION fetchq;

\echo
\echo '-- Create a queue: its documents live in fetchq_data.demo__docs.'
SELECT * FROM fetchq.queue_create('demo');

\echo
\echo '-- Push four documents (queue, subject, version, priority, next_iteration, payload).'
\echo '-- The last one is planned an hour ahead: it will not be picked before then.'
SELECT * FROM fetchq.doc_push('demo', 'send-welcome-mail', 0, 0, now(), '{"to": "ada@example.com"}');
SELECT * FROM fetchq.doc_push('demo', 'resize-avatar', 0, 5, now(), '{"user": 42}');
SELECT * FROM fetchq.doc_push('demo', 'charge-card', 0, 0, now(), '{"amount": 10}');
SELECT * FROM fetchq.doc_push('demo', 'weekly-report', 0, 0, now() + interval '1 hour', '{}');

\echo
\echo '-- Status: 0 planned, 1 pending, 2 active (picked), 3 completed, -1 killed.'
SELECT subject, status, priority, attempts, next_iteration > now() AS in_the_future
FROM fetchq_data.demo__docs ORDER BY priority DESC, created_at;

\echo
\echo '-- A worker picks two documents and locks them for 5 minutes (highest priority first).'
SELECT subject, payload, attempts FROM fetchq.doc_pick('demo', 0, 2, '5m');

\echo
\echo '-- One job succeeds: complete it, storing a new payload.'
SELECT * FROM fetchq.doc_complete('demo', 'resize-avatar', '{"user": 42, "done": true}');

\echo
\echo '-- The other fails: reject it. It goes back to pending and the error is logged.'
SELECT * FROM fetchq.doc_reject('demo', 'send-welcome-mail', 'SMTP server did not answer',
                                '{"smtp": "mail.example.com"}');
SELECT subject, message, details FROM fetchq_data.demo__logs;

\echo
\echo '-- The documents now.'
SELECT subject, status, attempts FROM fetchq_data.demo__docs ORDER BY priority DESC, created_at;

\echo
\echo '-- Counters of the queue (updated as each transaction commits).'
\set ECHO none
\set ECHO queries
SELECT * FROM fetchq.metric_get_common('demo');

\echo
\echo -- No client runs any maintenance: the server does. A document due in one second...
SELECT * FROM fetchq.doc_push('demo', 'in-a-second', 0, 0, clock_timestamp() + interval '1 second', '{}');
SELECT pg_sleep(1.2);
\echo -- ... was made pending by the fetchq scheduler when it became due.
SELECT subject, status FROM fetchq_data.demo__docs WHERE subject = 'in-a-second';
SELECT task, runs, rows_total FROM fetchq.worker_status()
WHERE datname = current_database() AND task IN ('promote', 'orphans', 'expire');

\echo
\echo '-- Publish/subscribe: a topic keeps nothing; each subscription gets a copy of what'
\echo '-- matches its selector (a SQL/JSON path predicate), in the pushing transaction.'
SELECT * FROM fetchq.topic_create('orders');
SELECT fetchq.subscribe('orders', 'billing');
SELECT fetchq.subscribe('orders', 'big_orders', '$.amount > 100');
SELECT fetchq.doc_push('orders', 'order-1', '{"amount": 250}') AS subscriptions_reached;
SELECT fetchq.doc_push('orders', 'order-2', '{"amount": 20}') AS subscriptions_reached;
SELECT 'billing' AS queue, subject FROM fetchq_data.billing__docs
UNION ALL SELECT 'big_orders', subject FROM fetchq_data.big_orders__docs ORDER BY 1, 2;

\echo
\echo '-- A pick that waits (here up to 2 s) holding no snapshot; a CALL, as it commits.'
CALL fetchq.doc_pick_wait('big_orders', 0, 10, '1 minute', '2 seconds', NULL);

\echo
\echo '-- Per-queue privileges: a role that may only push into billing, and no table at all.'
CREATE ROLE demo_web;
GRANT USAGE ON SCHEMA fetchq, fetchq_data TO demo_web;
SELECT fetchq.queue_grant('billing', 'demo_web', 'push');
SET ROLE demo_web;
SELECT fetchq.doc_push('billing', 'order-3', '{"amount": 5}') AS pushed;
\set ON_ERROR_STOP off
SELECT count(*) FROM fetchq.doc_pick('billing');
SELECT count(*) FROM fetchq_data.billing__docs;
\set ON_ERROR_STOP on
RESET ROLE;
SELECT * FROM fetchq.queue_privileges;

\echo
\echo '-- Request and response: the request names a reply queue (here a temporary queue'
\echo '-- of this session); the responder answers and completes it in one transaction.'
SELECT * FROM fetchq.queue_create('quotes');
SELECT fetchq.queue_create_temporary() AS reply_queue \gset
SELECT fetchq.doc_send(queue => 'quotes', subject => 'quote-1',
                       payload => '{"sku": "A1", "qty": 3}', reply_to => :'reply_queue') AS sent;
SELECT fetchq.doc_reply(queue => 'quotes', subject => r.subject,
                        payload => jsonb_build_object('price', 10 * (r.payload ->> 'qty')::int)) AS replied
FROM fetchq.doc_pick('quotes', 0, 1, '1 minute') AS r;
SELECT subject, payload FROM fetchq.doc_pick(:'reply_queue', 0, 1, '1 minute');

\echo
\echo '-- Streams: an ordered log per key, offsets 1, 2, 3 ... in commit order, and a'
\echo '-- committed offset per consumer group, moved in the same transaction as its work.'
SELECT * FROM fetchq.stream_create('payments');
SELECT fetchq.stream_append('payments', 'customer-7', '{"paid": 10}') AS "offset";
SELECT fetchq.stream_append('payments', 'customer-7', '{"paid": 15}') AS "offset";
SELECT fetchq.stream_append('payments', 'customer-9', '{"paid": 99}') AS "offset";
SELECT key FROM fetchq.stream_claim('payments', 'ledger', max_keys => 2);
SELECT * FROM fetchq.stream_read('payments', 'ledger', 'customer-7');
SELECT fetchq.stream_commit('payments', 'ledger', 'customer-7', 1) AS committed;
SELECT stream, group_name, lag FROM fetchq.stream_lag;

\echo
\echo '-- Periodic schedules: the scheduler pushes a document at each tick (a cron'
\echo '-- expression or an interval), its subject made from the tick; a worker picks them.'
SELECT * FROM fetchq.queue_create('reports');
SELECT fetchq.schedule_create(name => 'refresh', queue => 'reports', every => '2 seconds',
                              subject => 'refresh-{tick}') AS first_tick;
SELECT pg_sleep(4.5);
SELECT subject, next_iteration FROM fetchq.doc_pick('reports', 0, 10, '1 minute') ORDER BY subject;
SELECT name, every, next_at, last_subject FROM fetchq.schedules;
SELECT fetchq.schedule_drop('refresh');
SQL

echo
echo "== a remote route: a document crosses to a second database ($DB_B), over logical replication"
psql -X -q -d postgres -c "CREATE DATABASE $DB_B"
psql -X -q -e -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
\pset footer off
\echo '-- On the sending database: documents of queue orders go to queue invoices of'
\echo '-- the database that subscribes as "billing" (this makes the publication).'
SELECT * FROM fetchq.queue_create('orders');
SELECT fetchq.remote_route_create('orders', 'billing/invoices') AS route_id;
\echo '-- Within one cluster, the slot is created first (a subscription cannot make it).'
SELECT slot_name FROM pg_create_logical_replication_slot('fetchq_remote_billing', 'pgoutput');
SQL
psql -X -q -e -v ON_ERROR_STOP=1 -d "$DB_B" <<SQL
\pset footer off
\echo '-- On the receiving database: subscribe as "billing"; deliveries run with the'
\echo '-- rights of the role named (here the superuser of the demo).'
CREATE EXTENSION fetchq;
SELECT * FROM fetchq.queue_create('invoices');
SELECT fetchq.remote_subscribe('billing', 'host=$DIR port=$PORT dbname=$DB user=postgres',
                               'postgres', create_slot => false);
SQL
psql -X -q -e -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
\pset footer off
\echo '-- Back on the sending database, the application pushes in its transaction.'
SELECT fetchq.doc_push('orders', 'order-1', '{"total": 12}');
SQL
psql -X -q -e -v ON_ERROR_STOP=1 -d "$DB_B" <<'SQL'
\pset footer off
\echo '-- On the receiving database, a moment after the commit (waits up to 30 s):'
DO $$ BEGIN
    FOR i IN 1..300 LOOP
        EXIT WHEN EXISTS (SELECT FROM fetchq_data.invoices__docs WHERE subject = 'order-1');
        PERFORM pg_sleep(0.1);
    END LOOP;
END $$;
SELECT subject, payload FROM fetchq.doc_pick('invoices', 0, 1, '1 minute');
SELECT source_db, seenby, link FROM fetchq.doc_origin('invoices', 'order-1');
SELECT link, delivered, last_arrival IS NOT NULL AS arrived FROM fetchq.remote_subscription_status;
SQL

cat <<EOF

== the cluster is still running
connect:  psql -h $DIR -p $PORT -U postgres $DB   (and $DB_B)
stop:     PGBIN=$SYS_PGBIN $ROOT/scripts/pg_cluster.sh stop $DIR
EOF
