#!/usr/bin/env bash
# Streams (issue: an ordered log per key with committed offsets per consumer
# group), against a running server: offsets per key and after rollbacks,
# read and commit (and a rolled-back commit), the seed's set and get, leases
# that end or whose session dies, retention of exactly what every group
# committed, the views, bad input, named notation. The concurrent cases
# (appenders to one key, claims under way) are specs/stream_*.spec.
# Env: PGHOST PGPORT PGUSER (a superuser) of a server with
# shared_preload_libraries = 'fetchq'; $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

# err SQL: the error of a statement, with its SQLSTATE.
err() {
    psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c '\set VERBOSITY verbose' -c "$1" 2>&1 |
        sed -n 's/^ERROR:  \([0-9A-Z]*\): \(.*\)$/\1 \2/p' | head -1
}
# state: everything of the streams, as one hash.
state() {
    q "SELECT md5(concat_ws('|',
         (SELECT string_agg(m::text, ',' ORDER BY stream_id, key, \"offset\") FROM fetchq.stream_messages m),
         (SELECT string_agg(k::text, ',' ORDER BY stream_id, key) FROM fetchq.stream_keys k),
         (SELECT string_agg(o::text, ',' ORDER BY stream_id, group_name, key) FROM fetchq.stream_offsets o),
         (SELECT string_agg(g::text, ',' ORDER BY stream_id, group_name) FROM fetchq.stream_groups g)))"
}
cleanup() {
    for s in st_log st_set st_claim st_keep st_drop st_age st_mine; do
        psql -X -q -d "$db" -c "SELECT fetchq.stream_drop('$s')" >/dev/null 2>&1 || true
    done
    for r in st_member st_third st_other; do
        psql -X -q -d "$db" -c "DROP OWNED BY $r" >/dev/null 2>&1 || true
        psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT
cleanup

echo "# offsets per key, gapless, after rollbacks"
check "stream_create" "$(q "SELECT was_created FROM fetchq.stream_create('st_log')")" t
check "stream_create again" "$(q "SELECT was_created FROM fetchq.stream_create('st_log')")" f
check "1, 2 on key a; 1 on key b" \
    "$(q "SELECT fetchq.stream_append('st_log', 'a', '{\"n\": 1}')") $(q "SELECT fetchq.stream_append('st_log', 'a', '{\"n\": 2}')") $(q "SELECT fetchq.stream_append('st_log', 'b', '{\"n\": 1}')")" \
    "1 2 1"
q "BEGIN; SELECT fetchq.stream_append('st_log', 'a', '{\"rolled\": \"back\"}'); ROLLBACK" >/dev/null
check "a rolled-back append leaves no gap" "$(q "SELECT fetchq.stream_append('st_log', 'a', '{\"n\": 3}')")" 3
check "nor does one rolled back to a savepoint" \
    "$(q "BEGIN; SAVEPOINT s; SELECT fetchq.stream_append('st_log', 'a', '{}'); ROLLBACK TO s;
          SELECT fetchq.stream_append('st_log', 'a', '{\"n\": 4}'); COMMIT" | tail -1)" 4
check "two appends to one key in one transaction" \
    "$(q "BEGIN; SELECT fetchq.stream_append('st_log', 'c', 'null'); SELECT fetchq.stream_append('st_log', 'c', '[1]'); COMMIT" | paste -sd' ')" \
    "1 2"
check "the messages in offset order, payloads as appended" \
    "$(q "SELECT string_agg(\"offset\" || '=' || payload::text, ' ') FROM fetchq.stream_read('st_log', 'g1', 'a')")" \
    '1={"n": 1} 2={"n": 2} 3={"n": 3} 4={"n": 4}'

echo "# groups exist from their first use, even after a rolled-back first use"
q "BEGIN; SELECT count(*) FROM fetchq.stream_read('st_log', 'late_b', 'a'); ROLLBACK" >/dev/null
q "SELECT fetchq.stream_commit('st_log', 'late_b', 'a', 1)" >/dev/null
err "SELECT fetchq.stream_commit('st_log', 'late_h', 'a', 999)" >/dev/null || true
q "SELECT count(*) FROM fetchq.stream_read('st_log', 'late_h', 'a')" >/dev/null
check "a group registered again after its rollback and after a failed commit" \
    "$(q "SELECT string_agg(group_name, ',' ORDER BY group_name) FROM fetchq.stream_groups g JOIN fetchq.streams s ON s.id = g.stream_id WHERE s.name = 'st_log' AND group_name LIKE 'late_%'")" \
    "late_b,late_h"
# One session, which remembers the groups it found registered: a group it
# registered in a rolled-back transaction, or that was deleted since, is
# registered again.
psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL'
BEGIN;
SELECT count(*) FROM fetchq.stream_read('st_log', 'late_s', 'a');
SELECT fetchq.stream_commit('st_log', 'late_s', 'a', 1);
ROLLBACK;
SELECT count(*) FROM fetchq.stream_read('st_log', 'late_s', 'a');
SELECT count(*) FROM fetchq.stream_read('st_log', 'late_d', 'a');
SELECT count(*) FROM fetchq.stream_read('st_log', 'late_d', 'a');
DELETE FROM fetchq.stream_groups WHERE group_name = 'late_d';
SELECT count(*) FROM fetchq.stream_read('st_log', 'late_d', 'a');
SQL
check "in one session, a group registered again after its rollback and after its deletion" \
    "$(q "SELECT string_agg(group_name, ',' ORDER BY group_name) FROM fetchq.stream_groups WHERE group_name IN ('late_s', 'late_d')")" \
    "late_d,late_s"
check "a read in a read-only transaction works" \
    "$(q "BEGIN READ ONLY; SELECT count(*) FROM fetchq.stream_read('st_log', 'readonly_group', 'a'); COMMIT")" 4

echo "# read and commit"
check "stream_commit returns the committed offset" "$(q "SELECT fetchq.stream_commit('st_log', 'g1', 'a', 2)")" 2
check "the read starts after it" \
    "$(q "SELECT string_agg(\"offset\"::text, ',') FROM fetchq.stream_read('st_log', 'g1', 'a')")" "3,4"
check "limit" "$(q "SELECT string_agg(\"offset\"::text, ',') FROM fetchq.stream_read('st_log', 'g1', 'a', 1)")" "3"
check "another group starts at 0" \
    "$(q "SELECT string_agg(\"offset\"::text, ',') FROM fetchq.stream_read('st_log', 'g2', 'a')")" "1,2,3,4"
q "BEGIN; SELECT fetchq.stream_commit('st_log', 'g1', 'a', 4); ROLLBACK" >/dev/null
check "a rolled-back commit leaves the offset where it was" \
    "$(q "SELECT min(\"offset\") FROM fetchq.stream_read('st_log', 'g1', 'a')")" 3
check "a lower offset is ignored, the committed one returned" "$(q "SELECT fetchq.stream_commit('st_log', 'g1', 'a', 1)")" 2
check "an offset beyond the last message is refused" "$(err "SELECT fetchq.stream_commit('st_log', 'g1', 'a', 5)")" \
    '22023 offset 5 is beyond the last message of key "a"'
check "a negative offset is refused" "$(err "SELECT fetchq.stream_commit('st_log', 'g1', 'a', -1)")" \
    "22023 argument offset must not be negative"
check "stream_get: the next unread message as the seed's get" \
    "$(q "SELECT fetchq.stream_get('st_log', 'g1', 'a')")" '{"id": 3, "message": {"n": 3}}'
check "stream_get: NULL when all is read" \
    "$(q "SELECT fetchq.stream_commit('st_log', 'g1', 'b', 1); SELECT fetchq.stream_get('st_log', 'g1', 'b') IS NULL" | tail -1)" t
check "named notation" \
    "$(q "SELECT \"offset\" FROM fetchq.stream_read(stream => 'st_log', group_name => 'g3', key => 'a', \"limit\" => 1)") $(q "SELECT fetchq.stream_commit(stream => 'st_log', group_name => 'g3', key => 'a', \"offset\" => 1)") $(q "SELECT fetchq.stream_append(stream => 'st_log', key => 'd', payload => '{}')") $(q "SELECT count(*) FROM fetchq.stream_claim(stream => 'st_log', group_name => 'g3', max_keys => 1, lease => '1 minute')") $(q "SELECT fetchq.stream_set(stream => 'st_log', group_name => 'g3', body => '{}')")" \
    '1 1 1 1 {"commit": [], "create": []}'
