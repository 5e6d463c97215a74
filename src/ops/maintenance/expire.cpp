// Planned or pending documents past their expires_at are deleted. Active
// ones are left to their consumer: completing an expired job is its call.
// Documents waiting on an expired one are killed with it.
#include <string>

#include "ops/counters/counters.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/maintenance/maintenance.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/documents/doc_dependencies.hpp"
#include "ops/documents/doc_moves.hpp"

namespace fetchq::ops {

int64_t expire_documents(std::string_view queue, int32_t limit) {
    using namespace fetchq::pg;
    check_task_limit(limit);
    SPIPlanPtr plan = queue_plan(
        queue, "expire",
        [&] {
            const std::string docs = docs_rel(queue);
            return "DELETE FROM " + docs + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM " + docs +
                   " WHERE expires_at IS NOT NULL AND status IN " + status_sql::waiting +
                   " AND expires_at <= now()"
                   " ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED))"
                   " RETURNING status, version, subject, next_iteration = 'infinity'";
        },
        {INT4OID});
    Datum limit_arg = Int32GetDatum(limit);
    const uint64_t n = queue_execute(queue, plan, &limit_arg, nullptr);
    std::vector<LeftDocument> expired;
    for (uint64_t row = 0; row < n; ++row) {
        const int64_t status = spi_int(row, 1);
        const int64_t version = spi_int(row, 2);
        const auto from = core::status_from_code(status).value_or(core::DocStatus::kPending);
        count_move_from(queue, core::DocMove::kExpire, from, 1, static_cast<int32_t>(version));
        bool isnull = false;
        expired.push_back({spi_text(row, 3), DatumGetBool(spi_value(row, 4, &isnull))});
    }
    // What waited on them never will be released; what waited, waits no more.
    const std::string name(queue);
    forget_left_documents(name, expired, "expired");
    return static_cast<int64_t>(n);
}

}  // namespace fetchq::ops
