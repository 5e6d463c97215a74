#include "ops/queues/queue_grants.hpp"

#include "core/error.hpp"
#include "ops/catalog/catalog_cache.hpp"
#include "pg/as_user.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "utils/inval.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

Oid grants_owner() {
    const Oid owner = table_owner("fetchq", "queue_grants");
    if (!OidIsValid(owner))
        throw core::Error(core::sqlstate::kUndefinedObject,
                          "table fetchq.queue_grants does not exist", {},
                          "Update the extension: ALTER EXTENSION fetchq UPDATE;");
    return owner;
}

std::shared_ptr<const QueueGrants> read_grants(const std::string& queue) {
    auto out = std::make_shared<QueueGrants>();
    const Oid owner = table_owner("fetchq", "queue_grants");
    if (!OidIsValid(owner)) return out;
    SPIPlanPtr plan =
        cached_plan("", "queue_grants_of",
                    [] {
                        return std::string(
                            "SELECT grantee::pg_catalog.oid, privileges FROM fetchq.queue_grants"
                            " WHERE queue = $1");
                    },
                    {TEXTOID});
    Datum arg = to_text(queue);
    as_user(owner, [&] {
        const uint64_t n = spi_execute_latest(plan, &arg, nullptr);
        for (uint64_t row = 0; row < n; ++row) {
            bool isnull = false;
            QueueGrant g;
            g.grantee = DatumGetObjectId(spi_value(row, 1, &isnull));
            g.privileges = static_cast<core::PrivilegeMask>(spi_int(row, 2));
            out->push_back(g);
        }
    });
    return out;
}

// Runs a statement on one grant (queue $1, grantee $2, privileges $3 [,
// grantor $4]) as the table's owner; returns the mask in its first column
// (0: no row).
core::PrivilegeMask write(const char* name, const char* sql, const std::string& queue, Oid grantee,
                          core::PrivilegeMask privileges, Oid grantor = InvalidOid) {
    const bool with_grantor = OidIsValid(grantor);
    SPIPlanPtr plan = cached_plan(
        "", name, [sql] { return std::string(sql); },
        with_grantor ? std::initializer_list<Oid>{TEXTOID, OIDOID, INT2OID, OIDOID}
                     : std::initializer_list<Oid>{TEXTOID, OIDOID, INT2OID});
    Datum values[4] = {to_text(queue), ObjectIdGetDatum(grantee), Int16GetDatum(privileges),
                       ObjectIdGetDatum(grantor)};
    core::PrivilegeMask left = 0;
    as_user(grants_owner(), [&] {
        if (spi_execute(plan, values, nullptr, false) > 0)
            left = static_cast<core::PrivilegeMask>(spi_int(0, 1));
    });
    return left;
}

CatalogCache<std::shared_ptr<const QueueGrants>>& grants_cache() {
    static CatalogCache<std::shared_ptr<const QueueGrants>> cache;
    return cache;
}

}  // namespace

std::shared_ptr<const QueueGrants> queue_grants(const std::string& queue) {
    // A revoke committed since this transaction's last lock is seen by the
    // next call, not only by the next transaction.
    pg_call([] { AcceptInvalidationMessages(); });
    return grants_cache().get(queue, [&] { return read_grants(queue); });
}

core::PrivilegeMask store_grant(const std::string& queue, Oid grantee,
                                core::PrivilegeMask privileges, Oid grantor) {
    return write("queue_grant_store",
                 "INSERT INTO fetchq.queue_grants AS g (queue, grantee, privileges, grantor)"
                 " VALUES ($1, $2::pg_catalog.regrole, $3, $4::pg_catalog.regrole)"
                 " ON CONFLICT (queue, grantee) DO UPDATE"
                 " SET privileges = g.privileges OPERATOR(pg_catalog.|) EXCLUDED.privileges,"
                 " grantor = EXCLUDED.grantor, granted_at = EXCLUDED.granted_at"
                 " RETURNING privileges",
                 queue, grantee, privileges, grantor);
}

core::PrivilegeMask remove_grant(const std::string& queue, Oid grantee,
                                 core::PrivilegeMask privileges) {
    const core::PrivilegeMask left =
        write("queue_revoke_some",
              "UPDATE fetchq.queue_grants SET privileges = privileges"
              " OPERATOR(pg_catalog.&) OPERATOR(pg_catalog.~) $3"
              " WHERE queue = $1 AND grantee = $2::pg_catalog.regrole"
              " AND privileges OPERATOR(pg_catalog.&) OPERATOR(pg_catalog.~) $3"
              " OPERATOR(pg_catalog.<>) 0 RETURNING privileges",
              queue, grantee, privileges);
    if (left == 0)
        write("queue_revoke_all",
              "DELETE FROM fetchq.queue_grants WHERE queue = $1"
              " AND grantee = $2::pg_catalog.regrole"
              " AND privileges OPERATOR(pg_catalog.&) OPERATOR(pg_catalog.~) $3"
              " OPERATOR(pg_catalog.=) 0 RETURNING 0",
              queue, grantee, privileges);
    return left;
}

int64_t remove_grants_of_dropped_roles() {
    SPIPlanPtr plan = cached_plan(
        "", "queue_grants_dropped_roles",
        [] {
            return std::string(
                "DELETE FROM fetchq.queue_grants AS g WHERE NOT EXISTS (SELECT 1 FROM"
                " pg_catalog.pg_roles AS a WHERE a.oid OPERATOR(pg_catalog.=) g.grantee)");
        },
        {});
    const Oid owner = table_owner("fetchq", "queue_grants");
    if (!OidIsValid(owner)) return 0;
    int64_t n = 0;
    as_user(owner, [&] { n = static_cast<int64_t>(spi_execute(plan, nullptr, nullptr, false)); });
    return n;
}

}  // namespace fetchq::ops