q "SELECT fetchq.stream_release('st_log', 'g3')" >/dev/null

echo "# the seed's set: all or nothing"
q "SELECT fetchq.stream_create('st_set')" >/dev/null
check "creates and commits in one call, the offsets returned" \
    "$(q "SELECT fetchq.stream_set('st_set', 'g', '{\"create\": [{\"hash\": \"h1\", \"message\": \"hello\"}, {\"hash\": \"h1\", \"message\": {\"x\": 1}}, {\"hash\": \"h2\", \"message\": null}], \"commit\": [{\"hash\": \"h1\", \"id\": \"1\"}, {\"hash\": \"h2\", \"id\": 1}]}')")" \
    '{"commit": [{"id": 1, "hash": "h1"}, {"id": 1, "hash": "h2"}], "create": [{"id": 1, "hash": "h1"}, {"id": 2, "hash": "h1"}, {"id": 1, "hash": "h2"}]}'
check "what it did is there" \
    "$(q "SELECT string_agg(\"offset\" || '=' || payload::text, ' ') FROM fetchq.stream_read('st_set', 'g', 'h1')")" \
    '2={"x": 1}'
before=$(state)
check "an offset beyond the last message" \
    "$(err "SELECT fetchq.stream_set('st_set', 'g', '{\"create\": [{\"hash\": \"h3\", \"message\": 1}], \"commit\": [{\"hash\": \"h1\", \"id\": 7}]}')")" \
    '22023 offset 7 is beyond the last message of key "h1"'
check "a missing hash" "$(err "SELECT fetchq.stream_set('st_set', 'g', '{\"create\": [{\"hash\": \"h3\", \"message\": 1}, {\"message\": 2}]}')")" \
    '22023 create item 2: "hash" must be a string'
