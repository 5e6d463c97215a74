// Promotion: planned documents whose time has come become pending.
#include "ops/counters/counters.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/maintenance/maintenance.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/documents/doc_moves.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

// The rows are chosen and locked in an InitPlan and updated by address
// (ctid, a TID scan): no second index lookup, so a round costs the same in
// a small and a large queue; a join would let a generic plan hash-join
// against a sequential scan of the whole table.
int64_t promote_planned(std::string_view queue, int32_t limit) {
    check_task_limit(limit);
    SPIPlanPtr plan =
        queue_plan(queue, "mnt_promote",
                   [&] {
                       const std::string docs = docs_rel(queue);
                       return "UPDATE " + docs + " SET status = " + status_sql::pending +
                              " WHERE ctid = ANY (ARRAY(SELECT ctid FROM " + docs +
                              " WHERE status = " + status_sql::planned +
                              " AND lock_upgrade IS NULL AND next_iteration <= now()"
                              " ORDER BY next_iteration LIMIT $1 FOR UPDATE SKIP LOCKED))";
                   },
                   {INT4OID});
    Datum value = Int32GetDatum(limit);
    const int64_t n = static_cast<int64_t>(queue_execute(queue, plan, &value, nullptr));
    if (n > 0) {
        count_move(queue, core::DocMove::kPromote, core::DocStatus::kPending, n);
    }
    return n;
}

}  // namespace fetchq::ops
