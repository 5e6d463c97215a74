#!/usr/bin/env bash
# The update from 0.1.0, on a cluster and a PostgreSQL install of its own:
# 0.1.0 is built from the repository's history (tag v0.1.0), databases are
# made under it with queues in every state, then this version's library and
# scripts replace it as a package upgrade would (fetchq--0.1.0.sql goes) and
# the server restarts:
# - until ALTER EXTENSION fetchq UPDATE, every call into the old SQL is
#   refused with a hint naming it, and the scheduler says once that it waits;
# - after it, the catalog is exactly a fresh install's (test/upgrade/catalog.sql
#   diffed, per-queue tables included), every row 0.1.0 had is unchanged, the
#   API works, info() agrees with pg_extension, the waiting scheduler resumes
#   and promotes a due document, and a temporary queue of 0.1.0 is dropped.
# $1 (the runner's database) is not used.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
SYS_PGBIN=/usr/lib/postgresql/15/bin
# shellcheck source=test/lib/checks.sh
. "$here/test/lib/checks.sh"
. "$here/test/lib/own_clusters.sh"
own_clusters upgrade
work=$dir
root=$work/root
export PGBIN=$root/usr/lib/postgresql/15/bin
started=$SECONDS
db=up

# --- 0.1.0, built from history ----------------------------------------------
# The tag; else the commit it names (a clone without tags).
old=$(git -C "$here" rev-parse -q --verify 'v0.1.0^{commit}' ||
    git -C "$here" rev-parse -q --verify '5e3fcdf5477290952fc400819a3522fa5f211557^{commit}') || {
    echo "FAIL: 0.1.0 (tag v0.1.0, commit 5e3fcdf) is not in this clone's history"
    exit 1
}
src=$here/build/upgrade/v0.1.0
if [ "$(cat "$src/.commit" 2>/dev/null)" != "$old" ] || [ ! -f "$src/fetchq.so" ]; then
    rm -rf "$src"
    mkdir -p "$src"
    git -C "$here" archive "$old" | tar -x -C "$src"
    make -C "$src" -j2 PG_CONFIG=$SYS_PGBIN/pg_config >"$src/build.log" 2>&1 || {
        tail -n 30 "$src/build.log"
        echo "FAIL: build of 0.1.0"
        exit 1
    }
    echo "$old" >"$src/.commit"
fi
echo "0.1.0: commit ${old:0:7}, built in $src"

# A private copy of PostgreSQL 15 with 0.1.0 installed, as from its package.
mkdir -p "$root/usr/lib/postgresql" "$root/usr/share/postgresql"
cp -a /usr/lib/postgresql/15 "$root/usr/lib/postgresql/"
cp -a /usr/share/postgresql/15 "$root/usr/share/postgresql/"
rm -f "$root"/usr/lib/postgresql/15/lib/fetchq.so "$root"/usr/share/postgresql/15/extension/fetchq*
make -C "$src" install DESTDIR="$root" PG_CONFIG=$SYS_PGBIN/pg_config >/dev/null
[ "$(id -u)" = 0 ] && chmod -R a+rX "$work"

port=$("$here/scripts/pg_cluster.sh" start "$work/cluster" "fetchq.naptime = 500")
export PGHOST=$work/cluster PGPORT=$port PGUSER=postgres
in_db() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }

# --- databases under 0.1.0 ----------------------------------------------------
# make_queues DB: the extension and the queues that "up" has under 0.1.0 and
# "fresh" under this version, for the catalogs to be compared; among them a
# queue of a role with the privileges 0.1.0's install.md gives an application
# role that creates queues.
psql -X -q -d postgres -c "CREATE ROLE fq_app"
make_queues() {
    psql -X -q -v ON_ERROR_STOP=1 -d "$1" >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION fetchq;
SELECT * FROM fetchq.queue_create('q_states');
SELECT * FROM fetchq.queue_create('q_notify');
SELECT * FROM fetchq.queue_create('q_tmp');
SELECT * FROM fetchq.queue_enable_notify('q_notify');
GRANT USAGE ON SCHEMA fetchq, fetchq_data TO fq_app;
GRANT CREATE ON SCHEMA fetchq_data TO fq_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON fetchq.queues, fetchq.counters, fetchq.custom_counters,
    fetchq.metrics_writes, fetchq.jobs TO fq_app;
GRANT USAGE, SELECT ON SEQUENCE fetchq.queues_id_seq, fetchq.custom_counters_id_seq,
    fetchq.jobs_id_seq TO fq_app;
SET ROLE fq_app;
SELECT * FROM fetchq.queue_create('q_app');
SQL
}
# "up": every document state, logs, metrics, settings and jobs; its scheduler
# idle, so that nothing moves between the two snapshots. "live": a scheduler
# that runs, and a planned document.
psql -X -q -d postgres -c "CREATE DATABASE up" -c "ALTER DATABASE up SET fetchq.enabled = off" \
    -c "CREATE DATABASE live"
