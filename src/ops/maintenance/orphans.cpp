// Active documents whose lock expired: their consumer is gone. Those with
// attempts left go back to pending (orphans), the others are killed (dead).
#include <vector>

#include "core/error.hpp"
#include "ops/counters/counters.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/documents/retry_policy.hpp"
#include "ops/maintenance/maintenance.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/documents/dead_letters.hpp"
#include "ops/documents/doc_dependencies.hpp"
#include "ops/documents/doc_moves.hpp"

namespace fetchq::ops {
namespace {

using namespace fetchq::pg;

// `attempts_test` compares d.attempts with the queue's max_attempts, read
// in the statement so a change by queue_set_max_attempts applies at once
// (5, Fetchq's default, when the catalog row is missing). Rows are chosen
// by lock expiry on the active partial index, locked without waiting, and
// updated by address (see task_promote.cpp).
int64_t update_expired(std::string_view queue, const char* plan_name, core::DocStatus to,
                       const char* attempts_test, int32_t limit) {
    check_task_limit(limit);
    SPIPlanPtr plan = queue_plan(
        queue, plan_name,
        [&] {
            const std::string docs = docs_rel(queue);
            // Orphans with attempts left wait for the queue's retry policy.
            const std::string next = to == core::DocStatus::kPending
                                         ? ", next_iteration = COALESCE(" +
                                               retry_policy_next_sql("attempts", "$2") +
                                               ", next_iteration)"
                                         // Killed: when (the retention counts from it).
                                         : std::string(", last_iteration = now()");
            return "UPDATE " + docs + " SET status = " + core::sql_status(to) + next +
                   ", lock_session = NULL" + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM " + docs +
                   " WHERE status = " + status_sql::active +
                   " AND lock_upgrade IS NULL AND next_iteration < now()"
                   " AND attempts " +
                   attempts_test +
                   " COALESCE((SELECT q.max_attempts FROM fetchq.queues q WHERE q.name = $2), 5)"
                   " ORDER BY next_iteration LIMIT $1 FOR UPDATE SKIP LOCKED))"
                   " RETURNING subject, CASE WHEN status = " +
                   status_sql::killed + " THEN payload::text END, attempts";
        },
        {INT4OID, TEXTOID});
    Datum values[2] = {Int32GetDatum(limit), to_text(queue)};
    return static_cast<int64_t>(queue_execute(queue, plan, values, nullptr));
}

}  // namespace

int64_t reschedule_orphans(std::string_view queue, int32_t limit) {
    const int64_t n = update_expired(queue, "mnt_orphans", core::DocStatus::kPending, "<", limit);
    count_move(queue, core::DocMove::kOrphan, core::DocStatus::kPending, n);
    return n;
}

int64_t mark_dead(std::string_view queue, int32_t limit) {
    const int64_t n = update_expired(queue, "mnt_dead", core::DocStatus::kKilled, ">=", limit);
    count_move(queue, core::DocMove::kDead, core::DocStatus::kKilled, n);
    if (n > 0) {
        const std::string name(queue);
        std::vector<uint64_t> rows(static_cast<size_t>(n));
        for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
        const std::vector<KilledDoc> dead = killed_rows(rows, 0, 1);
        if (const std::optional<DeadLetter> dead_letter = dead_letter_queue(name))
            send_to_dead_letters(name, *dead_letter, dead, "lock expired, no attempts left");
        // Documents waiting on them are killed too (as their queues' owners).
        for (const KilledDoc& d : dead) kill_dependents(name, d.subject);
    }
    return n;
}

}  // namespace fetchq::ops
