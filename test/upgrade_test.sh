#!/usr/bin/env bash
# The updates from each earlier release (0.1.0 and 0.2.0), each on a cluster
# and a PostgreSQL install of its own: the release is built from the
# repository's history (its tag), databases are made under it with queues in
# every state (and, from 0.2.0, a stream with groups and offsets), then this
# version's library and scripts replace it as a package upgrade would (the
# release's install script goes) and the server restarts:
# - until ALTER EXTENSION fetchq UPDATE, every call into the old SQL is
#   refused with a hint naming it, and the scheduler says once that it waits;
# - after it, the catalog is exactly a fresh install's (test/upgrade/catalog.sql
#   diffed, per-queue tables included), every row the release had is
#   unchanged, the API works, info() agrees with pg_extension, the waiting
#   scheduler resumes and promotes a due document, a temporary queue of the
#   release is dropped, and a schedule and a dependency made after the update
#   work.
# Then the scripts of released versions are checked to be the tags' own.
# $1 (the runner's database) is not used.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
SYS_PGBIN=/usr/lib/postgresql/15/bin
# shellcheck source=test/lib/checks.sh
. "$here/test/lib/checks.sh"
. "$here/test/lib/own_clusters.sh"
own_clusters upgrade
started=$SECONDS
in_db() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
new=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$here/fetchq.control")

# The commits the release tags name, for a clone without tags.
declare -A released=([0.1.0]=5e3fcdf5477290952fc400819a3522fa5f211557
    [0.2.0]=c8069ed0e9aa607e4558a727819b549e49211465)
# release_commit VERSION: the commit of release VERSION.
release_commit() {
    git -C "$here" rev-parse -q --verify "v$1^{commit}" ||
        git -C "$here" rev-parse -q --verify "${released[$1]:-none}^{commit}" || {
        echo "FAIL: $1 (tag v$1) is not in this clone's history" >&2
        return 1
    }
}