check "a missing message" "$(err "SELECT fetchq.stream_set('st_set', 'g', '{\"create\": [{\"hash\": \"h3\"}]}')")" \
    '22023 create item 1: "message" is missing'
check "an id that is not an offset" "$(err "SELECT fetchq.stream_set('st_set', 'g', '{\"commit\": [{\"hash\": \"h1\", \"id\": \"id_1\"}]}')")" \
    '22023 commit item 1: "id" must be an offset (a whole number, 0 or more)'
check "a fractional id" "$(err "SELECT fetchq.stream_set('st_set', 'g', '{\"commit\": [{\"hash\": \"h1\", \"id\": 1.5}]}')")" \
    '22023 commit item 1: "id" must be an offset (a whole number, 0 or more)'
check "an unknown key" "$(err "SELECT fetchq.stream_set('st_set', 'g', '{\"delete\": []}')")" \
    '22023 argument body has keys other than "create" and "commit"'
check "an item with another key" "$(err "SELECT fetchq.stream_set('st_set', 'g', '{\"create\": [{\"hash\": \"h3\", \"message\": 1, \"junk\": 2}]}')")" \
    '22023 create item 1 has keys other than "hash" and "message"'
check "not an object" "$(err "SELECT fetchq.stream_set('st_set', 'g', '[1]')")" \
    "22023 argument body must be a JSON object"
check "an invalid set changes nothing" "$(state)" "$before"

echo "# claims: leases that end, sessions that die"
q "SELECT fetchq.stream_create('st_claim')" >/dev/null
for k in k1 k2 k3; do q "SELECT fetchq.stream_append('st_claim', '$k', '{}')" >/dev/null; done
q "SELECT fetchq.stream_commit('st_claim', 'g', 'k3', 1)" >/dev/null
# A consumer session that stays connected after its claim, until ended below.
# Its leases last 5 s: the next checks run well within them, even on a busy
# machine.
PGAPPNAME=st_consumer psql -X -q -At -d "$db" \
    -c "SELECT string_agg(key, ',') FROM fetchq.stream_claim('st_claim', 'g', 5, '5 seconds')" \
    -c "SELECT pg_sleep(300)" >/tmp/streams_test_claim.$$ 2>&1 &
consumer=$!
wait_for "a claim leases the keys with unread messages (not k3, all committed)" 10 \
    "SELECT string_agg(key, ',' ORDER BY key) FROM fetchq.stream_leases WHERE group_name = 'g'" "k1,k2"
wait_for_output /tmp/streams_test_claim.$$ 20
check "oldest first" "$(head -1 /tmp/streams_test_claim.$$)" "k1,k2"
check "another session gets none while the consumer's leases hold" \
    "$(q "SELECT count(*) FROM fetchq.stream_claim('st_claim', 'g', 5, '1 hour')")" 0
wait_for "a lease that ends frees its key, though its session lives" 20 \
    "SELECT string_agg(key, ',' ORDER BY key) FROM fetchq.stream_claim('st_claim', 'g', 1, '1 hour')" "k1"
kill "$consumer" 2>/dev/null || true
wait "$consumer" 2>/dev/null || true
rm -f /tmp/streams_test_claim.$$
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'st_consumer'" >/dev/null
check "the session that took k1 for an hour ended: a claim gets k1 and k2" \
    "$(q "SELECT string_agg(key, ',' ORDER BY key) FROM fetchq.stream_claim('st_claim', 'g', 5, '1 hour')")" "k1,k2"
# A claimer in a transaction that looked at pg_stat_activity before a consumer
# connected must still see that consumer's session as alive. The claimer goes
# on once the consumer claimed (its session runs its next statement), not
# after a fixed sleep that a busy machine outruns.
out=$(psql -X -q -At -d "$db" <<SQL 2>&1 || true
BEGIN;
SELECT count(*) >= 0 FROM pg_stat_activity;
\! PGAPPNAME=st_alive psql -X -q -At -d "$db" -c "SELECT count(*) FROM fetchq.stream_claim('st_claim', 'g', 5, '1 hour')" -c "SELECT pg_sleep(300)" >/dev/null 2>&1 &
\! i=0; while [ "\$(psql -X -q -At -d "$db" -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'st_alive' AND query LIKE '%pg_sleep%'")" != 1 ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done
SELECT 'claimed ' || count(*) FROM fetchq.stream_claim('st_claim', 'g', 5, '1 hour');
ROLLBACK;
SQL
)
check "a session that connected during the claimer's transaction is alive" "$(grep claimed <<<"$out")" "claimed 0"
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'st_alive'" >/dev/null
check "a zero lease is refused" "$(err "SELECT * FROM fetchq.stream_claim('st_claim', 'g', 1, '0 seconds')")" \
    "22023 argument lease must be longer than zero"

