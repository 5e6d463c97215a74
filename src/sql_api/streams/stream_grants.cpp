// stream_grant, stream_revoke and stream_has_privilege: the SQL entries of
// ops/streams/stream_grants and ops/streams/stream_access.
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/stream_privilege.hpp"
#include "ops/streams/stream_access.hpp"
#include "ops/streams/stream_grants.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

extern "C" {
#include "utils/acl.h"
}

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

// The stream's id; only its owner (a role with the owner's privileges, a
// superuser) grants or revokes.
int32_t require_grant_right(const std::string& name) {
    const std::shared_ptr<const StreamEntry> stream = stream_entry(name);
    if (stream->id < 0) throw_stream_missing(name);
    const Oid owner = stream->owner;
    if (pg_call([&] { return has_privs_of_role(GetUserId(), owner); })) return stream->id;
    const char* role = pg_call([&] { return GetUserNameFromId(owner, true); });
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "permission denied to grant privileges on stream \"" + name + "\"",
                      "Only the stream's owner (role \"" + std::string(role ? role : "?") +
                          "\"), a member of it, or a superuser may grant or revoke them.",
                      "Ask that role to run the stream_grant call.");
}

// stream_grant(stream, role, privileges) -> what role holds on the stream now
Datum stream_grant(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const Oid role = arg_role(fcinfo, 1);
    const core::StreamPrivilegeMask mask =
        core::parse_stream_privileges(arg_word_list(fcinfo, 2, "privileges"));
    spi_connect();
    const int32_t id = require_grant_right(stream);
    const Oid me = pg_call([] { return GetUserId(); });
    const core::StreamPrivilegeMask now = store_stream_grant(id, role, mask, me);
    spi_finish();
    return text_array(core::stream_privilege_names(now));
}

// stream_revoke(stream, role, privileges) -> what role still holds on it
Datum stream_revoke(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const Oid role = arg_role(fcinfo, 1);
    const core::StreamPrivilegeMask mask =
        core::parse_stream_privileges(arg_word_list(fcinfo, 2, "privileges"));
    spi_connect();
    const core::StreamPrivilegeMask left =
        remove_stream_grant(require_grant_right(stream), role, mask);
    spi_finish();
    return text_array(core::stream_privilege_names(left));
}

// stream_has_privilege(stream, privilege, role DEFAULT NULL) -> boolean. As
// fetchq.stream_privileges shows it: a role asks about itself and the roles
// whose privileges it has, about another only when it may read the stream.
// A missing stream is false.
Datum stream_has_privilege(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const core::StreamPrivilegeMask mask =
        core::parse_stream_privileges({arg_text(fcinfo, 1, "privilege")});
    if (mask == core::kAllStreamPrivileges)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "stream_has_privilege checks one privilege at a time", {},
                          "Use append or read.");
    const Oid me = pg_call([] { return GetUserId(); });
    const Oid role = PG_NARGS() > 2 && !arg_is_null(fcinfo, 2) ? PG_GETARG_OID(2) : me;
    spi_connect();
    const std::shared_ptr<const StreamEntry> entry = stream_entry(stream);
    const bool exists = entry->id >= 0;
    if (exists && !pg_call([&] { return has_privs_of_role(me, role); }) &&
        !stream_privilege_held(*entry, core::StreamPrivilege::kRead, me))
        throw core::Error(
            core::sqlstate::kInsufficientPrivilege,
            "permission denied to ask about another role's privileges on stream \"" + stream + "\"",
            "A role may ask about another role only with the read privilege on the "
            "stream, as fetchq.stream_privileges shows the grants of the streams a "
            "role may read.",
            "Ask about yourself or a role whose privileges you have.");
    const bool held =
        exists && stream_privilege_held(*entry, static_cast<core::StreamPrivilege>(mask), role);
    spi_finish();
    PG_RETURN_BOOL(held);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_stream_grant, fetchq::sql_api::stream_grant)
FETCHQ_SQL_FUNCTION(fetchq_stream_revoke, fetchq::sql_api::stream_revoke)
FETCHQ_SQL_FUNCTION(fetchq_stream_has_privilege, fetchq::sql_api::stream_has_privilege)