make_queues up
psql -X -q -v ON_ERROR_STOP=1 -d up >/dev/null <<'SQL'
SELECT * FROM fetchq.queue_set_max_attempts('q_states', 3);
SELECT * FROM fetchq.queue_set_logs_retention('q_states', '2 days');
SELECT * FROM fetchq.doc_push('q_states', 'planned', 0, 0, now() + interval '1 day', '{"s": "planned"}');
SELECT * FROM fetchq.doc_push('q_states', 'pending', 0, 2, now() - interval '1 minute', '{"s": "pending"}');
SELECT * FROM fetchq.doc_push('q_states', 'v1', 1, 0, now() - interval '1 minute', NULL);
SELECT * FROM fetchq.doc_push('q_states', 'active', 0, 9, now() - interval '2 minutes', '{"s": "active"}');
SELECT * FROM fetchq.doc_push('q_states', 'completed', 0, 8, now() - interval '2 minutes', '{}');
SELECT * FROM fetchq.doc_push('q_states', 'killed', 0, 7, now() - interval '2 minutes', '{}');
SELECT * FROM fetchq.doc_push('q_states', 'rejected', 0, 6, now() - interval '2 minutes', '{}');
SELECT * FROM fetchq.doc_pick('q_states', 0, 4, '5m');
SELECT * FROM fetchq.doc_complete('q_states', 'completed', '{"done": true}');
SELECT * FROM fetchq.doc_kill('q_states', 'killed', '{"dead": true}');
SELECT * FROM fetchq.doc_reject('q_states', 'rejected', 'it failed', '{"why": 1}', 'ref-1');
SELECT * FROM fetchq.doc_push('q_notify', 'n1', 0, 0, now(), '{"n": 1}');
SELECT * FROM fetchq.log_error('q_states', 'pending', 'an error', '{"e": 1}');
SELECT * FROM fetchq.metric_increment('q_states', 'custom', 3);
SELECT * FROM fetchq.metric_snap('q_states');
-- A temporary queue of 0.1.0 (its session long gone when the update runs).
UPDATE fetchq.queues SET owner_session = 424242 WHERE name = 'q_tmp';
SQL
in_db up "SET ROLE fq_app; SELECT * FROM fetchq.doc_push('q_app', 'a1', 0, 0, now(), '{\"app\": 1}')" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d live >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION fetchq;
SELECT * FROM fetchq.queue_create('q_live');
SELECT * FROM fetchq.doc_push('q_live', 'later', 0, 0, now() + interval '1 hour', '{}');
SQL
check "0.1.0 is installed" "$(in_db up "SELECT extversion FROM pg_extension WHERE extname = 'fetchq'")" 0.1.0
check "documents in every state under 0.1.0" \
    "$(in_db up "SELECT string_agg(status::text, ',' ORDER BY status) FROM (SELECT DISTINCT status FROM fetchq_data.q_states__docs) s")" \
    "-1,0,1,2,3"

# Every row of every table of the extension's schemas, and the sequences, as
# 0.1.0 has them: the statements are written now, with 0.1.0's columns.
in_db up "SELECT CASE c.relkind WHEN 'S' THEN
        format('SELECT %L, last_value, is_called FROM %s;', c.oid::regclass, c.oid::regclass)
    ELSE format('SELECT %L, t::text FROM (SELECT %s FROM %s ORDER BY %s) AS t;',
        c.oid::regclass,
        (SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
         WHERE attrelid = c.oid AND attnum > 0 AND NOT attisdropped),
        c.oid::regclass,
        (SELECT string_agg(attnum::text, ', ' ORDER BY attnum) FROM pg_attribute
         WHERE attrelid = c.oid AND attnum > 0 AND NOT attisdropped)) END
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN ('fetchq', 'fetchq_data') AND c.relkind IN ('r', 'S')
    ORDER BY c.oid::regclass::text" >"$work/rows.sql"
psql -X -q -At -v ON_ERROR_STOP=1 -d up -f "$work/rows.sql" >"$work/rows-0.1.0.txt"
echo "0.1.0 rows: $(wc -l <"$work/rows-0.1.0.txt") lines from $(wc -l <"$work/rows.sql") relations"