echo "# retention removes what every group committed, and only that"
q "SELECT fetchq.stream_create('st_keep')" >/dev/null
for i in 1 2 3 4 5; do q "SELECT fetchq.stream_append('st_keep', 'a', '{}')" >/dev/null; done
for i in 1 2 3; do q "SELECT fetchq.stream_append('st_keep', 'b', '{}')" >/dev/null; done
q "SELECT fetchq.stream_append('st_keep', 'c', '{}')" >/dev/null
q "SELECT fetchq.stream_commit('st_keep', 'g1', 'a', 4); SELECT fetchq.stream_commit('st_keep', 'g1', 'b', 3);
   SELECT fetchq.stream_commit('st_keep', 'g2', 'a', 2); SELECT fetchq.stream_commit('st_keep', 'g2', 'b', 3);
   SELECT fetchq.stream_commit('st_keep', 'g1', 'c', 1)" >/dev/null
wait_for "the scheduler removes a 1-2 and b 1-3" 30 \
    "SELECT string_agg(key || \"offset\", ',' ORDER BY key, \"offset\") FROM fetchq.stream_messages WHERE stream_id = (SELECT id FROM fetchq.streams WHERE name = 'st_keep')" \
    "a3,a4,a5,c1"
check "offsets continue after what retention removed" "$(q "SELECT fetchq.stream_append('st_keep', 'b', '{}')")" 4
check "and commits above it still work" "$(q "SELECT fetchq.stream_commit('st_keep', 'g2', 'b', 4)")" 4
q "SELECT fetchq.stream_group_create('st_keep', 'late')" >/dev/null
q "SELECT fetchq.stream_commit('st_keep', 'g1', 'a', 5); SELECT fetchq.stream_commit('st_keep', 'g2', 'a', 5)" >/dev/null
sleep 3  # a few scheduler runs: nothing may go, since group "late" committed nothing
check "a group that committed nothing holds every message" \
    "$(q "SELECT string_agg(key || \"offset\", ',' ORDER BY key, \"offset\") FROM fetchq.stream_messages WHERE stream_id = (SELECT id FROM fetchq.streams WHERE name = 'st_keep')")" \
    "a3,a4,a5,b4,c1"

echo "# a maximum age removes more, committed or not"
q "SELECT fetchq.stream_create('st_age'); SELECT fetchq.stream_group_create('st_age', 'slow')" >/dev/null
q "SELECT fetchq.stream_append('st_age', 'a', '{}'); SELECT fetchq.stream_append('st_age', 'a', '{}')" >/dev/null
sleep 2
check "off by default: nothing uncommitted goes" \
    "$(q "SELECT messages FROM fetchq.stream_list WHERE stream = 'st_age'")" 2
# The two first messages made an hour old, by hand.
q "UPDATE fetchq.stream_messages SET appended_at = now() - interval '1 hour'
   WHERE stream_id = (SELECT stream_id FROM fetchq.stream_list WHERE stream = 'st_age')" >/dev/null
q "SELECT fetchq.stream_append('st_age', 'a', '{}')" >/dev/null
check "stream_set_max_age" "$(q "SELECT fetchq.stream_set_max_age('st_age', '10 minutes')")" t
wait_for "the messages older than max_age go, the newer one stays" 30 \
    "SELECT string_agg(\"offset\"::text, ',') FROM fetchq.stream_messages WHERE stream_id = (SELECT stream_id FROM fetchq.stream_list WHERE stream = 'st_age')" "3"
check "offsets continue" "$(q "SELECT fetchq.stream_append('st_age', 'a', '{}')")" 4
check "a zero max_age is refused" "$(err "SELECT fetchq.stream_set_max_age('st_age', '0 seconds')")" \
    "22023 argument max_age must be longer than zero"
q "SELECT fetchq.stream_set_max_age('st_age', NULL)" >/dev/null

echo "# views"
check "stream_lag: per group, the messages not committed" \
    "$(q "SELECT string_agg(group_name || '=' || lag, ' ' ORDER BY group_name) FROM fetchq.stream_lag WHERE stream = 'st_keep'")" \
    "g1=1 g2=1 late=10"
check "and the age of the oldest" \
    "$(q "SELECT oldest_unread_age > interval '0' FROM fetchq.stream_lag WHERE stream = 'st_keep' AND group_name = 'late'")" t
check "stream_list" "$(q "SELECT keys || ' ' || messages || ' ' || groups FROM fetchq.stream_list WHERE stream = 'st_keep'")" \
    "3 5 3"
check "worker_status shows the task" "$(q "SELECT runs > 0 AND errors = 0 FROM fetchq.worker_status() WHERE task = 'streams' AND datname = current_database()")" t

echo "# bad input and ownership"
check "a missing stream" "$(err "SELECT fetchq.stream_append('st_nope', 'a', '{}')")" '42704 stream "st_nope" does not exist'
check "a bad stream name" "$(err "SELECT fetchq.stream_create('Bad-Name')" | cut -c1-5)" "42602"
check "an empty key" "$(err "SELECT fetchq.stream_append('st_log', '', '{}')")" "22023 argument key must not be empty"
check "a long key" "$(err "SELECT fetchq.stream_append('st_log', repeat('k', 256), '{}')")" \
    "22001 argument key is longer than 255 bytes"
