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

// The table privilege that stands for `privilege` on a queue without grants.
AclMode table_privilege_of(core::QueuePrivilege privilege);

// 42501 for a role that lacks `privilege` on the queue: one message whatever
// the queue's model, with what its owner would run. On a queue without
// grants of its own, the table privilege (a queue_grant would switch the
// queue to grants, after which only they decide, for every role).
[[noreturn]] void refuse(const std::string& queue, core::QueuePrivilege privilege, Oid role,
                         bool granted) {
    const char* name = pg_call([&] { return GetUserNameFromId(role, true); });
    const std::string who = name ? name : "?";
    const std::string what(core::privilege_name(privilege));
    const std::string message = "permission denied for queue \"" + queue + "\"";
    const std::string lacks =
        "Role \"" + who + "\" lacks the " + what + " privilege on queue \"" + queue + "\"";
    const std::string queue_grant = "SELECT fetchq.queue_grant(" + quote_literal(queue) + ", " +
                                    quote_literal(who) + ", '" + what + "');";
    if (granted)
        throw core::Error(
            core::sqlstate::kInsufficientPrivilege, message, lacks + ".",
            "The queue's owner, or a role with manage on it, may grant it: " + queue_grant);
    const std::string own_grants =
        "or give the queue grants of its own, after which only they decide for every role: " +
        queue_grant;
    if (privilege == core::QueuePrivilege::kManage)
        throw core::Error(core::sqlstate::kInsufficientPrivilege, message,
                          lacks +
                              ": the queue has no grants of its own, so the privileges on its "
                              "tables decide, and it holds none.",
                          "The queue's owner may grant the privileges on its tables that the "
                          "call needs, " +
                              own_grants);
    const char* table = table_privilege_of(privilege) == ACL_INSERT   ? "INSERT"
                        : table_privilege_of(privilege) == ACL_UPDATE ? "UPDATE"
                                                                      : "SELECT";
    const std::string docs = "fetchq_data." + quote_ident(core::docs_table(queue));
    throw core::Error(core::sqlstate::kInsufficientPrivilege, message,
                      lacks +
                          ": the queue has no grants of its own, so the privileges on its "
                          "tables decide, and it lacks " +
                          table + " on table " + docs + ".",
                      "The queue's owner may grant it: GRANT " + std::string(table) + " ON " +
                          docs + " TO " + quote_ident(who) + "; " + own_grants);
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

// Raises 42704 for a missing queue, and 42501 unless the current user holds
// `privilege` on it: on a queue with grants, from them; on one without, the
// table privilege on its documents that the call's statement needs (checked
// first, so that the refusal reads as on a queue with grants and not as
// PostgreSQL's refusal of one of fetchq's statements). What manage takes on
// a queue without grants depends on the call (the owner's privileges, or a
// privilege on one of its tables): a role with no privilege on any of its
// tables is refused here, others are left to the call's own checks.
QueueAccess queue_access(const std::string& queue, core::QueuePrivilege privilege) {
    const Oid owner = queue_owner_or_invalid(queue);
    if (!OidIsValid(owner)) throw_queue_missing(queue);
    const Oid role = pg_call([] { return GetUserId(); });
    const std::shared_ptr<const QueueGrants> grants = queue_grants(queue);
    if (grants->empty()) {
        if (pg_call([&] { return has_privs_of_role(role, owner); })) return {};
        const bool allowed = privilege == core::QueuePrivilege::kManage
                                 ? queue_tables_touchable(queue, role)
                                 : queue_docs_allow(queue, table_privilege_of(privilege), role);
        if (!allowed) refuse(queue, privilege, role, false);
        return {};
    }
    if (!holds(*grants, owner, role, privilege)) refuse(queue, privilege, role, true);
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
