// What a role may do with a route from one queue to another, looked up in
// one go: route_create asks for the caller, each delivery for the route's
// creator (ops/documents/route_delivery.hpp). A route copies every document that
// arrives in its source, so the role must read them all (no row security
// filtering what it sees) and be allowed to push into the destination, with
// no row security applying to its pushes there: a copy is inserted as the
// destination's owner, whom the destination's policies do not hold back, so
// a role they hold back would land rows they refuse. A queue with grants of
// its own (ops/queues/queue_access.hpp) asks for manage on the source and push on
// the destination instead (a granted push runs as the owner anyway). Dead
// letters (ops/documents/dead_letters.hpp) use the destination's half. Needs SPI.
#pragma once

#include <string>

#include "pg/postgres.hpp"

namespace fetchq::ops {

struct RouteRights {
    bool role_exists = false;
    bool source_exists = false;       // the source's documents table
    bool destination_exists = false;  // the destination's
    bool may_read = false;            // SELECT on the source's documents (or manage)
    bool filtered = false;            // row security filters what it sees of them
    bool may_push = false;  // INSERT and SELECT (ON CONFLICT) on the destination's (or push)
    // row security applies to its pushes into the destination's documents
    // (and it does not have the privileges of their owner)
    bool push_filtered = false;
    Oid destination_owner = InvalidOid;
};

RouteRights route_rights(const std::string& source, const std::string& destination, Oid role);

inline bool may_route(const RouteRights& r) {
    return r.role_exists && r.may_read && !r.filtered && r.may_push && !r.push_filtered;
}

// Why an existing role may not route (empty when it may), as a sentence for an
// error's detail, naming the role as `who` ("The role", "Its creator, role
// \"r\",").
std::string route_refusal(const RouteRights& rights, const std::string& who,
                          const std::string& source, const std::string& destination);

}  // namespace fetchq::ops