check "an empty group" "$(err "SELECT * FROM fetchq.stream_read('st_log', '', 'a')")" \
    "22023 argument group_name must have 1 to 40 characters"
# st_other: no privilege on any table of schema fetchq (docs/install.md,
# section 5): what it may do with a stream is what the stream's owner grants
# (fetchq.stream_grants); st_member has st_other's privileges; st_third has
# none.
q "CREATE ROLE st_other LOGIN; GRANT USAGE ON SCHEMA fetchq, fetchq_data TO st_other;
   CREATE ROLE st_member LOGIN IN ROLE st_other; CREATE ROLE st_third LOGIN;
   GRANT USAGE ON SCHEMA fetchq, fetchq_data TO st_member, st_third"
check "st_other may read no table of streams" \
    "$(q "SELECT count(*) FROM pg_class WHERE relnamespace = 'fetchq'::regnamespace
          AND relname LIKE 'stream%' AND relkind = 'r' AND has_table_privilege('st_other', oid, 'SELECT')")" 0
q "SELECT fetchq.stream_create('st_drop')" >/dev/null
# as ROLE SQL: the rows, or the error with its SQLSTATE.
as_role() {
    psql -X -q -At -U "$1" -d "$db" -c '\set VERBOSITY verbose' -c "$2" 2>&1 |
        sed -n 's/^ERROR:  \([0-9A-Z]*\): \(.*\)$/\1 \2/p;s/^\(DETAIL\|HINT\):  \(.*\)$/\1 \2/p;/^ERROR\|^DETAIL\|^HINT\|^LOCATION\|^CONTEXT\|^psql/!p'
}
as_other() { as_role st_other "$1" | head -1; }
check "only the owner drops a stream" \
    "$(as_other "SELECT fetchq.stream_drop('st_drop')")" '42501 must be owner of stream "st_drop"'
check "only the owner sets a maximum age" \
    "$(as_other "SELECT fetchq.stream_set_max_age('st_drop', '1 hour')")" \
    '42501 must be owner of stream "st_drop"'
q "SELECT fetchq.stream_append('st_log', 'priv', '{\"p\": 1}')" >/dev/null
denied='42501 permission denied for stream "st_log"'
check "without a grant, stream_read is refused" \
    "$(as_other "SELECT \"offset\" FROM fetchq.stream_read('st_log', 'gp', 'priv')")" "$denied"
check "... saying which privilege, and the grant that gives it" \
    "$(as_role st_other "SELECT fetchq.stream_get('st_log', 'gp', 'priv')" | tail -2)" \
    "DETAIL The read privilege on the stream is needed.
HINT Its owner can grant it: SELECT fetchq.stream_grant('st_log', 'st_other', 'read');"
for call in "fetchq.stream_commit('st_log', 'gp', 'priv', 1)" \
    "fetchq.stream_claim('st_log', 'gp')" "fetchq.stream_release('st_log', 'gp')" \
    "fetchq.stream_group_create('st_log', 'gp')" \
    "fetchq.stream_set('st_log', 'gp', '{\"commit\": [{\"hash\": \"priv\", \"id\": 1}]}')"; do
    check "... as is ${call%%(*}" "$(as_other "SELECT * FROM $call")" "$denied"
done
check "... and stream_append" "$(as_other "SELECT fetchq.stream_append('st_log', 'priv', '{}')")" "$denied"
check "... and nothing was written" \
    "$(q "SELECT count(*) FROM fetchq.stream_groups WHERE group_name = 'gp'") $(q "SELECT last_offset FROM fetchq.stream_keys WHERE key = 'priv'")" "0 1"
check "stream_create needs CREATE on schema fetchq_data" \
    "$(as_other "SELECT fetchq.stream_create('st_mine')")" '42501 permission denied to create stream "st_mine"'
check "only the owner grants" \
    "$(as_other "SELECT fetchq.stream_grant('st_log', 'st_other', 'read')")" \
    '42501 permission denied to grant privileges on stream "st_log"'
check "an unknown privilege" "$(err "SELECT fetchq.stream_grant('st_log', 'st_other', 'push')")" \
    '22023 unrecognized stream privilege "push"'
check "an unknown role" "$(err "SELECT fetchq.stream_grant('st_log', 'st_nobody', 'read')")" \
    '42704 role "st_nobody" does not exist'
check "a missing stream" "$(err "SELECT fetchq.stream_grant('st_nope', 'st_other', 'read')")" \
    '42704 stream "st_nope" does not exist'
check "the owner grants read" "$(q "SELECT fetchq.stream_grant('st_log', 'st_other', 'read')")" "{read}"
check "stream_read with read" \
    "$(as_other "SELECT \"offset\", payload FROM fetchq.stream_read('st_log', 'gp', 'priv')")" '1|{"p": 1}'
q "SELECT count(fetchq.stream_append('st_log', 'priv', '{}')) FROM generate_series(1, 4)" >/dev/null
check "stream_commit, first (SQL) then in place" \
    "$(as_other "SELECT fetchq.stream_commit('st_log', 'gp', 'priv', 1) || '|' || fetchq.stream_commit('st_log', 'gp', 'priv', 2)")" \
    '1|2'