# update_from VERSION: the whole update from that release.
update_from() {
local old=$1
local commit
commit=$(release_commit "$1") || exit 1
local work=$dir/from-$old
local root=$work/root
mkdir -p "$work"
[ "$(id -u)" = 0 ] && chown postgres: "$work"
export PGBIN=$root/usr/lib/postgresql/15/bin
db=up
echo "--- update from $old ---"

# --- the release, built from history ----------------------------------------
local src=$here/build/upgrade/v$old
if [ "$(cat "$src/.commit" 2>/dev/null)" != "$commit" ] || [ ! -f "$src/fetchq.so" ]; then
    rm -rf "$src"
    mkdir -p "$src"
    git -C "$here" archive "$commit" | tar -x -C "$src"
    make -C "$src" -j2 PG_CONFIG=$SYS_PGBIN/pg_config >"$src/build.log" 2>&1 || {
        tail -n 30 "$src/build.log"
        echo "FAIL: build of $old"
        exit 1
    }
    echo "$commit" >"$src/.commit"
fi
echo "$old: commit ${commit:0:7}, built in $src"

# A private copy of PostgreSQL 15 with the release installed, as from its package.
mkdir -p "$root/usr/lib/postgresql" "$root/usr/share/postgresql"
cp -a /usr/lib/postgresql/15 "$root/usr/lib/postgresql/"
cp -a /usr/share/postgresql/15 "$root/usr/share/postgresql/"
rm -f "$root"/usr/lib/postgresql/15/lib/fetchq.so "$root"/usr/share/postgresql/15/extension/fetchq*
make -C "$src" install DESTDIR="$root" PG_CONFIG=$SYS_PGBIN/pg_config >/dev/null
[ "$(id -u)" = 0 ] && chmod -R a+rX "$work"

local port
port=$("$here/scripts/pg_cluster.sh" start "$dir/cluster-$old" "fetchq.naptime = 500")
export PGHOST=$dir/cluster-$old PGPORT=$port PGUSER=postgres
local log=$dir/cluster-$old/server.log

# --- databases under the release -------------------------------------------------
# make_queues DB GRANTS: the extension and the queues that "up" has under
# $old and "fresh" under this version, for the catalogs to be compared; among
# them a queue of a role fq_app with GRANTS on fetchq's catalog: in "up", the
# privileges $old's install.md gave an application role that creates queues
# ($old_grants, write privileges included, that the update revokes); in
# "fresh", what the update leaves of them ($left_grants).
psql -X -q -d postgres -c "CREATE ROLE fq_app" -c "CREATE ROLE fq_streamer" -c "CREATE ROLE fq_watcher"
old_grants="GRANT SELECT, INSERT, UPDATE, DELETE ON fetchq.queues, fetchq.counters,
    fetchq.custom_counters, fetchq.metrics_writes, fetchq.jobs TO fq_app;
GRANT USAGE, SELECT ON SEQUENCE fetchq.queues_id_seq, fetchq.custom_counters_id_seq,
    fetchq.jobs_id_seq TO fq_app;
GRANT TRUNCATE ON fetchq.counters TO PUBLIC;"
left_grants="GRANT SELECT ON fetchq.queues, fetchq.counters, fetchq.custom_counters,
    fetchq.metrics_writes, fetchq.jobs TO fq_app;
GRANT SELECT ON SEQUENCE fetchq.queues_id_seq, fetchq.custom_counters_id_seq,
    fetchq.jobs_id_seq TO fq_app;"
# 0.2.0 has streams: a column's privilege goes too; fq_streamer has 0.2.0's
# streams block (its writes and its SELECT on the four tables go, turned
# into stream grants), fq_watcher SELECT alone on the messages (it stays).
if [ "$old" != 0.1.0 ]; then
    old_grants+="
GRANT UPDATE (owner) ON fetchq.streams TO fq_app;
GRANT USAGE ON SCHEMA fetchq TO fq_streamer;
GRANT SELECT ON fetchq.streams, fetchq.stream_groups TO fq_streamer;
GRANT SELECT, INSERT, UPDATE, DELETE ON fetchq.stream_keys, fetchq.stream_messages,
    fetchq.stream_offsets, fetchq.stream_leases TO fq_streamer;
GRANT SELECT ON fetchq.stream_messages TO fq_watcher;"
    left_grants+="
GRANT USAGE ON SCHEMA fetchq TO fq_streamer;
GRANT SELECT ON fetchq.streams, fetchq.stream_groups TO fq_streamer;
GRANT SELECT ON fetchq.stream_messages TO fq_watcher;"
fi
make_queues() {
    psql -X -q -v ON_ERROR_STOP=1 -d "$1" >/dev/null <<SQL
SET client_min_messages = warning;
CREATE EXTENSION fetchq;
SELECT * FROM fetchq.queue_create('q_states');
SELECT * FROM fetchq.queue_create('q_notify');
SELECT * FROM fetchq.queue_create('q_tmp');
SELECT * FROM fetchq.queue_enable_notify('q_notify');
GRANT USAGE ON SCHEMA fetchq, fetchq_data TO fq_app;
GRANT CREATE ON SCHEMA fetchq_data TO fq_app;
$2
SET ROLE fq_app;
SELECT * FROM fetchq.queue_create('q_app');
SQL
}
# "up": every document state, logs, metrics, settings and jobs; its scheduler
# idle, so that nothing moves between the two snapshots. "live": a scheduler
# that runs, and a planned document.
psql -X -q -d postgres -c "CREATE DATABASE up" -c "ALTER DATABASE up SET fetchq.enabled = off" \
    -c "CREATE DATABASE live"
make_queues up "$old_grants"
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
SQL
# A temporary queue of the release (its session long gone when the update runs).
if [ "$old" = 0.1.0 ]; then
    in_db up "UPDATE fetchq.queues SET owner_session = 424242 WHERE name = 'q_tmp'" >/dev/null
else
    in_db up "INSERT INTO fetchq.temporary_queues (name, session_key, created_by)
        VALUES ('q_tmp', 424242, 'postgres'::regrole)" >/dev/null
    psql -X -q -v ON_ERROR_STOP=1 -d up >/dev/null <<'SQL'
SELECT fetchq.stream_create('s_log');
SELECT fetchq.stream_append('s_log', 'k' || k, jsonb_build_object('n', n))
FROM generate_series(1, 3) k, generate_series(1, 4) n;
SELECT fetchq.stream_commit('s_log', 'g', 'k1', 2);
SELECT fetchq.stream_group_create('s_log', 'idle');
SQL
fi
in_db up "SET ROLE fq_app; SELECT * FROM fetchq.doc_push('q_app', 'a1', 0, 0, now(), '{\"app\": 1}')" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d live >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION fetchq;
SELECT * FROM fetchq.queue_create('q_live');
SELECT * FROM fetchq.doc_push('q_live', 'later', 0, 0, now() + interval '1 hour', '{}');
SQL
check "$old is installed" "$(in_db up "SELECT extversion FROM pg_extension WHERE extname = 'fetchq'")" $old
check "documents in every state under $old" \
    "$(in_db up "SELECT string_agg(status::text, ',' ORDER BY status) FROM (SELECT DISTINCT status FROM fetchq_data.q_states__docs) s")" \
    "-1,0,1,2,3"

# Every row of every table of the extension's schemas (in the order of their
# text: some types, jsonpath, have no ordering), and the sequences, as $old
# has them: the statements are written now, with $old's columns.
in_db up "SELECT CASE c.relkind WHEN 'S' THEN
        format('SELECT %L, last_value, is_called FROM %s;', c.oid::regclass, c.oid::regclass)
    ELSE format('SELECT %L, t::text FROM (SELECT %s FROM %s) AS t ORDER BY t::text COLLATE \"C\";',
        c.oid::regclass,
        (SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
         WHERE attrelid = c.oid AND attnum > 0 AND NOT attisdropped),
        c.oid::regclass) END
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN ('fetchq', 'fetchq_data') AND c.relkind IN ('r', 'S')
    ORDER BY c.oid::regclass::text" >"$work/rows.sql"
psql -X -q -At -v ON_ERROR_STOP=1 -d up -f "$work/rows.sql" >"$work/rows-$old.txt"
echo "$old rows: $(wc -l <"$work/rows-$old.txt") lines from $(wc -l <"$work/rows.sql") relations"

# --- the package upgrade: new library and scripts, a restart --------------------
"$here/scripts/pg_cluster.sh" stop "$dir/cluster-$old"
rm -f "$root"/usr/lib/postgresql/15/lib/fetchq.so "$root"/usr/share/postgresql/15/extension/fetchq*
make -C "$here" install DESTDIR="$root" PG_CONFIG=$SYS_PGBIN/pg_config >/dev/null
[ "$(id -u)" = 0 ] && chmod -R a+rX "$root"
restart_at=$(wc -l <"$log")
as_pg "$PGBIN/pg_ctl" -D "$dir/cluster-$old/data" -l "$log" -w -t 60 start >/dev/null

# The old SQL on the new library: refused, with the hint, never run.
refused=$(psql -X -q -At -v VERBOSITY=verbose -d up \
    -c "SELECT * FROM fetchq.doc_push('q_states', 'x', 0, 0, now(), '{}')" 2>&1 || true)
check_has "doc_push of $old's SQL is refused" "$refused" \
    "ERROR:  55000: extension \"fetchq\" has version $old in this database, but the installed library is version $new"
check_has "the refusal hints at the update" "$refused" "HINT:  Run ALTER EXTENSION fetchq UPDATE in this database."
refused=$(psql -X -q -At -d up -c "SELECT * FROM fetchq.info()" 2>&1 || true)
check_has "info() of $old's SQL is refused" "$refused" "has version $old in this database"
check "nothing was pushed" "$(in_db up "SELECT count(*) FROM fetchq_data.q_states__docs WHERE subject = 'x'")" 0
# (in live: the refused insert takes a number of up's sequence of queue ids)
refused=$(psql -X -q -At -d live -c "INSERT INTO fetchq.queues (name) VALUES ('q_by_hand')" 2>&1 || true)
check_has "$old's triggers are refused too" "$refused" "has version $old in this database"

# Every C function of $old's SQL: its symbol is in the new library, and a
# call (all arguments NULL, where the function is called on NULLs) is refused.
in_db up "SELECT p.prosrc FROM pg_proc p WHERE p.pronamespace = 'fetchq'::regnamespace
    AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c') ORDER BY 1" |
    sort -u >"$work/symbols-$old.txt"
nm -D --defined-only "$root/usr/lib/postgresql/15/lib/fetchq.so" | awk '{print $3}' | sort -u >"$work/symbols-new.txt"
check "the new library has every symbol $old's SQL binds ($(wc -l <"$work/symbols-$old.txt"))" \
    "$(comm -23 "$work/symbols-$old.txt" "$work/symbols-new.txt" | tr '\n' ' ')" ""
# (A procedure is called with its OUT arguments too. doc_pick_position is
# left out: a helper in the SET list of doc_pick's statement, it runs
# unchecked once per document picked, and by itself only notes a position in
# the backend's memory.)
calls=$(in_db up "SELECT format(CASE p.prokind WHEN 'p' THEN 'CALL %s(%s);' ELSE 'SELECT %s(%s);' END,
        p.oid::regproc,
        (SELECT string_agg('NULL::' || format_type(t, NULL), ', ' ORDER BY i)
         FROM unnest(CASE p.prokind WHEN 'p' THEN COALESCE(p.proallargtypes, p.proargtypes::oid[])
                     ELSE p.proargtypes::oid[] END) WITH ORDINALITY AS a(t, i)))
    FROM pg_proc p WHERE p.pronamespace = 'fetchq'::regnamespace AND NOT p.proisstrict
      AND p.prorettype <> 'trigger'::regtype AND p.proname <> 'doc_pick_position'
    ORDER BY p.oid::regprocedure::text")
called=0 refused_all=0
while IFS= read -r call; do
    called=$((called + 1))
    out=$(psql -X -q -At -d up -c "$call" 2>&1 || true)
    if grep -q "has version $old in this database" <<<"$out"; then
        refused_all=$((refused_all + 1))
    else
        echo "not refused: $call -> $out"
    fi
done <<<"$calls"
check "every function of $old called on NULLs is refused ($called)" "$refused_all" "$called"

deadline=$((SECONDS + 20))
until grep -q 'scheduler for database "live" waits for the extension' "$log" || [ $SECONDS -ge $deadline ]; do
    sleep 0.2
done
check "the scheduler of live says once that it waits" \
    "$(grep -c 'scheduler for database "live" waits for the extension' "$log")" 1
check_has "... and which versions" "$(grep -A1 'database "live" waits' "$log")" \
    "SQL in the database is version $old, the library is version $new"

# live: the planned document is due now (plain SQL, before the update); the
# scheduler resumes after the update, without a restart, and promotes it.
in_db live "UPDATE fetchq_data.q_live__docs SET next_iteration = now() WHERE subject = 'later'" >/dev/null
in_db live "ALTER EXTENSION fetchq UPDATE" >/dev/null
db=live
wait_for "live's scheduler resumes after the update and promotes the due document" 15 \
    "SELECT status FROM fetchq_data.q_live__docs WHERE subject = 'later'" 1
check "live's scheduler started once after the restart, after the update" \
    "$(tail -n +$((restart_at + 1)) "$log" | grep -c 'scheduler for database "live" started')" 1
db=up

# up: the update.
in_db up "ALTER EXTENSION fetchq UPDATE" >/dev/null
check "up is at the new version" "$(in_db up "SELECT extversion FROM pg_extension WHERE extname = 'fetchq'")" "$new"
check "info() agrees with pg_extension" \
    "$(in_db up "SELECT (SELECT extension_version FROM fetchq.info()) = extversion FROM pg_extension WHERE extname = 'fetchq'")" t

psql -X -q -At -v ON_ERROR_STOP=1 -d up -f "$work/rows.sql" >"$work/rows-updated.txt"
if diff -u "$work/rows-$old.txt" "$work/rows-updated.txt" >"$work/rows.diff"; then
    ok "every row and value of $old is unchanged ($(wc -l <"$work/rows-$old.txt") lines)"
else
    fail "rows changed by the update:"
    head -n 40 "$work/rows.diff"
fi

# The same queues in a fresh install, then both catalogs, diffed.
psql -X -q -d postgres -c "CREATE DATABASE fresh" -c "ALTER DATABASE fresh SET fetchq.enabled = off"
make_queues fresh "$left_grants"
psql -X -q -v ON_ERROR_STOP=1 -d up -f "$here/test/upgrade/catalog.sql" >"$work/catalog-updated.txt"
psql -X -q -v ON_ERROR_STOP=1 -d fresh -f "$here/test/upgrade/catalog.sql" >"$work/catalog-fresh.txt"
if diff -u "$work/catalog-fresh.txt" "$work/catalog-updated.txt" >"$work/catalog.diff"; then
    ok "the updated catalog is a fresh install's ($(grep -c '^[a-z-]* ' "$work/catalog-fresh.txt") objects)"
else
    fail "the updated catalog differs from a fresh install's (- fresh, + updated):"
    cat "$work/catalog.diff"
fi

# The initial privileges of the catalog's tables and sequences (pg_init_privs,
# which pg_dump leaves out of a dump) are a fresh install's: the update's
# REVOKEs do not make the grants they leave look like the extension's own.
init_privs="SELECT c.oid::regclass || ' ' || p.objsubid || ' ' || p.initprivs::text
    FROM pg_init_privs p JOIN pg_class c ON p.classoid = 'pg_class'::regclass AND c.oid = p.objoid
    WHERE c.relnamespace = 'fetchq'::regnamespace AND c.relkind IN ('r', 'p', 'S') ORDER BY 1"
check "the catalog's initial privileges are a fresh install's" \
    "$(in_db up "$init_privs")" "$(in_db fresh "$init_privs")"

# The API on the updated database.
check "push after the update" "$(in_db up "SELECT * FROM fetchq.doc_push('q_states', 'new', 0, 0, now() - interval '1 hour', '{\"n\": 1}')")" 1
check "pick after the update" "$(in_db up "SELECT subject FROM fetchq.doc_pick('q_states', 0, 1, '5m')")" pending
check "complete after the update" "$(in_db up "SELECT * FROM fetchq.doc_complete('q_states', 'pending', '{}')")" 1
check "fq_app picks from its queue after the update" \
    "$(in_db up "SET ROLE fq_app; SELECT subject FROM fetchq.doc_pick('q_app', 0, 1, '5m')")" a1
check "a new function after the update" "$(in_db up "SELECT status FROM fetchq.doc_peek('q_states', 'new')")" 1
check "a schedule after the update (table fetchq.periodic_schedules)" \
    "$(in_db up "SELECT fetchq.queue_create('q_sched'); SELECT fetchq.schedule_create('every_second', 'q_sched', '1 second', 'tick') > now()" | tail -1)" t
check "a document waiting on another after the update (tables fetchq.doc_waits, doc_dependencies)" \
    "$(in_db up "SELECT fetchq.doc_send('q_states', 'after_new', depends_on => ARRAY[('q_states', 'new')::fetchq.doc_ref]);
                 SELECT status FROM fetchq.doc_peek('q_states', 'after_new')" | tail -1)" 0
if [ "$old" != 0.1.0 ]; then
    check "the old streams block became append and read on each stream" \
        "$(in_db up "SELECT stream || ' ' || role || ' ' || privileges::text || ' ' || grantor
                     FROM fetchq.stream_privileges ORDER BY 1")" "s_log fq_streamer {append,read} postgres"
    check "fq_streamer appends and reads with no privilege on the tables of streams" \
        "$(in_db up "SET ROLE fq_streamer; SELECT fetchq.stream_append('s_log', 'k1', '{}');
                     SELECT count(*) FROM fetchq.stream_read('s_log', 'g', 'k1')" | paste -sd' ')" "5 3"
    check "fq_watcher keeps its SELECT" \
        "$(in_db up "SELECT has_table_privilege('fq_watcher', 'fetchq.stream_messages', 'SELECT')")" t
fi

# up's scheduler, enabled and restarted, drops $old's temporary queue.
psql -X -q -d postgres -c "ALTER DATABASE up RESET fetchq.enabled" \
    -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'up' AND application_name = 'fetchq scheduler'" >/dev/null
wait_for "$old's temporary queue is dropped once its session is found gone" 30 \
    "SELECT count(*) FROM fetchq.queues WHERE name = 'q_tmp'" 0
wait_for "the schedule made after the update ticks" 30 \
    "SELECT count(*) > 0 FROM fetchq_data.q_sched__docs" t

"$here/scripts/pg_cluster.sh" stop "$dir/cluster-$old" >/dev/null
if grep -E 'terminated by signal|PANIC|TRAP' "$log"; then fail "the server log shows a crash"; else ok "no crash in the server log"; fi
}

