// The grants of each queue (fetchq.queue_grants): read once per backend and
// catalog generation (ops/catalog/catalog_cache.hpp) as the table's owner, since the
// roles they name may read no table of fetchq; written by queue_grant and
// queue_revoke, as that owner, once the caller's right to grant is checked
// (ops/queues/queue_access.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/queue_privilege.hpp"
#include "pg/postgres.hpp"

namespace fetchq::ops {

struct QueueGrant {
    Oid grantee = InvalidOid;
    core::PrivilegeMask privileges = 0;
};

// Empty: the queue has no grant of its own (or does not exist).
using QueueGrants = std::vector<QueueGrant>;

// Needs SPI.
std::shared_ptr<const QueueGrants> queue_grants(const std::string& queue);

// Adds `privileges` to what `grantee` holds on the queue, by `grantor`;
// returns what it holds now.
core::PrivilegeMask store_grant(const std::string& queue, Oid grantee,
                                core::PrivilegeMask privileges, Oid grantor);
// Takes `privileges` away (the row goes when nothing is left); returns what
// it still holds.
core::PrivilegeMask remove_grant(const std::string& queue, Oid grantee,
                                 core::PrivilegeMask privileges);

// Deletes the grants of roles that no longer exist; returns how many.
int64_t remove_grants_of_dropped_roles();

}  // namespace fetchq::ops
