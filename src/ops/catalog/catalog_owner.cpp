#include "ops/catalog/catalog_owner.hpp"

#include "core/error.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "utils/acl.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;

Oid catalog_owner() {
    const Oid owner = table_owner("fetchq", "queues");
    if (!OidIsValid(owner))
        throw core::Error(core::sqlstate::kUndefinedObject, "table fetchq.queues does not exist",
                          {},
                          "Reinstall the extension: DROP EXTENSION fetchq; CREATE EXTENSION "
                          "fetchq;");
    return owner;
}

bool may_create_in_data_schema() {
    return pg_call([] {
        const Oid schema = get_namespace_oid("fetchq_data", false);
        return pg_namespace_aclcheck(schema, GetUserId(), ACL_CREATE) == ACLCHECK_OK;
    });
}

void require_create_in_data_schema(const std::string& what) {
    if (may_create_in_data_schema()) return;
    const char* role = pg_call([] { return GetUserNameFromId(GetUserId(), false); });
    const std::string quoted = pg_call([&] { return std::string(quote_identifier(role)); });
    throw core::Error(
        core::sqlstate::kInsufficientPrivilege, "permission denied to create " + what,
        "Creating a queue or a stream creates its tables in schema fetchq_data, "
        "which needs the CREATE privilege on that schema.",
        "An administrator can give it: GRANT CREATE ON SCHEMA fetchq_data TO " + quoted + ";");
}

}  // namespace fetchq::ops