update_from 0.1.0
update_from 0.2.0

# A released version's scripts never change: the update scripts committed in
# src/upgrade must be the ones their tag built, and while fetchq.control names
# a version with a tag, the install and update scripts built now must be that
# tag's too (a change of the SQL starts the next version, src/upgrade/README.md).
# tag_scripts VERSION FILE...: builds FILEs in the tree of release VERSION.
tag_scripts() {
    local version=$1 commit
    shift
    commit=$(release_commit "$version") || exit 1
    rel=$dir/release-$version
    rm -rf "$rel"
    mkdir -p "$rel"
    git -C "$here" archive "$commit" Makefile fetchq.control src scripts | tar -x -C "$rel"
    make -C "$rel" -s PG_CONFIG=$SYS_PGBIN/pg_config "$@"
}
# same_as_tag VERSION BUILT FILE: FILE as the tag built it is BUILT.
same_as_tag() {
    if cmp -s "$rel/$3" "$2"; then
        ok "$3 is the one released as v$1"
    else
        fail "$3 differs from the one released as v$1: a change of the SQL needs a new version"
        diff "$rel/$3" "$2" | head -n 20 || true
    fi
}
for f in "$here"/src/upgrade/fetchq--*--*.sql; do
    f=${f##*/}
    version=${f##*--}
    version=${version%.sql}
    tag_scripts "$version" "$f"
    same_as_tag "$version" "$here/src/upgrade/$f" "$f"
done
if git -C "$here" rev-parse -q --verify "v$new^{commit}" >/dev/null; then
    built=$(cd "$here" && make -s PG_CONFIG=$SYS_PGBIN/pg_config "fetchq--$new.sql" >/dev/null &&
        ls fetchq--*--"$new".sql)
    tag_scripts "$new" "fetchq--$new.sql" $built
    for f in "fetchq--$new.sql" $built; do same_as_tag "$new" "$here/$f" "$f"; done
else
    echo "no tag v$new: version $new is not released yet, its scripts may still change"
fi

echo "upgrade test: $((SECONDS - started)) s"
[ "$failures" = 0 ]
