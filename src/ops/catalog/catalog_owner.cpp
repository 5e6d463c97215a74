#include "ops/catalog/catalog_owner.hpp"

#include "core/error.hpp"

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

}  // namespace fetchq::ops