check "stream_get" "$(as_other "SELECT fetchq.stream_get('st_log', 'gp', 'priv') ->> 'id'")" 3
check "stream_claim and stream_release" \
    "$(as_role st_other "SELECT count(*) FROM fetchq.stream_claim('st_log', 'gp_claim', 1, '1 minute');
                 SELECT fetchq.stream_release('st_log', 'gp_claim')" | paste -sd' ')" "1 1"
check "read gives no append" "$(as_other "SELECT fetchq.stream_append('st_log', 'priv', '{}')")" \
    '42501 permission denied for stream "st_log"'
check "stream_has_privilege: append, read" \
    "$(as_other "SELECT fetchq.stream_has_privilege('st_log', 'append') || '|' || fetchq.stream_has_privilege('st_log', 'read')")" \
    "false|true"
check "the owner grants append (regrole, text[])" \
    "$(q "SELECT fetchq.stream_grant('st_log', 'st_other'::regrole, ARRAY['append'])")" "{append,read}"
check "appends: the first message of a key (SQL), then in place" \
    "$(as_other "SELECT fetchq.stream_append('st_log', 'other_k', '{}') || '|' || fetchq.stream_append('st_log', 'other_k', '{}')")" \
    '1|2'
check "a member of the grantee holds what it holds" \
    "$(as_role st_member "SELECT fetchq.stream_append('st_log', 'other_k', '{}')")" 3
check "fetchq.stream_privileges shows the grants to a role that may read" \
    "$(as_other "SELECT role || ':' || array_to_string(privileges, ',') || ':' || grantor FROM fetchq.stream_privileges WHERE stream = 'st_log'")" \
    "st_other:append,read:$(q "SELECT current_user")"
check "... and nothing to a role that may not" \
    "$(as_role st_third "SELECT count(*) FROM fetchq.stream_privileges")" 0
check "a role without read cannot ask about another role" \
    "$(as_role st_third "SELECT fetchq.stream_has_privilege('st_log', 'read', 'st_other')" | head -1)" \
    '42501 permission denied to ask about another role'"'"'s privileges on stream "st_log"'
check "... but about itself" "$(as_role st_third "SELECT fetchq.stream_has_privilege('st_log', 'read')")" f
check "stream_revoke returns what is left" \
    "$(q "SELECT fetchq.stream_revoke('st_log', 'st_other', 'read')")" "{append}"
check "... and the read is refused again" \
    "$(as_other "SELECT \"offset\" FROM fetchq.stream_read('st_log', 'gp', 'priv')")" "$denied"
check "revoking the rest removes the grant" \
    "$(q "SELECT fetchq.stream_revoke('st_log', 'st_other', 'all'); SELECT count(*) FROM fetchq.stream_grants" | tail -1)" 0
q "GRANT CREATE ON SCHEMA fetchq_data TO st_other"
check "with CREATE on fetchq_data, st_other creates a stream it owns" \
    "$(as_other "SELECT was_created FROM fetchq.stream_create('st_mine')") $(q "SELECT owner FROM fetchq.streams WHERE name = 'st_mine'")" \
    "t st_other"
check "... appends to it and reads it" \
    "$(as_other "SELECT fetchq.stream_append('st_mine', 'k', '{}') || '|' || (SELECT count(*) FROM fetchq.stream_read('st_mine', 'g', 'k'))")" \
    "1|1"
check "... and grants it" "$(as_other "SELECT fetchq.stream_grant('st_mine', 'st_third', 'read')")" "{read}"
check "... and drops it, with its grants" \
    "$(as_other "SELECT fetchq.stream_drop('st_mine')") $(q "SELECT count(*) FROM fetchq.stream_grants")" "t 0"
q "CREATE TABLE public.st_commits (committed bigint);
   CREATE FUNCTION public.st_note() RETURNS trigger LANGUAGE plpgsql AS
     'BEGIN INSERT INTO public.st_commits VALUES (NEW.committed); RETURN NEW; END';
   CREATE TRIGGER st_note AFTER UPDATE ON fetchq.stream_offsets
     FOR EACH ROW EXECUTE FUNCTION public.st_note()" >/dev/null
check "a trigger on the offsets sees every commit" \
    "$(q "SELECT fetchq.stream_commit('st_log', 'gp', 'priv', 4); SELECT string_agg(committed::text, ',') FROM public.st_commits" | tail -1)" 4
q "DROP TRIGGER st_note ON fetchq.stream_offsets; DROP TABLE public.st_commits; DROP FUNCTION public.st_note()"
check "without it, the commit moves the row in place again" \
    "$(q "SELECT fetchq.stream_commit('st_log', 'gp', 'priv', 5)")" 5
q "SELECT fetchq.stream_append('st_log', 'priv', '{}')" >/dev/null
q "ALTER TABLE fetchq.stream_offsets ADD CONSTRAINT st_not_six CHECK (committed <> 6)"
check "a CHECK constraint added to the offsets holds (through SQL)" \
    "$(err "SELECT fetchq.stream_commit('st_log', 'gp', 'priv', 6)")" \
    '23514 new row for relation "stream_offsets" violates check constraint "st_not_six"'
