#include "ops/streams/stream_grants.hpp"

#include <initializer_list>
#include <string>

#include "ops/catalog/catalog_owner.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

// Runs a statement on one grant (stream $1, grantee $2, privileges $3 [,
// grantor $4]) as the catalog's owner; returns the mask in its first column
// (0: no row).
core::StreamPrivilegeMask write(const char* name, const char* sql, int32_t stream, Oid grantee,
                                core::StreamPrivilegeMask privileges, Oid grantor = InvalidOid) {
    const bool with_grantor = OidIsValid(grantor);
    SPIPlanPtr plan = cached_plan(
        "", name, [sql] { return std::string(sql); },
        with_grantor ? std::initializer_list<Oid>{INT4OID, OIDOID, INT2OID, OIDOID}
                     : std::initializer_list<Oid>{INT4OID, OIDOID, INT2OID});
    Datum values[4] = {Int32GetDatum(stream), ObjectIdGetDatum(grantee), Int16GetDatum(privileges),
                       ObjectIdGetDatum(grantor)};
    core::StreamPrivilegeMask left = 0;
    as_catalog_owner([&] {
        if (spi_execute(plan, values, nullptr, false) > 0)
            left = static_cast<core::StreamPrivilegeMask>(spi_int(0, 1));
    });
    return left;
}

}  // namespace

core::StreamPrivilegeMask store_stream_grant(int32_t stream, Oid grantee,
                                             core::StreamPrivilegeMask privileges, Oid grantor) {
    return write("stream_grant_store",
                 "INSERT INTO fetchq.stream_grants AS g (stream_id, grantee, privileges, grantor)"
                 " VALUES ($1, $2::pg_catalog.regrole, $3, $4::pg_catalog.regrole)"
                 " ON CONFLICT (stream_id, grantee) DO UPDATE"
                 " SET privileges = g.privileges OPERATOR(pg_catalog.|) EXCLUDED.privileges,"
                 " grantor = EXCLUDED.grantor, granted_at = EXCLUDED.granted_at"
                 " RETURNING privileges",
                 stream, grantee, privileges, grantor);
}

core::StreamPrivilegeMask remove_stream_grant(int32_t stream, Oid grantee,
                                              core::StreamPrivilegeMask privileges) {
    const core::StreamPrivilegeMask left =
        write("stream_revoke_some",
              "UPDATE fetchq.stream_grants SET privileges = privileges"
              " OPERATOR(pg_catalog.&) OPERATOR(pg_catalog.~) $3"
              " WHERE stream_id = $1 AND grantee = $2::pg_catalog.regrole"
              " AND privileges OPERATOR(pg_catalog.&) OPERATOR(pg_catalog.~) $3"
              " OPERATOR(pg_catalog.<>) 0 RETURNING privileges",
              stream, grantee, privileges);
    if (left == 0)
        write("stream_revoke_all",
              "DELETE FROM fetchq.stream_grants WHERE stream_id = $1"
              " AND grantee = $2::pg_catalog.regrole"
              " AND privileges OPERATOR(pg_catalog.&) OPERATOR(pg_catalog.~) $3"
              " OPERATOR(pg_catalog.=) 0 RETURNING 0",
              stream, grantee, privileges);
    return left;
}

int64_t remove_stream_grants_of_dropped_roles() {
    if (!OidIsValid(table_owner("fetchq", "stream_grants"))) return 0;
    SPIPlanPtr plan = cached_plan(
        "", "stream_grants_dropped_roles",
        [] {
            return std::string(
                "DELETE FROM fetchq.stream_grants AS g WHERE NOT EXISTS (SELECT 1 FROM"
                " pg_catalog.pg_roles AS a WHERE a.oid OPERATOR(pg_catalog.=) g.grantee)");
        },
        {});
    int64_t n = 0;
    as_catalog_owner([&] { n = static_cast<int64_t>(spi_execute(plan, nullptr, nullptr, false)); });
    return n;
}

}  // namespace fetchq::ops
