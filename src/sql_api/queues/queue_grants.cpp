// queue_grant, queue_revoke and queue_has_privilege: the SQL entries of
// ops/queues/queue_grants and ops/queues/queue_access.
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/queue_privilege.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_grants.hpp"
#include "ops/queues/queue_sql.hpp"
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

Datum names_result(core::PrivilegeMask mask) { return text_array(core::privilege_names(mask)); }

// Only the queue's owner, a role with manage on it, or a superuser grants.
// (The caller may read no table of fetchq: the queue's tables say whether it
// exists.)
void require_grant_right(const std::string& queue) {
    if (!OidIsValid(queue_owner_or_invalid(queue))) throw_queue_missing(queue);
    const Oid me = pg_call([] { return GetUserId(); });
    if (queue_privilege_held(queue, core::QueuePrivilege::kManage, me)) return;
    // The hint names the refused role: pasted by the owner, it grants to
    // that role (current_user would grant to whoever runs it).
    const char* name = pg_call([&] { return GetUserNameFromId(me, true); });
    const std::string who = name ? name : "?";
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "permission denied to grant privileges on queue \"" + queue + "\"",
                      "Only the queue's owner, a role with manage on it, or a superuser may "
                      "grant or revoke its privileges; role \"" +
                          who + "\" lacks manage on queue \"" + queue + "\".",
                      "The queue's owner may grant manage: SELECT fetchq.queue_grant(" +
                          quote_literal(queue) + ", " + quote_literal(who) + ", 'manage');");
}

// queue_grant(queue, role, privileges) -> what role holds on the queue now
Datum queue_grant(FunctionCallInfo fcinfo) {
    const std::string queue = arg_queue(fcinfo, 0);
    const Oid role = arg_role(fcinfo, 1);
    const core::PrivilegeMask mask = core::parse_privileges(arg_word_list(fcinfo, 2, "privileges"));
    spi_connect();
    require_grant_right(queue);
    const Oid me = pg_call([] { return GetUserId(); });
    const core::PrivilegeMask now = store_grant(queue, role, mask, me);
    spi_finish();
    return names_result(now);
}

// queue_revoke(queue, role, privileges) -> what role still holds on it
Datum queue_revoke(FunctionCallInfo fcinfo) {
    const std::string queue = arg_queue(fcinfo, 0);
    const Oid role = arg_role(fcinfo, 1);
    const core::PrivilegeMask mask = core::parse_privileges(arg_word_list(fcinfo, 2, "privileges"));
    spi_connect();
    require_grant_right(queue);
    const core::PrivilegeMask left = remove_grant(queue, role, mask);
    spi_finish();
    return names_result(left);
}

// queue_has_privilege tells no more than fetchq.queue_privileges: a role asks
// about itself and the roles whose privileges it has (what it learns by
// calling fetchq's functions anyway), about another role only when it may
// read the queue, as the view shows it that queue's grants. A missing queue
// is false for anyone (the names of queues are in fetchq.queues).
void require_may_ask(const std::string& queue, Oid role, Oid me) {
    if (pg_call([&] { return has_privs_of_role(me, role); })) return;
    if (!OidIsValid(queue_owner_or_invalid(queue))) return;
    if (queue_privilege_held(queue, core::QueuePrivilege::kRead, me)) return;
    const char* my_name = pg_call([&] { return GetUserNameFromId(me, true); });
    const char* other = pg_call([&] { return GetUserNameFromId(role, true); });
    const std::string mine = my_name ? my_name : "?";
    throw core::Error(
        core::sqlstate::kInsufficientPrivilege,
        "permission denied to ask about another role's privileges on queue \"" + queue + "\"",
        "Role \"" + mine + "\" may ask about role \"" + std::string(other ? other : "?") +
            "\" only with the read privilege on the queue (SELECT on its documents table for "
            "a queue without grants), as fetchq.queue_privileges shows the grants of the "
            "queues a role may read.",
        "Ask about yourself or a role whose privileges you have, or get read on the queue: "
        "SELECT fetchq.queue_grant(" +
            quote_literal(queue) + ", " + quote_literal(mine) + ", 'read');");
}

// queue_has_privilege(queue, privilege, role DEFAULT NULL) -> boolean
Datum queue_has_privilege(FunctionCallInfo fcinfo) {
    if (arg_is_null(fcinfo, 0) || arg_is_null(fcinfo, 1)) PG_RETURN_NULL();
    const std::string queue = arg_queue(fcinfo, 0);
    const core::PrivilegeMask mask = core::parse_privileges({arg_text(fcinfo, 1, "privilege")});
    if (mask == core::kAllPrivileges)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "queue_has_privilege checks one privilege at a time", {},
                          "Use push, pick, read or manage.");
    const Oid me = pg_call([] { return GetUserId(); });
    const Oid role = PG_NARGS() > 2 && !arg_is_null(fcinfo, 2) ? PG_GETARG_OID(2) : me;
    spi_connect();
    require_may_ask(queue, role, me);
    const bool held = queue_privilege_held(queue, static_cast<core::QueuePrivilege>(mask), role);
    spi_finish();
    PG_RETURN_BOOL(held);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_queue_grant, fetchq::sql_api::queue_grant)
FETCHQ_SQL_FUNCTION(fetchq_queue_revoke, fetchq::sql_api::queue_revoke)
FETCHQ_SQL_FUNCTION(fetchq_queue_has_privilege, fetchq::sql_api::queue_has_privilege)
