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

// Sets session_replication_role to origin for the current GUC nest level
// (pg/as_user.hpp's unit rolls it back): a push made by an apply worker
// fires the destination's triggers, foreign keys included, as any push does.
void replication_role_origin();

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
