#include "ops/maintenance/metric_snapshot.hpp"

#include "ops/counters/counters.hpp"
#include "ops/queues/queue_sql.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

uint64_t snapshot_counters(const std::string& queue, const Datum* whitelist) {
    SPIPlanPtr plan = queue_plan(
        queue, whitelist ? "metric_snap_some" : "metric_snap_all",
        [&] {
            std::string sql = "INSERT INTO " + metrics_rel(queue) +
                              " (metric, value) SELECT c.metric, c.current_value FROM (" +
                              queue_counters_sql() + ") AS c";
            if (whitelist) sql += " WHERE c.metric IN (SELECT jsonb_array_elements_text($4))";
            return sql + " ORDER BY c.metric";
        },
        {TEXTOID, TEXTARRAYOID, INT8ARRAYOID, JSONBOID});
    Datum values[4] = {to_text(queue), 0, 0, whitelist ? *whitelist : (Datum)0};
    char nulls[4] = {' ', ' ', ' ', whitelist ? ' ' : 'n'};
    pending_arrays(queue, &values[1], &values[2]);
    return queue_execute(queue, plan, values, nulls);
}

}  // namespace fetchq::ops
