// Who may do what with a stream. Its owner (the role that created it, and
// every role with that role's privileges, superusers included) holds append
// and read, and alone changes, drops or grants it; another role holds what was
// granted to it, or to a role whose privileges it has (fetchq.stream_grants).
// Creating a stream needs CREATE on schema fetchq_data, as creating a queue
// does. Each call is checked here, then reads and writes the tables of
// streams as the catalog's owner (ops/catalog/catalog_owner.hpp): no other
// role needs, or should hold, a privilege on them (docs/install.md, section 5).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/stream_privilege.hpp"
#include "pg/postgres.hpp"

namespace fetchq::ops {

struct StreamGrant {
    Oid grantee = InvalidOid;
    core::StreamPrivilegeMask privileges = 0;
};

struct StreamEntry {
    int32_t id = -1;  // -1: no such stream
    Oid owner = InvalidOid;
    std::vector<StreamGrant> grants;
};

// The stream as the catalog has it, read once per backend and catalog
// generation as the catalog's owner. Needs SPI.
std::shared_ptr<const StreamEntry> stream_entry(const std::string& name);

// Whether `role` holds `privilege` on the stream.
bool stream_privilege_held(const StreamEntry& stream, core::StreamPrivilege privilege, Oid role);

// The stream's id; raises 42704 when it does not exist, 42501 unless the
// current user holds `privilege` on it. Needs SPI.
int32_t require_stream_privilege(const std::string& name, core::StreamPrivilege privilege);

// Raises 42501 unless the current user may create streams.
void require_stream_creator(const std::string& name);

[[noreturn]] void throw_stream_missing(const std::string& name);

}  // namespace fetchq::ops
