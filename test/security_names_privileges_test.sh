#!/usr/bin/env bash
# Attacks of issue 27, points 5 and 7, by roles that hold the documented
# grants or queue grants only, each performed against the running server:
#   5.  a temporary queue's name taken in advance by another role;
#   7a. a push-only grantee's doc_upsert rewriting others' documents;
#   7b. queue_has_privilege telling what fetchq.queue_privileges hides.
# Env: PGHOST PGPORT PGUSER (a superuser) of a server with
# shared_preload_libraries = 'fetchq'; $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

roles="snp_victim snp_mallory snp_pusher snp_picker snp_reader snp_group"
# as ROLE SQL: the statement's output, or its error with its SQLSTATE.
as() {
    psql -X -q -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -U "$1" -d "$db" -c "$2" 2>&1 || true
}
cleanup() {
    [ -n "${VICTIM_PID:-}" ] && kill "$VICTIM_PID" 2>/dev/null || true
    psql -X -q -d "$db" -c "DROP OWNED BY ${roles// /, } CASCADE" >/dev/null 2>&1 || true
    for r in $roles; do psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT
cleanup

for r in $roles; do q "CREATE ROLE $r LOGIN" >/dev/null; done
q "GRANT snp_group TO snp_picker" >/dev/null
# docs/install.md's application grants and CREATE on fetchq_data, for the
# roles that create queues of their own.
for r in snp_victim snp_mallory; do
    psql -X -q -v ON_ERROR_STOP=1 -d "$db" <<SQL
GRANT USAGE ON SCHEMA fetchq, fetchq_data TO $r;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA fetchq, fetchq_data TO $r;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA fetchq, fetchq_data TO $r;
GRANT CREATE ON SCHEMA fetchq_data TO $r;
SQL
done
# Roles with queue grants only.
for r in snp_pusher snp_picker snp_reader snp_group; do
    q "GRANT USAGE ON SCHEMA fetchq, fetchq_data TO $r" >/dev/null
done

echo "--- 5. temporary queues' names cannot be taken in advance"
# The victim's session stays open while mallory acts (a coprocess; each
# statement is followed by a marker line to read up to).
coproc VICTIM { exec stdbuf -oL psql -X -q -At -U snp_victim -d "$db" 2>&1; }
VICTIM_PID=$VICTIM_PID
victim() {
    printf '%s\n\\echo __done__\n' "$1" >&"${VICTIM[1]}"
    local line out=""
    while IFS= read -r -t 60 line <&"${VICTIM[0]}"; do
        [ "$line" = __done__ ] && break
        out+="$line"$'\n'
    done
    printf '%s' "$out"
}
first=$(victim "SELECT fetchq.queue_create_temporary();")
check_has "the victim creates a temporary queue" "$first" '^tmp_[0-9a-z_]+$'
# What another role sees of it in the catalog: mallory takes the names that
# follow (Fetchq 0.2.0's scheme: tmp_<session key>_<n>), and the names it
# would have if the name had a random part of up to 4 hex digits after a
# prefix that never changes.
listed=$(as snp_mallory "SELECT name FROM fetchq.queues WHERE name = '$first'")
check "mallory reads the temporary queue's name in fetchq.queues" "$listed" "$first"
prefix=${first%_*}
taken=0
for n in $(seq 2 41); do
    out=$(as snp_mallory "SELECT was_created FROM fetchq.queue_create('${prefix}_$n')")
    [ "$out" = t ] && taken=$((taken + 1))
done
check "mallory creates 40 queues named after the first one" "$taken" 40
names="$first"
for i in $(seq 1 10); do
    out=$(victim "SELECT fetchq.queue_create_temporary();")
    check_has "the victim's temporary queue $i is created despite them" "$out" '^tmp_[0-9a-z_]+$'
    names+=$'\n'"$out"
done
check "the victim's 11 names are distinct" "$(sort -u <<<"$names" | grep -c .)" 11
check "each name is tmp_ and 32 hex digits (128 random bits), 36 characters" \
    "$(grep -Ec '^tmp_[0-9a-f]{32}$' <<<"$names" || true)" 11
check "each belongs to the victim's session" \
    "$(q "SELECT count(*) FROM fetchq.temporary_queues t JOIN fetchq.queues q USING (name)
          WHERE q.owner_session = t.session_key AND t.created_by = 'snp_victim'::regrole")" 11

# A collision forced: fetchq.fault_injection = 'temporary_queue_name' (for
# tests, superuser only) makes the n-th name a call tries tmp_ and n in 32 hex
# digits (from 0), so that taken names are met for certain. Taken: 0 and 1
# (queues of mallory's), 2 (a table of that queue's name), 4 to 7.
name_n() { printf 'tmp_%032x' "$1"; }
for n in 0 1 4 5 6 7; do as snp_mallory "SELECT fetchq.queue_create('$(name_n $n)')" >/dev/null; done
q "CREATE TABLE fetchq_data.$(name_n 2)__logs (x int)" >/dev/null
out=$(psql -X -q -At -v VERBOSITY=verbose -d "$db" 2>&1 <<SQL || true
SET fetchq.fault_injection = 'temporary_queue_name';
SELECT fetchq.queue_create_temporary();
SELECT fetchq.queue_create_temporary();
SELECT 'left:' || count(*) FROM fetchq.temporary_queues WHERE name LIKE 'tmp\_000%';
SQL
)
check_has "a name taken as a queue, or by a table of its name, is skipped for the next free one" \
    "$out" "^$(name_n 3)\$"
check_has "after 8 taken names in a row, a clear error" "$out" \
    "ERROR:  42P07: could not choose a free name for a temporary queue"
check_has "... and nothing is left behind" "$out" "^left:1\$"
out=$(as snp_victim "SET fetchq.fault_injection = 'temporary_queue_name'")
check_has "only a superuser sets fetchq.fault_injection" "$out" "permission denied to set parameter"

echo "--- 7a. doc_upsert changes an existing document only with pick"
q "SELECT fetchq.queue_create('snp_up')" >/dev/null
q "SELECT fetchq.doc_push('snp_up', 'owned', 0, 0, now() + interval '1 hour', '{\"by\": \"owner\"}')" >/dev/null
q "SELECT fetchq.queue_grant('snp_up', 'snp_pusher', 'push')" >/dev/null
q "SELECT fetchq.queue_grant('snp_up', 'snp_picker', 'push, pick')" >/dev/null
out=$(as snp_pusher "SELECT fetchq.doc_upsert('snp_up', 'owned', 0, 9, now(), '{\"by\": \"pusher\"}')")
check_has "a push-only grantee's doc_upsert of another's planned document is refused (42501)" \
    "$out" 'ERROR:  42501: permission denied to change document "owned" of queue "snp_up"'
check_has "... the detail says which privilege is missing" "$out" \
    'DETAIL:  doc_upsert changes an existing document only with the pick privilege, which role "snp_pusher" lacks on queue "snp_up"'
check_has "... and the hint how to get it" "$out" \
    "HINT:  .*fetchq.queue_grant\('snp_up', 'snp_pusher', 'pick'\)"
check "... the document is unchanged" \
    "$(q "SELECT priority || ' ' || (payload->>'by') || ' ' || status FROM fetchq_data.snp_up__docs WHERE subject = 'owned'")" \
    "0 owner 0"
check "a push-only grantee's doc_upsert of a new subject inserts it" \
    "$(as snp_pusher "SELECT queued_docs || ' ' || updated_docs FROM fetchq.doc_upsert('snp_up', 'new1', 0, 1, now(), '{}')")" \
    "1 0"
check "a grantee with push and pick changes an existing document" \
    "$(as snp_picker "SELECT queued_docs || ' ' || updated_docs FROM fetchq.doc_upsert('snp_up', 'owned', 0, 9, now(), '{\"by\": \"picker\"}')")" \
    "0 1"
check "... as asked" \
    "$(q "SELECT priority || ' ' || (payload->>'by') FROM fetchq_data.snp_up__docs WHERE subject = 'owned'")" \
    "9 picker"
# A queue without grants: the table privileges decide, as for PostgreSQL's
# INSERT ... ON CONFLICT DO UPDATE, which needs UPDATE.
q "SELECT fetchq.queue_create('snp_up_tables')" >/dev/null
q "SELECT fetchq.doc_push('snp_up_tables', 'owned', 0, 0, now() + interval '1 hour', '{\"by\": \"owner\"}')" >/dev/null
q "GRANT SELECT, INSERT ON fetchq_data.snp_up_tables__docs TO snp_pusher" >/dev/null
q "GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA fetchq TO snp_pusher" >/dev/null
out=$(as snp_pusher "SELECT fetchq.doc_upsert('snp_up_tables', 'owned', 0, 9, now(), '{\"by\": \"pusher\"}')")
check_has "without UPDATE on a queue's table, doc_upsert of an existing subject is refused (42501)" \
    "$out" 'ERROR:  42501: permission denied to change document "owned" of queue "snp_up_tables"'
check_has "... the detail names the table privilege" "$out" \
    'DETAIL:  doc_upsert changes an existing document only with UPDATE on table fetchq_data.snp_up_tables__docs, which role "snp_pusher" lacks'

check "... the document is unchanged" \
    "$(q "SELECT (payload->>'by') FROM fetchq_data.snp_up_tables__docs WHERE subject = 'owned'")" owner
check "... and a new subject is inserted" \
    "$(as snp_pusher "SELECT queued_docs || ' ' || updated_docs FROM fetchq.doc_upsert('snp_up_tables', 'new1', 0, 1, now(), '{}')")" \
    "1 0"
q "GRANT UPDATE ON fetchq_data.snp_up_tables__docs TO snp_pusher" >/dev/null
check "with UPDATE too, the existing document is changed (Fetchq 4's behaviour)" \
    "$(as snp_pusher "SELECT queued_docs || ' ' || updated_docs FROM fetchq.doc_upsert('snp_up_tables', 'owned', 0, 9, now(), '{\"by\": \"pusher\"}')")" \
    "0 1"

echo "--- 7b. queue_has_privilege tells no more than fetchq.queue_privileges"
q "SELECT fetchq.queue_create('snp_hidden')" >/dev/null
q "SELECT fetchq.queue_grant('snp_hidden', 'snp_victim', 'push, pick')" >/dev/null
q "SELECT fetchq.queue_grant('snp_hidden', 'snp_group', 'push')" >/dev/null
q "SELECT fetchq.queue_grant('snp_hidden', 'snp_pusher', 'push')" >/dev/null
check "the view shows mallory no grant of a queue it may not read" \
    "$(as snp_mallory "SELECT count(*) FROM fetchq.queue_privileges WHERE queue = 'snp_hidden'")" 0
check "... nor snp_pusher, which holds push only" \
    "$(as snp_pusher "SELECT count(*) FROM fetchq.queue_privileges WHERE queue = 'snp_hidden'")" 0
for p in push pick read; do
    out=$(as snp_mallory "SELECT fetchq.queue_has_privilege('snp_hidden', '$p', 'snp_victim')")
    check_has "mallory may not ask whether snp_victim holds $p on that queue (42501)" "$out" \
        'ERROR:  42501: permission denied to ask about another role.s privileges on queue "snp_hidden"'
done
out=$(as snp_pusher "SELECT fetchq.queue_has_privilege('snp_hidden', 'push', 'snp_victim'::regrole)")
check_has "nor may a push-only grantee ask about another grantee" "$out" "ERROR:  42501: "
check_has "... the hint says what would let it" "$out" "HINT:  .*read"
# What a role may always ask: about itself and roles whose privileges it has
# (it learns that by calling the functions anyway).
check "a role asks about itself" \
    "$(as snp_pusher "SELECT fetchq.queue_has_privilege('snp_hidden', 'push')") $(as snp_pusher "SELECT fetchq.queue_has_privilege('snp_hidden', 'pick', 'snp_pusher')")" \
    "t f"
check "a member asks about its group" \
    "$(as snp_picker "SELECT fetchq.queue_has_privilege('snp_hidden', 'push', 'snp_group')")" t
check "mallory asks about itself" \
    "$(as snp_mallory "SELECT fetchq.queue_has_privilege('snp_hidden', 'push')")" f
# The other direction: a role that may read the queue sees its grants in the
# view, and the function answers the same for each of them.
q "SELECT fetchq.queue_grant('snp_hidden', 'snp_reader', 'read')" >/dev/null
check "with read, the view shows the queue's grants" \
    "$(as snp_reader "SELECT string_agg(role || '=' || array_to_string(privileges, '+'), ' ' ORDER BY role) FROM fetchq.queue_privileges WHERE queue = 'snp_hidden'")" \
    "snp_group=push snp_pusher=push snp_reader=read snp_victim=push+pick"
check "... and queue_has_privilege agrees with it for every role and privilege" \
    "$(as snp_reader "SELECT count(*) FROM fetchq.queue_privileges v,
          unnest(ARRAY['push', 'pick', 'read', 'manage']) AS p
          WHERE fetchq.queue_has_privilege(v.queue, p, v.role::regrole) IS DISTINCT FROM (p = ANY (v.privileges))")" \
    0
check "... and answers for a role without a grant there" \
    "$(as snp_reader "SELECT fetchq.queue_has_privilege('snp_hidden', 'push', 'snp_mallory')")" f
# A queue without grants: read is SELECT on its documents.
q "SELECT fetchq.queue_create('snp_plain')" >/dev/null
q "GRANT INSERT ON fetchq_data.snp_plain__docs TO snp_victim" >/dev/null
out=$(as snp_pusher "SELECT fetchq.queue_has_privilege('snp_plain', 'push', 'snp_victim')")
check_has "on a queue without grants, asking about another role needs SELECT on its documents" \
    "$out" "ERROR:  42501: "
q "GRANT SELECT ON fetchq_data.snp_plain__docs TO snp_pusher" >/dev/null
check "... with it, the answer" \
    "$(as snp_pusher "SELECT fetchq.queue_has_privilege('snp_plain', 'push', 'snp_victim')")" t
check "a missing queue is false for anyone" \
    "$(as snp_mallory "SELECT fetchq.queue_has_privilege('snp_nosuch', 'push', 'snp_victim')")" f
check "a superuser asks about anyone" \
    "$(q "SELECT fetchq.queue_has_privilege('snp_hidden', 'pick', 'snp_victim')")" t

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
