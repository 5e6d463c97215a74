// Who may do what with a queue, and with whose rights it is done.
//
// A queue without grants of its own (fetchq.queue_grants) keeps the
// all-or-nothing model: calls run as the caller, and the privileges on the
// queue's tables decide, as they always did. Once a queue has a grant, the
// queue privileges decide: its owner (and every role with the owner's
// privileges, superusers included) holds all four; another role holds what
// was granted to it or to a role whose privileges it has. A call that holds
// the privilege it needs runs as the queue's owner (pg/as_user.hpp: security
// restricted, a GUC nest level of its own), so the caller needs no privilege
// on any table, and the queue's counters are written on its behalf
// (ops/counters/counters.hpp); a call that does not is refused before it writes
// anything.
#pragma once

#include <string>

#include "core/queue_privilege.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "pg/as_user.hpp"

namespace fetchq::ops {

// True when the queue has grants of its own. Needs SPI.
bool queue_has_grants(const std::string& queue);

// Whether `role` holds `privilege` on the queue. For a queue without grants,
// the table privilege the calls need: push INSERT, pick UPDATE and read
// SELECT on its documents, manage the owner's privileges. Needs SPI.
bool queue_privilege_held(const std::string& queue, core::QueuePrivilege privilege, Oid role);

// Whether a function that lists queues (stats_all, metric_get_all,
// queue_status, trace) shows `queue` to the current user: read on a queue
// with grants; on a queue without, SELECT on its documents (and its logs,
// with_logs). Needs SPI.
bool queue_listed(const std::string& queue, bool with_logs = false);

// Whether `role` may write the catalog rows of the queue (its settings,
// jobs): it has the privileges of the owner of the queue's tables. A name
// without tables, or not a queue name ('*'), is nobody's. The test of the
// row security of fetchq.queues and fetchq.jobs (queue_is_own).
bool queue_rows_are_own(const std::string& queue, Oid role);

// Whether `role` may change the counters of the queue (metric_set,
// metric_increment, metric_log_*): on a queue without grants, INSERT or
// UPDATE on its documents (who may push or pick there); on one with grants,
// the current user is the owner the call switched to after checking manage.
void require_counter_writer(const std::string& queue);

// Enters a call that needs `privilege` on `queue`: nothing changes when the
// queue has no grants or the caller is its owner; otherwise (the privilege
// checked) the call runs as the queue's owner until leave_queue. On an error
// nothing needs leaving: the abort restores the user and the settings.
struct QueueScope {
    bool switched = false;
    pg::UserContext saved{};
};
QueueScope enter_queue(const std::string& queue, core::QueuePrivilege privilege);
// enter_queue's checks alone: 42704 for a missing queue, 42501 unless the
// current user holds `privilege` on it.
void require_queue_privilege(const std::string& queue, core::QueuePrivilege privilege);
void leave_queue(const QueueScope& scope);

// The same around f.
template <typename F>
void with_queue_privilege(const std::string& queue, core::QueuePrivilege privilege, F&& f) {
    const QueueScope scope = enter_queue(queue, privilege);
    f();
    leave_queue(scope);
}

}  // namespace fetchq::ops
