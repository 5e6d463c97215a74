#include "ops/maintenance/purge.hpp"

#include <string>

#include "ops/documents/doc_moves.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/maintenance/maintenance.hpp"
#include "ops/queues/queue_sql.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

// One status: its documents unchanged since before now() - the queue's
// retention column, oldest first, rows that others hold skipped.
int64_t purge_status(std::string_view queue, const char* plan_name, core::DocStatus status,
                     const char* retention_column, int32_t limit) {
    SPIPlanPtr plan =
        queue_plan(queue, plan_name,
                   [&] {
                       const std::string docs = docs_rel(queue);
                       return "DELETE FROM " + docs + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM " +
                              docs + " WHERE status = " + core::sql_status(status) +
                              " AND last_iteration < now() - (SELECT q." + retention_column +
                              " FROM fetchq.queues q WHERE q.name = $2)"
                              " ORDER BY last_iteration LIMIT $1 FOR UPDATE SKIP LOCKED))"
                              " RETURNING version";
                   },
                   {INT4OID, TEXTOID});
    Datum values[2] = {Int32GetDatum(limit), to_text(queue)};
    const uint64_t n = queue_execute(queue, plan, values, nullptr);
    for (uint64_t row = 0; row < n; ++row)
        count_move_from(queue, core::DocMove::kPurge, status, 1,
                        static_cast<int32_t>(spi_int(row, 1)));
    return static_cast<int64_t>(n);
}

}  // namespace

int64_t purge_finished(std::string_view queue, int32_t limit) {
    check_task_limit(limit);
    return purge_status(queue, "purge_completed", core::DocStatus::kCompleted,
                        "completed_retention", limit) +
           purge_status(queue, "purge_killed", core::DocStatus::kKilled, "killed_retention", limit);
}

}  // namespace fetchq::ops