# --- the package upgrade: new library and scripts, a restart --------------------
"$here/scripts/pg_cluster.sh" stop "$work/cluster"
rm -f "$root"/usr/lib/postgresql/15/lib/fetchq.so "$root"/usr/share/postgresql/15/extension/fetchq*
make -C "$here" install DESTDIR="$root" PG_CONFIG=$SYS_PGBIN/pg_config >/dev/null
[ "$(id -u)" = 0 ] && chmod -R a+rX "$root"
new=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$here/fetchq.control")
log=$work/cluster/server.log
as_pg "$PGBIN/pg_ctl" -D "$work/cluster/data" -l "$log" -w -t 60 start >/dev/null

# The old SQL on the new library: refused, with the hint, never run.
refused=$(psql -X -q -At -v VERBOSITY=verbose -d up \
    -c "SELECT * FROM fetchq.doc_push('q_states', 'x', 0, 0, now(), '{}')" 2>&1 || true)
check_has "doc_push of 0.1.0's SQL is refused" "$refused" \
    "ERROR:  55000: extension \"fetchq\" has version 0.1.0 in this database, but the installed library is version $new"
check_has "the refusal hints at the update" "$refused" "HINT:  Run ALTER EXTENSION fetchq UPDATE in this database."
refused=$(psql -X -q -At -d up -c "SELECT * FROM fetchq.info()" 2>&1 || true)
check_has "info() of 0.1.0's SQL is refused" "$refused" "has version 0.1.0 in this database"
check "nothing was pushed" "$(in_db up "SELECT count(*) FROM fetchq_data.q_states__docs WHERE subject = 'x'")" 0
# (in live: the refused insert takes a number of up's sequence of queue ids)
refused=$(psql -X -q -At -d live -c "INSERT INTO fetchq.queues (name) VALUES ('q_by_hand')" 2>&1 || true)
check_has "0.1.0's triggers are refused too" "$refused" "has version 0.1.0 in this database"

# Every C function of 0.1.0's SQL: its symbol is in the new library, and a
# call (all arguments NULL, where the function is called on NULLs) is refused.
in_db up "SELECT p.prosrc FROM pg_proc p WHERE p.pronamespace = 'fetchq'::regnamespace
    AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c') ORDER BY 1" |
    sort -u >"$work/symbols-0.1.0.txt"
nm -D --defined-only "$root/usr/lib/postgresql/15/lib/fetchq.so" | awk '{print $3}' | sort -u >"$work/symbols-new.txt"
check "the new library has every symbol 0.1.0's SQL binds ($(wc -l <"$work/symbols-0.1.0.txt"))" \
    "$(comm -23 "$work/symbols-0.1.0.txt" "$work/symbols-new.txt" | tr '\n' ' ')" ""
calls=$(in_db up "SELECT format('SELECT %s(%s);', p.oid::regproc,
        (SELECT string_agg('NULL::' || format_type(t, NULL), ', ' ORDER BY i)
         FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, i)))
    FROM pg_proc p WHERE p.pronamespace = 'fetchq'::regnamespace AND NOT p.proisstrict
      AND p.prorettype <> 'trigger'::regtype ORDER BY p.oid::regprocedure::text")
called=0 refused_all=0
while IFS= read -r call; do
    called=$((called + 1))
    out=$(psql -X -q -At -d up -c "$call" 2>&1 || true)
    if grep -q 'has version 0.1.0 in this database' <<<"$out"; then
        refused_all=$((refused_all + 1))
    else
        echo "not refused: $call -> $out"
    fi
done <<<"$calls"
check "every function of 0.1.0 called on NULLs is refused ($called)" "$refused_all" "$called"

deadline=$((SECONDS + 20))
until grep -q 'scheduler for database "live" waits for the extension' "$log" || [ $SECONDS -ge $deadline ]; do
    sleep 0.2
done
check "the scheduler of live says once that it waits" \
    "$(grep -c 'scheduler for database "live" waits for the extension' "$log")" 1
check_has "... and which versions" "$(grep -A1 'database "live" waits' "$log")" \
    "SQL in the database is version 0.1.0, the library is version $new"

# live: the planned document is due now (plain SQL, before the update); the
# scheduler resumes after the update, without a restart, and promotes it.
in_db live "UPDATE fetchq_data.q_live__docs SET next_iteration = now() WHERE subject = 'later'" >/dev/null
in_db live "ALTER EXTENSION fetchq UPDATE" >/dev/null
db=live
wait_for "live's scheduler resumes after the update and promotes the due document" 15 \
    "SELECT status FROM fetchq_data.q_live__docs WHERE subject = 'later'" 1
