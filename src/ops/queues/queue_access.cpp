#include "ops/queues/queue_access.hpp"

#include "core/error.hpp"
#include "core/queue_name.hpp"
#include "ops/counters/counters.hpp"
#include "ops/queues/queue_grants.hpp"
#include "ops/queues/queue_sql.hpp"

extern "C" {
#include "utils/acl.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

bool holds(const QueueGrants& grants, Oid owner, Oid role, core::QueuePrivilege privilege) {
    return pg_call([&] {
        if (has_privs_of_role(role, owner)) return true;
        for (const QueueGrant& g : grants)
            if ((g.privileges & core::mask_of(privilege)) && has_privs_of_role(role, g.grantee))
                return true;
        return false;
    });
}

[[noreturn]] void refuse(const std::string& queue, core::QueuePrivilege privilege, Oid role) {
    const char* name = pg_call([&] { return GetUserNameFromId(role, true); });
    const std::string who = name ? name : "?";
    const std::string what(core::privilege_name(privilege));
    throw core::Error(
        core::sqlstate::kInsufficientPrivilege, "permission denied for queue \"" + queue + "\"",
        "Role \"" + who + "\" lacks the " + what + " privilege on queue \"" + queue + "\".",
        "The queue's owner, or a role with manage on it, may grant it: SELECT "
        "fetchq.queue_grant('" +
            queue + "', '" + who + "', '" + what + "');");
}

AclMode table_privilege_of(core::QueuePrivilege privilege) {
    switch (privilege) {
        case core::QueuePrivilege::kPush:
            return ACL_INSERT;
        case core::QueuePrivilege::kPick:
            return ACL_UPDATE;
        default:
            return ACL_SELECT;
    }
}

struct QueueAccess {
    bool granted = false;    // the queue has grants of its own
    Oid owner = InvalidOid;  // its owner, when granted
};

// Raises 42501 unless the current user holds `privilege` on a queue with
// grants; a queue without grants passes (its tables decide).
QueueAccess queue_access(const std::string& queue, core::QueuePrivilege privilege) {
    const std::shared_ptr<const QueueGrants> grants = queue_grants(queue);
    if (grants->empty()) return {};
    const Oid owner = queue_owner_or_invalid(queue);
    if (!OidIsValid(owner)) throw_queue_missing(queue);
    const Oid role = pg_call([] { return GetUserId(); });
    if (!holds(*grants, owner, role, privilege)) refuse(queue, privilege, role);
    return {true, owner};
}

}  // namespace

QueueScope enter_queue(const std::string& queue, core::QueuePrivilege privilege) {
    const QueueAccess access = queue_access(queue, privilege);
    QueueScope scope;
    if (!access.granted || access.owner == pg_call([] { return GetUserId(); })) return scope;
    scope.switched = true;
    scope.saved = enter_user(access.owner);
    metric_on_behalf(queue);
    return scope;
}

void leave_queue(const QueueScope& scope) {
    if (scope.switched) leave_user(scope.saved);
}

bool queue_listed(const std::string& queue, bool with_logs) {
    const Oid me = pg_call([] { return GetUserId(); });
    if (queue_has_grants(queue))
        return queue_privilege_held(queue, core::QueuePrivilege::kRead, me);
    return with_logs ? queue_tables_readable(queue) : queue_docs_allow(queue, ACL_SELECT);
}

bool queue_has_grants(const std::string& queue) { return !queue_grants(queue)->empty(); }

bool queue_privilege_held(const std::string& queue, core::QueuePrivilege privilege, Oid role) {
    const Oid owner = queue_owner_or_invalid(queue);
    if (!OidIsValid(owner)) return false;
    const std::shared_ptr<const QueueGrants> grants = queue_grants(queue);
    if (!grants->empty()) return holds(*grants, owner, role, privilege);
    if (privilege == core::QueuePrivilege::kManage)
        return pg_call([&] { return has_privs_of_role(role, owner); });
    return queue_docs_allow(queue, table_privilege_of(privilege), role);
}

bool queue_rows_are_own(const std::string& queue, Oid role) {
    if (!core::queue_name_problem(queue).empty()) return false;
    const Oid owner = queue_owner_or_invalid(queue);
    if (!OidIsValid(owner)) return false;
    return pg_call([&] { return has_privs_of_role(role, owner); });
}

void require_counter_writer(const std::string& queue) {
    if (queue_docs_allow(queue, ACL_UPDATE) || queue_docs_allow(queue, ACL_INSERT)) return;
    if (!OidIsValid(queue_owner_or_invalid(queue))) throw_queue_missing(queue);
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "permission denied to change the counters of queue \"" + queue + "\"",
                      "Changing a queue's counters takes INSERT or UPDATE on its documents, or "
                      "manage on a queue with grants of its own.",
                      "Ask the queue's owner for a grant.");
}

}  // namespace fetchq::ops
