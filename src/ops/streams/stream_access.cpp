#include "ops/streams/stream_access.hpp"

#include "core/error.hpp"
#include "ops/catalog/catalog_cache.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

// Read on the latest snapshot, as every catalog cache.
std::shared_ptr<const StreamEntry> read_entry(const std::string& name) {
    auto out = std::make_shared<StreamEntry>();
    SPIPlanPtr plan = cached_plan(
        "", "stream_entry",
        [] {
            return std::string(
                "SELECT s.id, s.owner::pg_catalog.oid, g.grantee::pg_catalog.oid, g.privileges"
                " FROM fetchq.streams AS s LEFT JOIN fetchq.stream_grants AS g"
                " ON g.stream_id = s.id WHERE s.name = $1");
        },
        {TEXTOID});
    Datum arg = to_text(name);
    as_catalog_owner([&] {
        const uint64_t n = spi_execute_latest(plan, &arg, nullptr);
        for (uint64_t row = 0; row < n; ++row) {
            bool isnull = false;
            out->id = static_cast<int32_t>(spi_int(row, 1));
            out->owner = DatumGetObjectId(spi_value(row, 2, &isnull));
            const Datum grantee = spi_value(row, 3, &isnull);
            if (isnull) continue;
            out->grants.push_back({DatumGetObjectId(grantee),
                                   static_cast<core::StreamPrivilegeMask>(spi_int(row, 4))});
        }
    });
    return out;
}

// The current user as an SQL literal ('with ''quotes''') or identifier.
std::string current_role_quoted(bool literal) {
    return pg_call([literal] {
        const char* name = GetUserNameFromId(GetUserId(), true);
        if (name == nullptr) return std::string("?");
        return std::string(literal ? quote_literal_cstr(name) : quote_identifier(name));
    });
}

}  // namespace

[[noreturn]] void throw_stream_missing(const std::string& name) {
    throw core::Error(core::sqlstate::kUndefinedObject, "stream \"" + name + "\" does not exist",
                      {}, "Create it with fetchq.stream_create('" + name + "').");
}

std::shared_ptr<const StreamEntry> stream_entry(const std::string& name) {
    static CatalogCache<std::shared_ptr<const StreamEntry>> cache;
    // A revoke committed since this transaction's last lock is seen by the
    // next call, not only by the next transaction.
    pg_call([] { AcceptInvalidationMessages(); });
    return cache.get(name, [&] { return read_entry(name); });
}

bool stream_privilege_held(const StreamEntry& stream, core::StreamPrivilege privilege, Oid role) {
    return pg_call([&] {
        if (has_privs_of_role(role, stream.owner)) return true;
        for (const StreamGrant& g : stream.grants)
            if ((g.privileges & core::mask_of(privilege)) && has_privs_of_role(role, g.grantee))
                return true;
        return false;
    });
}

int32_t require_stream_privilege(const std::string& name, core::StreamPrivilege privilege) {
    const std::shared_ptr<const StreamEntry> stream = stream_entry(name);
    if (stream->id < 0) throw_stream_missing(name);
    const Oid me = pg_call([] { return GetUserId(); });
    if (stream_privilege_held(*stream, privilege, me)) return stream->id;
    const std::string what(core::privilege_name(privilege));
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "permission denied for stream \"" + name + "\"",
                      "The " + what + " privilege on the stream is needed.",
                      "Its owner can grant it: SELECT fetchq.stream_grant('" + name + "', " +
                          current_role_quoted(true) + ", '" + what + "');");
}

void require_stream_creator(const std::string& name) {
    require_create_in_data_schema("stream \"" + name + "\"");
}

}  // namespace fetchq::ops