q "ALTER TABLE fetchq.stream_offsets DROP CONSTRAINT st_not_six"
# stream_append moves a key's existing head row and inserts the message
# without the executor (ops/streams/stream_append.cpp); a trigger, a NOT NULL
# or a default added to the messages take the SQL path.
q "CREATE TABLE public.st_appends (\"offset\" bigint);
   CREATE FUNCTION public.st_note() RETURNS trigger LANGUAGE plpgsql AS
     'BEGIN INSERT INTO public.st_appends VALUES (NEW.\"offset\"); RETURN NEW; END';
   CREATE TRIGGER st_note AFTER INSERT ON fetchq.stream_messages
     FOR EACH ROW EXECUTE FUNCTION public.st_note()" >/dev/null
check "a trigger on the messages sees every append" \
    "$(q "SELECT fetchq.stream_append('st_log', 'priv', '{}'); SELECT string_agg(\"offset\"::text, ',') FROM public.st_appends" | tail -1)" \
    "$(q "SELECT last_offset FROM fetchq.stream_keys WHERE key = 'priv'")"
q "DROP TRIGGER st_note ON fetchq.stream_messages; DROP TABLE public.st_appends; DROP FUNCTION public.st_note()"
q "ALTER TABLE fetchq.stream_messages ADD COLUMN st_tag text NOT NULL DEFAULT 'x'"
check "a default added to the messages is given (through SQL)" \
    "$(q "SELECT fetchq.stream_append('st_log', 'priv', '{}'); SELECT st_tag FROM fetchq.stream_messages WHERE key = 'priv' ORDER BY \"offset\" DESC LIMIT 1" | tail -1)" x
q "ALTER TABLE fetchq.stream_messages ALTER COLUMN st_tag DROP DEFAULT"
check "a NOT NULL added to the messages holds (through SQL)" \
    "$(err "SELECT fetchq.stream_append('st_log', 'priv', '{}')")" \
    '23502 null value in column "st_tag" of relation "stream_messages" violates not-null constraint'
q "ALTER TABLE fetchq.stream_messages DROP COLUMN st_tag"
check "without them, an append to a key with messages numbers in place" \
    "$(q "SELECT fetchq.stream_append('st_log', 'priv', '{\"last\": true}')")" \
    "$(q "SELECT max(\"offset\") FROM fetchq.stream_messages WHERE key = 'priv' AND payload = '{\"last\": true}'")"
q "ALTER TABLE fetchq.stream_messages ALTER COLUMN payload TYPE text"
check "a column of another type: the append goes through SQL, which converts" \
    "$(q "SELECT fetchq.stream_append('st_log', 'priv', '{\"typed\": 1}'); SELECT payload::jsonb ->> 'typed' FROM fetchq.stream_messages WHERE key = 'priv' ORDER BY \"offset\" DESC LIMIT 1" | tail -1)" 1
check "... and a read refuses it" \
    "$(err "SELECT * FROM fetchq.stream_read('st_log', 'gtype', 'priv', 1)")" \
    '42804 column "payload" of table fetchq.stream_messages is missing or not of type jsonb'
q "ALTER TABLE fetchq.stream_messages ALTER COLUMN payload TYPE jsonb USING payload::jsonb"
q "ALTER TABLE fetchq.stream_offsets ALTER COLUMN committed_at TYPE text"
check "... as does a commit, for a column of its own" \
    "$(q "SELECT fetchq.stream_commit('st_log', 'gp', 'priv', 8); SELECT (committed_at::timestamptz <= now())::text FROM fetchq.stream_offsets WHERE key = 'priv' AND group_name = 'gp'" | tail -1)" true
q "ALTER TABLE fetchq.stream_offsets ALTER COLUMN committed_at TYPE timestamptz USING committed_at::timestamptz,
   ALTER COLUMN committed_at SET DEFAULT pg_catalog.now()"