check "live's scheduler started once, after the update" \
    "$(grep -c 'scheduler for database "live" started' "$log")" 1
db=up

# up: the update.
in_db up "ALTER EXTENSION fetchq UPDATE" >/dev/null
check "up is at the new version" "$(in_db up "SELECT extversion FROM pg_extension WHERE extname = 'fetchq'")" "$new"
check "info() agrees with pg_extension" \
    "$(in_db up "SELECT (SELECT extension_version FROM fetchq.info()) = extversion FROM pg_extension WHERE extname = 'fetchq'")" t

psql -X -q -At -v ON_ERROR_STOP=1 -d up -f "$work/rows.sql" >"$work/rows-updated.txt"
if diff -u "$work/rows-0.1.0.txt" "$work/rows-updated.txt" >"$work/rows.diff"; then
    ok "every row and value of 0.1.0 is unchanged ($(wc -l <"$work/rows-0.1.0.txt") lines)"
else
    fail "rows changed by the update:"
    head -n 40 "$work/rows.diff"
fi

# The same queues in a fresh install, then both catalogs, diffed.
psql -X -q -d postgres -c "CREATE DATABASE fresh" -c "ALTER DATABASE fresh SET fetchq.enabled = off"
make_queues fresh
psql -X -q -v ON_ERROR_STOP=1 -d up -f "$here/test/upgrade/catalog.sql" >"$work/catalog-updated.txt"
psql -X -q -v ON_ERROR_STOP=1 -d fresh -f "$here/test/upgrade/catalog.sql" >"$work/catalog-fresh.txt"
if diff -u "$work/catalog-fresh.txt" "$work/catalog-updated.txt" >"$work/catalog.diff"; then
    ok "the updated catalog is a fresh install's ($(grep -c '^[a-z-]* ' "$work/catalog-fresh.txt") objects)"
else
    fail "the updated catalog differs from a fresh install's (- fresh, + updated):"
    cat "$work/catalog.diff"
fi

# The API on the updated database.
check "push after the update" "$(in_db up "SELECT * FROM fetchq.doc_push('q_states', 'new', 0, 0, now() - interval '1 hour', '{\"n\": 1}')")" 1
check "pick after the update" "$(in_db up "SELECT subject FROM fetchq.doc_pick('q_states', 0, 1, '5m')")" pending
check "complete after the update" "$(in_db up "SELECT * FROM fetchq.doc_complete('q_states', 'pending', '{}')")" 1
check "fq_app picks from its queue after the update" \
    "$(in_db up "SET ROLE fq_app; SELECT subject FROM fetchq.doc_pick('q_app', 0, 1, '5m')")" a1
check "a new function after the update" "$(in_db up "SELECT status FROM fetchq.doc_peek('q_states', 'new')")" 1

# up's scheduler, enabled and restarted, drops 0.1.0's temporary queue.
psql -X -q -d postgres -c "ALTER DATABASE up RESET fetchq.enabled" \
    -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'up' AND application_name = 'fetchq scheduler'" >/dev/null
wait_for "0.1.0's temporary queue is dropped once its session is found gone" 30 \
    "SELECT count(*) FROM fetchq.queues WHERE name = 'q_tmp'" 0

# A released version's scripts never change: while fetchq.control names a
# version with a tag, the install and update scripts must be the tag's (a
# change of the SQL starts the next version, src/upgrade/README.md).
if git -C "$here" rev-parse -q --verify "v$new^{commit}" >/dev/null; then
    rel=$work/release
    mkdir -p "$rel"
    git -C "$here" archive "v$new" Makefile fetchq.control src scripts | tar -x -C "$rel"
    make -C "$rel" -s PG_CONFIG=$SYS_PGBIN/pg_config "fetchq--$new.sql" "fetchq--0.1.0--$new.sql"
    make -C "$here" -s PG_CONFIG=$SYS_PGBIN/pg_config "fetchq--$new.sql" "fetchq--0.1.0--$new.sql"
    for f in "fetchq--$new.sql" "fetchq--0.1.0--$new.sql"; do
        if cmp -s "$rel/$f" "$here/$f"; then
            ok "$f is the one released as v$new"
        else
            fail "$f differs from the one released as v$new: a change of the SQL needs a new version"
            diff "$rel/$f" "$here/$f" | head -n 20 || true
        fi
    done
else
    echo "no tag v$new: version $new is not released yet, its scripts may still change"
fi

if grep -E 'terminated by signal|PANIC|TRAP' "$log"; then fail "the server log shows a crash"; else ok "no crash in the server log"; fi
echo "upgrade test: $((SECONDS - started)) s"
[ "$failures" = 0 ]
