// PostgreSQL's logical replication, as remote routes use it
// (ops/remote_routes): the names of this database, the apply worker a
// trigger runs in, and the commands a subscriber sends to the publishing
// server over a replication connection (the slot a subscription reads).
#pragma once

#include <cstdint>
#include <string>

#include "pg/postgres.hpp"

namespace fetchq::pg {

// This cluster's system identifier (pg_control_system()).
uint64_t system_identifier();

// True in a logical replication apply worker; *subscription is then the
// name of the subscription it applies.
bool in_apply_worker(std::string* subscription);

// Runs f with the session's replication role at origin, as the role was
// before when f returns or throws: a push made by an apply worker (whose
// role is replica) fires the destination's triggers, foreign keys included,
// as any push does. The variable is set, not the setting: setting
// session_replication_role flushes every cached plan of the backend
// (ResetPlanCache), which twice per document cut the deliveries per second
// by half or more (measured). What the flush is for, rules applied by role
// when a statement is rewritten, does not apply: the statements run here are
// fetchq's, prepared and run with the role at origin each time.
template <typename F>
void with_origin_role(F&& f) {
    const int saved = SessionReplicationRole;
    SessionReplicationRole = SESSION_REPLICATION_ROLE_ORIGIN;
    try {
        f();
    } catch (...) {
        SessionReplicationRole = saved;
        throw;
    }
    SessionReplicationRole = saved;
}

// Over a replication connection to `conninfo` (libpqwalreceiver, as CREATE
// SUBSCRIPTION connects): whether publication `name` exists there and
// publishes fetchq.remote_outbox; create
// the logical slot `slot` (pgoutput); drop it, waiting for its reader to
// leave. Errors (connection refused, slot exists) are raised as PostgreSQL
// errors.
bool remote_publication_exists(const std::string& conninfo, const std::string& name);
void remote_create_slot(const std::string& conninfo, const std::string& slot);
void remote_drop_slot(const std::string& conninfo, const std::string& slot);

}  // namespace fetchq::pg