# Rules (issue 27, point 6): a table with one takes the SQL path, as one
# with a trigger does, and the rule acts as on the statement the in-place
# write stands for.
q "CREATE TABLE public.st_ruled (tbl text, \"offset\" bigint);
   CREATE RULE st_also AS ON INSERT TO fetchq.stream_messages
     DO ALSO INSERT INTO public.st_ruled VALUES ('messages', NEW.\"offset\")" >/dev/null
for i in 1 2 3; do q "SELECT fetchq.stream_append('st_log', 'ruled', '{}')" >/dev/null; done
q "BEGIN; SELECT fetchq.stream_append('st_log', 'ruled', '{}'); SELECT fetchq.stream_append('st_log', 'ruled', '{}'); COMMIT" >/dev/null
check "a DO ALSO rule on the messages fires for every append, to a new key and to one with messages" \
    "$(q "SELECT string_agg(\"offset\"::text, ',' ORDER BY \"offset\") FROM public.st_ruled WHERE tbl = 'messages'")" \
    "1,2,3,4,5"
q "DROP RULE st_also ON fetchq.stream_messages"
q "SELECT fetchq.stream_append('st_log', 'ruled', '{}')" >/dev/null
check "without it, the append is not seen by it" \
    "$(q "SELECT count(*) FROM public.st_ruled")" 5
# The SQL an append or a commit stands for is an INSERT ... ON CONFLICT DO
# UPDATE of the key's head or of the group's offset, which PostgreSQL
# refuses on a table with an INSERT or UPDATE rule: the write is refused,
# where it bypassed the rule before.
q "CREATE RULE st_also AS ON UPDATE TO fetchq.stream_keys
     DO ALSO INSERT INTO public.st_ruled VALUES ('keys', NEW.last_offset)" >/dev/null
check "an append to a key with messages does not bypass an UPDATE rule on the keys" \
    "$(err "SELECT fetchq.stream_append('st_log', 'ruled', '{}')")" \
    '0A000 INSERT with ON CONFLICT clause cannot be used with table that has INSERT or UPDATE rules'
q "DROP RULE st_also ON fetchq.stream_keys"
q "SELECT fetchq.stream_commit('st_log', 'g_rule', 'ruled', 1)" >/dev/null
q "CREATE RULE st_also AS ON UPDATE TO fetchq.stream_offsets
     DO ALSO INSERT INTO public.st_ruled VALUES ('offsets', NEW.committed)" >/dev/null
check "a commit of a group with an offset does not bypass an UPDATE rule on the offsets" \
    "$(err "SELECT fetchq.stream_commit('st_log', 'g_rule', 'ruled', 2)")" \
    '0A000 INSERT with ON CONFLICT clause cannot be used with table that has INSERT or UPDATE rules'
check "... nor does anything else change it" \
    "$(q "SELECT committed FROM fetchq.stream_offsets WHERE group_name = 'g_rule' AND key = 'ruled'") $(q "SELECT count(*) FROM public.st_ruled WHERE tbl <> 'messages'")" \
    "1 0"
q "DROP RULE st_also ON fetchq.stream_offsets"
check "without the rules, commits and appends are in place again" \
    "$(q "SELECT fetchq.stream_commit('st_log', 'g_rule', 'ruled', 2) || '|' || fetchq.stream_append('st_log', 'ruled', '{}')")" \
    "2|7"
# A queue's counter rows are moved in place the same way (ops/counters/counter_row.cpp),
# standing for an INSERT ... ON CONFLICT DO UPDATE: in one session, whose
# second push finds its counter row, an UPDATE rule refuses the push.
out=$(psql -X -q -At -d "$db" -v VERBOSITY=verbose 2>&1 <<'SQL' || true
SELECT fetchq.queue_create('st_counted');
SELECT fetchq.doc_push('st_counted', 'first');
CREATE RULE st_also AS ON UPDATE TO fetchq.counters
  DO ALSO INSERT INTO public.st_ruled VALUES ('counters', NEW.cnt);
SELECT fetchq.doc_push('st_counted', 'second');
DROP RULE st_also ON fetchq.counters;
SQL
)
check_has "a push whose counter row exists does not bypass an UPDATE rule on the counters" "$out" \
    'ERROR:  0A000: INSERT with ON CONFLICT clause cannot be used with table that has INSERT or UPDATE rules'
check "... and is rolled back" \
    "$(q "SELECT count(*) FROM fetchq_data.st_counted__docs")/$(q "SELECT count(*) FROM pg_rules WHERE tablename = 'counters'")" \
    "1/0"
q "SELECT fetchq.queue_drop('st_counted'); DROP TABLE public.st_ruled" >/dev/null
after_savepoint=$(q "BEGIN; SELECT fetchq.stream_append('st_log', 'priv', '{}');
    SAVEPOINT s; SELECT fetchq.stream_append('st_log', 'priv', '{}'); ROLLBACK TO s;
    SELECT fetchq.stream_append('st_log', 'priv', '{}'); COMMIT" | paste -sd' ')
check "an append after a rolled-back savepoint takes the number the savepoint's append had" \
    "$(awk '{print ($2 == $1 + 1 && $3 == $2) ? "yes" : $0}' <<<"$after_savepoint")" yes
check "a read-only transaction appends nothing" \
    "$(err "BEGIN READ ONLY; SELECT fetchq.stream_append('st_log', 'priv', '{}')")" \
    '25006 cannot execute INSERT in a read-only transaction'
check "... and commits nothing" \
    "$(err "BEGIN READ ONLY; SELECT fetchq.stream_commit('st_log', 'gp', 'priv', 7)")" \
    '25006 cannot execute INSERT in a read-only transaction'
q "SELECT fetchq.stream_drop('st_log')" >/dev/null
check "a dropped stream leaves nothing" \
    "$(q "SELECT (SELECT count(*) FROM fetchq.stream_messages m WHERE NOT EXISTS (SELECT 1 FROM fetchq.streams s WHERE s.id = m.stream_id)) + (SELECT count(*) FROM fetchq.stream_offsets o WHERE NOT EXISTS (SELECT 1 FROM fetchq.streams s WHERE s.id = o.stream_id))")" 0

exit $((failures > 0))
