#!/usr/bin/env bash
# Deliveries made on someone else's behalf (dead-letter copies, routes,
# topic subscriptions), attacked for real against the running server:
#   - a dead-letter copy runs the dead-letter queue's triggers as that
#     queue's owner, never as whoever killed the document (a superuser's
#     queue, a reject, the scheduler killing as another role);
#   - who set the dead-letter queue is recorded and cannot be forged with
#     plain SQL on fetchq.queues;
#   - no delivery (route, subscription, dead-letter copy) lands a row in a
#     queue whose row security applies to the role that set it up, checked
#     when it is set up and again at each delivery.
# Roles: sd_dee and sd_vic own queues and hold docs/install.md's grants plus
# CREATE on fetchq_data; sd_rr creates routes; sd_ten owns the tenants'
# queues and their row security policies.
# Env: PGHOST PGPORT PGUSER (a superuser) of a server with
# shared_preload_libraries = 'fetchq'; $1: a database with the extension.
set -euo pipefail
db=$1
source "$(dirname "$0")/lib/checks.sh"

roles="sd_dee sd_vic sd_rr sd_ten sd_gone"
cleanup() {
    # an attack that worked leaves a superuser behind: take it back first
    for role in $roles; do
        psql -X -q -d postgres -c "ALTER ROLE $role NOSUPERUSER" >/dev/null 2>&1 || true
    done
    for role in $roles; do
        psql -X -q -d "$db" -c "DROP OWNED BY $role CASCADE" >/dev/null 2>&1 || true
        psql -X -q -d postgres -c "DROP ROLE IF EXISTS $role" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT
cleanup

# as ROLE SQL: output, or the error with its SQLSTATE (verbose).
as() {
    psql -X -q -At -v ON_ERROR_STOP=1 -U "$1" -d "$db" -c '\set VERBOSITY verbose' -c "$2" 2>&1 || true
}
# superuser ROLE: t or f.
superuser() { q "SELECT rolsuper FROM pg_roles WHERE rolname = '$1'"; }

q "CREATE ROLE sd_dee LOGIN; CREATE ROLE sd_vic LOGIN; CREATE ROLE sd_rr LOGIN; CREATE ROLE sd_ten LOGIN"
for role in sd_dee sd_vic sd_rr sd_ten; do
    q "GRANT USAGE, CREATE ON SCHEMA fetchq_data TO $role; GRANT USAGE ON SCHEMA fetchq TO $role;
       GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA fetchq, fetchq_data TO $role;
       GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA fetchq, fetchq_data TO $role;
       CREATE SCHEMA $role AUTHORIZATION $role"
done

# sd_dee's queue, with a trigger that records who runs it and tries to make
# sd_dee a superuser.
as sd_dee "SELECT fetchq.queue_create('deeq')" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -U sd_dee -d "$db" >/dev/null <<'SQL'
CREATE TABLE sd_dee.seen (subject text, who name, leaked text);
GRANT USAGE ON SCHEMA sd_dee TO PUBLIC;
GRANT INSERT ON sd_dee.seen TO PUBLIC;
CREATE FUNCTION sd_dee.escalate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    leaked text;
BEGIN
    BEGIN
        EXECUTE 'SELECT s FROM sd_vic.secrets LIMIT 1' INTO leaked;
    EXCEPTION WHEN OTHERS THEN leaked := NULL;
    END;
    INSERT INTO sd_dee.seen VALUES (NEW.subject, current_user, leaked);
    BEGIN
        EXECUTE 'ALTER ROLE sd_dee SUPERUSER';
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
    RETURN NEW;
END $$;
CREATE TRIGGER escalate BEFORE INSERT ON fetchq_data.deeq__docs
    FOR EACH ROW EXECUTE FUNCTION sd_dee.escalate();
SQL
# who_ran SUBJECT: the roles deeq's trigger ran as for that subject.
who_ran() { q "SELECT coalesce(string_agg(DISTINCT who::text, ','), 'none') FROM sd_dee.seen WHERE subject = '$1'"; }

echo "--- 1. a dead-letter copy never runs as the killer"
q "SELECT fetchq.queue_create('adminq'); SELECT fetchq.queue_grant('adminq', 'sd_dee', 'manage')" >/dev/null
check "sd_dee makes deeq the dead-letter queue of the superuser's queue" \
    "$(as sd_dee "SELECT fetchq.queue_set_dead_letter('adminq', 'deeq')")" 1
as sd_dee "SELECT fetchq.queue_grant('adminq', 'sd_dee', 'push, pick')" >/dev/null
as sd_dee "SELECT fetchq.doc_push('adminq', 'a1', 0, 0, now(), '{}')" >/dev/null
as sd_dee "SELECT count(*) FROM fetchq.doc_pick('adminq', 0, 1, '1m')" >/dev/null
check "and kills a document there" "$(as sd_dee "SELECT fetchq.doc_kill('adminq', 'a1')")" 1
check "the kill copied the document into deeq" \
    "$(q "SELECT count(*) FROM fetchq_data.deeq__docs WHERE subject = 'a1'")" 1
check "deeq's trigger ran as deeq's owner, not as the superuser who owns adminq" "$(who_ran a1)" sd_dee
check "sd_dee did not become a superuser through doc_kill" "$(superuser sd_dee)" f
q "ALTER ROLE sd_dee NOSUPERUSER"

as sd_dee "SELECT affected_rows FROM fetchq.queue_set_max_attempts('adminq', 1)" >/dev/null
as sd_dee "SELECT fetchq.doc_push('adminq', 'a2', 0, 0, now(), '{}')" >/dev/null
as sd_dee "SELECT count(*) FROM fetchq.doc_pick('adminq', 0, 1, '1m')" >/dev/null
as sd_dee "SELECT fetchq.doc_reject('adminq', 'a2', 'no luck', '{}')" >/dev/null
check "a reject that uses up the attempts copies into deeq" \
    "$(q "SELECT count(*) FROM fetchq_data.deeq__docs WHERE subject = 'a2'")" 1
check "deeq's trigger ran as deeq's owner on a reject" "$(who_ran a2)" sd_dee
check "sd_dee did not become a superuser through doc_reject" "$(superuser sd_dee)" f
q "ALTER ROLE sd_dee NOSUPERUSER"
# Its setter's rights are checked at each copy: once sd_dee may no longer
# manage adminq, the superuser's own kills there are refused until the
# dead-letter queue is set again.
q "SELECT fetchq.queue_revoke('adminq', 'sd_dee', 'manage')" >/dev/null
out=$(psql -X -q -At -d "$db" -c '\set VERBOSITY verbose' -c "SELECT fetchq.doc_push('adminq', 'a3', 0, 0, now(), '{}');
      SELECT count(*) FROM fetchq.doc_take('adminq', 'a3', '1m'); SELECT fetchq.doc_kill('adminq', 'a3')" 2>&1 || true)
check_has "a setter who lost manage on the queue makes its kills fail" "$out" \
    'ERROR:  42501: permission denied to copy killed documents of queue "adminq" into dead-letter queue "deeq"'
check_has "... saying why" "$out" 'DETAIL:  Role "sd_dee", who set it, lacks manage on queue "adminq"'
check "... and nothing reached deeq" \
    "$(q "SELECT count(*) FROM fetchq_data.deeq__docs WHERE subject = 'a3'")" 0
q "SELECT fetchq.queue_set_dead_letter('adminq', NULL)" >/dev/null

echo "--- 2. the scheduler's kill, as another queue's owner"
psql -X -q -v ON_ERROR_STOP=1 -U sd_vic -d "$db" >/dev/null <<'SQL'
SELECT fetchq.queue_create('vicq');
SELECT fetchq.queue_set_max_attempts('vicq', 1);
SELECT fetchq.queue_grant('vicq', 'sd_dee', 'manage');
CREATE TABLE sd_vic.secrets (s text);
INSERT INTO sd_vic.secrets VALUES ('vic''s secret');
SQL
# (sd_dee lets sd_vic push into deeq: the kill as sd_vic could copy before)
as sd_dee "GRANT SELECT, INSERT ON fetchq_data.deeq__docs TO sd_vic;
           SELECT fetchq.queue_set_dead_letter('vicq', 'deeq')" >/dev/null
as sd_vic "SELECT fetchq.doc_push('vicq', 'v1', 0, 0, now(), '{}');
           SELECT count(*) FROM fetchq.doc_pick('vicq', 0, 1, '1 second')" >/dev/null
wait_for "the scheduler kills the expired pick and copies it into deeq" 40 \
    "SELECT count(*) FROM fetchq_data.deeq__docs WHERE subject = 'v1'" 1
check "deeq's trigger ran as deeq's owner, not as vicq's owner the scheduler killed as" \
    "$(who_ran v1)" sd_dee
check "deeq's trigger could not read vicq's owner's tables" \
    "$(q "SELECT count(leaked) FROM sd_dee.seen")" 0

echo "--- 3. who set the dead-letter queue cannot be forged"
as sd_dee "SELECT fetchq.queue_create('deesrc')" >/dev/null
q "SELECT fetchq.queue_create('suq')" >/dev/null  # sd_dee may not push there
check "queue_set_dead_letter records its caller" \
    "$(q "SELECT dead_letter_set_by::text FROM fetchq.queues WHERE name = 'vicq'")" sd_dee
out=$(as sd_dee "UPDATE fetchq.queues SET dead_letter_queue = 'suq', dead_letter_set_by = '$PGUSER'
                 WHERE name = 'deesrc'")
check_has "sd_dee cannot name a superuser as the setter of its queue's dead-letter queue" "$out" \
    'ERROR:  42501'
check "... and nothing changed" \
    "$(q "SELECT coalesce(dead_letter_queue, '-') || ' ' || coalesce(dead_letter_set_by::text, '-')
          FROM fetchq.queues WHERE name = 'deesrc'")" "- -"
out=$(as sd_dee "DELETE FROM fetchq.queues WHERE name = 'deesrc';
                 INSERT INTO fetchq.queues (name, dead_letter_queue, dead_letter_set_by)
                 VALUES ('deesrc', 'suq', '$PGUSER')")
check_has "nor insert its queue's row again with a superuser as the setter" "$out" 'ERROR:  42501'
check "... and the row is as it was" \
    "$(q "SELECT count(*) FROM fetchq.queues WHERE name = 'deesrc' AND dead_letter_queue IS NULL")" 1
check "naming itself is allowed" \
    "$(as sd_dee "UPDATE fetchq.queues SET dead_letter_queue = 'deeq', dead_letter_set_by = 'sd_dee'
                  WHERE name = 'deesrc' RETURNING dead_letter_set_by")" sd_dee
as sd_dee "UPDATE fetchq.queues SET dead_letter_queue = 'suq' WHERE name = 'deesrc'" >/dev/null
check "a plain UPDATE of dead_letter_queue records the role that wrote it" \
    "$(q "SELECT dead_letter_set_by::text FROM fetchq.queues WHERE name = 'deesrc'")" sd_dee
out=$(as sd_dee "SELECT fetchq.doc_push('deesrc', 'd1', 0, 0, now(), '{}');
                 SELECT count(*) FROM fetchq.doc_pick('deesrc', 0, 1, '1m');
                 SELECT fetchq.doc_kill('deesrc', 'd1')")
check_has "so its kills are refused: it may not push into the superuser's queue" "$out" \
    'ERROR:  42501: permission denied to copy killed documents of queue "deesrc" into dead-letter queue "suq"'
check "... and nothing reached that queue" "$(q "SELECT count(*) FROM fetchq_data.suq__docs")" 0
# vicq's owner rewrites the dead-letter queue sd_dee set: the setter follows.
as sd_vic "UPDATE fetchq.queues SET dead_letter_queue = 'suq' WHERE name = 'vicq'" >/dev/null
check "another writer of the row becomes its setter" \
    "$(q "SELECT dead_letter_set_by::text FROM fetchq.queues WHERE name = 'vicq'")" sd_vic
as sd_vic "UPDATE fetchq.queues SET dead_letter_queue = NULL WHERE name = 'vicq'" >/dev/null
check "no dead-letter queue, no setter" \
    "$(q "SELECT coalesce(dead_letter_set_by::text, '-') FROM fetchq.queues WHERE name = 'vicq'")" -
# A dead-letter queue set before 0.2.1 recorded no setter: the queue's owner
# stands for it (sd_vic may not push into suq).
q "UPDATE fetchq.queues SET dead_letter_queue = 'suq', dead_letter_set_by = NULL WHERE name = 'vicq'"
out=$(as sd_vic "SELECT fetchq.doc_push('vicq', 'v2', 0, 0, now(), '{}');
                 SELECT count(*) FROM fetchq.doc_take('vicq', 'v2', '1m');
                 SELECT fetchq.doc_kill('vicq', 'v2')")
check_has "without a recorded setter, the queue's owner must be allowed to push there" "$out" \
    'ERROR:  42501: permission denied to copy killed documents of queue "vicq" into dead-letter queue "suq"'
as sd_vic "SELECT fetchq.queue_set_dead_letter('vicq', NULL)" >/dev/null
# A setter that was dropped delivers nothing.
q "CREATE ROLE sd_gone LOGIN; GRANT USAGE ON SCHEMA fetchq, fetchq_data TO sd_gone;
   SELECT fetchq.queue_grant('suq', 'sd_gone', 'push')" >/dev/null
as sd_vic "SELECT fetchq.queue_grant('vicq', 'sd_gone', 'manage')" >/dev/null
check "a role with manage on vicq and push on suq sets it" \
    "$(as sd_gone "SELECT fetchq.queue_set_dead_letter('vicq', 'suq')")" 1
q "DROP OWNED BY sd_gone; DROP ROLE sd_gone"
out=$(as sd_vic "SELECT fetchq.doc_push('vicq', 'v3', 0, 0, now(), '{}');
                 SELECT count(*) FROM fetchq.doc_take('vicq', 'v3', '1m');
                 SELECT fetchq.doc_kill('vicq', 'v3')")
check_has "once that role is dropped, the kills are refused" "$out" \
    'DETAIL:  The role that set it, with OID [0-9]+, no longer exists.'
as sd_vic "SELECT fetchq.queue_set_dead_letter('vicq', NULL)" >/dev/null

echo "--- 4. routes into a queue whose row security applies to their creator"
as sd_rr "SELECT fetchq.queue_create('rrq'); SELECT fetchq.topic_create('rrtopic')" >/dev/null
for t in tenantq tenant2q tenant3q tenant4q; do
    as sd_ten "SELECT fetchq.queue_create('$t');
               GRANT SELECT, INSERT ON fetchq_data.${t}__docs TO sd_rr" >/dev/null
done
# protect TABLE: row security on, sd_rr may push only its own tenant's documents
protect() {
    as sd_ten "ALTER TABLE fetchq_data.$1__docs ENABLE ROW LEVEL SECURITY;
               CREATE POLICY tenant_read ON fetchq_data.$1__docs FOR SELECT USING (true);
               CREATE POLICY tenant_push ON fetchq_data.$1__docs FOR INSERT
                   WITH CHECK (payload->>'tenant' = current_user)" >/dev/null
}
protect tenantq
check_has "sd_rr's own push into tenantq is refused by its row security" \
    "$(as sd_rr "SELECT fetchq.doc_push('tenantq', 'x0', 0, 0, now(), '{\"tenant\": \"other\"}')")" \
    'row-level security'
out=$(as sd_rr "SELECT fetchq.route_create('rrq', 'tenantq')")
check_has "route_create into it is refused" "$out" \
    'ERROR:  42501: permission denied to create a route from queue "rrq" to queue "tenantq"'
check_has "... saying why" "$out" 'DETAIL:  The role may push into queue "tenantq" only through row security'
as sd_rr "SELECT fetchq.doc_push('rrq', 'x1', 0, 0, now(), '{\"tenant\": \"other\"}')" >/dev/null
check "and a push into the source lands nothing there" \
    "$(q "SELECT count(*) FROM fetchq_data.tenantq__docs")" 0
out=$(as sd_rr "SELECT fetchq.subscribe('rrtopic', 'tenantq')")
check_has "subscribe into it is refused too" "$out" \
    'ERROR:  42501: permission denied to create a route from queue "rrtopic" to queue "tenantq"'

# Policies added after the route was made: refused at delivery.
check "a route into a queue without row security is made" \
    "$(as sd_rr "SELECT fetchq.route_create('rrq', 'tenant2q') > 0")" t
check "and delivers" \
    "$(as sd_rr "SELECT fetchq.doc_push('rrq', 'x2', 0, 0, now(), '{}');
                 SELECT count(*) FROM fetchq_data.tenant2q__docs WHERE subject = 'x2'" | tail -1)" 1
protect tenant2q
out=$(as sd_rr "SELECT fetchq.doc_push('rrq', 'x3', 0, 0, now(), '{\"tenant\": \"other\"}')")
check_has "once row security applies to its creator there, the delivery is refused" "$out" \
    'ERROR:  42501: route [0-9]+ from queue "rrq" to queue "tenant2q" may not deliver'
check "... and nothing landed" \
    "$(q "SELECT count(*) FROM fetchq_data.tenant2q__docs WHERE subject = 'x3'")" 0
as sd_rr "SELECT fetchq.route_drop('rrq', 'tenant2q')" >/dev/null

# The destination's owner routes into its own queue; with FORCE ROW LEVEL
# SECURITY the copies, inserted as that owner, meet the policies.
as sd_ten "SELECT fetchq.queue_create('tensrc'); SELECT fetchq.queue_create('tenant5q')" >/dev/null
protect tenant5q
as sd_ten "ALTER TABLE fetchq_data.tenant5q__docs FORCE ROW LEVEL SECURITY" >/dev/null
check "the owner of a queue with forced row security may route into it" \
    "$(as sd_ten "SELECT fetchq.route_create('tensrc', 'tenant5q') > 0")" t
check "its copies that the policies allow land" \
    "$(as sd_ten "SELECT fetchq.doc_push('tensrc', 'f1', 0, 0, now(), '{\"tenant\": \"sd_ten\"}')") $(q "SELECT count(*) FROM fetchq_data.tenant5q__docs WHERE subject = 'f1'")" "1 1"
check_has "and those they refuse are refused" \
    "$(as sd_ten "SELECT fetchq.doc_push('tensrc', 'f2', 0, 0, now(), '{\"tenant\": \"other\"}')")" \
    'row-level security'
check "a subscription of a queue without row security is made" \
    "$(as sd_rr "SELECT fetchq.subscribe('rrtopic', 'tenant4q') > 0")" t
protect tenant4q
out=$(as sd_rr "SELECT fetchq.doc_push('rrtopic', 'x4', 0, 0, now(), '{\"tenant\": \"other\"}')")
check_has "once row security applies to the subscriber there, the publication is refused" "$out" \
    'ERROR:  42501: route [0-9]+ from queue "rrtopic" to queue "tenant4q" may not deliver'
check "... and nothing landed" "$(q "SELECT count(*) FROM fetchq_data.tenant4q__docs")" 0

echo "--- 5. dead-letter queues whose row security applies to their setter"
out=$(as sd_rr "SELECT fetchq.queue_set_dead_letter('rrq', 'tenantq')")
check_has "queue_set_dead_letter into it is refused" "$out" \
    'ERROR:  42501: permission denied to copy killed documents of queue "rrq" into dead-letter queue "tenantq"'
check "... and not set" \
    "$(q "SELECT coalesce(dead_letter_queue, '-') FROM fetchq.queues WHERE name = 'rrq'")" -
check "a dead-letter queue without row security is set" \
    "$(as sd_rr "SELECT fetchq.queue_set_dead_letter('rrq', 'tenant3q')")" 1
check "and receives copies, as its owner" \
    "$(as sd_rr "SELECT fetchq.doc_push('rrq', 'k1', 0, 0, now(), '{}');
                 SELECT count(*) FROM fetchq.doc_take('rrq', 'k1', '1m');
                 SELECT fetchq.doc_kill('rrq', 'k1')" | tail -1) $(q "SELECT count(*) FROM fetchq_data.tenant3q__docs WHERE subject = 'k1'")" "1 1"
protect tenant3q
out=$(as sd_rr "SELECT fetchq.doc_push('rrq', 'k2', 0, 0, now(), '{}');
                SELECT count(*) FROM fetchq.doc_take('rrq', 'k2', '1m');
                SELECT fetchq.doc_kill('rrq', 'k2')")
check_has "once row security applies to its setter there, the kill is refused" "$out" \
    'ERROR:  42501: permission denied to copy killed documents of queue "rrq" into dead-letter queue "tenant3q"'
check "... and nothing landed" \
    "$(q "SELECT count(*) FROM fetchq_data.tenant3q__docs WHERE subject = 'k2'")" 0

echo
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "every attack failed"
