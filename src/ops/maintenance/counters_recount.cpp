#include "ops/maintenance/counters_recount.hpp"

#include <array>
#include <optional>
#include <vector>

#include "ops/catalog/catalog_owner.hpp"
#include "ops/counters/counters.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/queues/queue_stats.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

void recount_status_counters(const std::string& queue) {
    spi_execute_text("LOCK TABLE " + docs_rel(queue) + " IN SHARE MODE");
    counters_lock_queue_row(queue);
    std::vector<QueueCounters> current;
    // In a snapshot taken after the locks, as the counts below.
    as_catalog_owner([&] { current = reported_counters(queue, false); });
    if (current.empty()) return;  // dropped meanwhile
    const DocCounts d = count_documents(queue, false);
    // kReportedCounters begins with cnt, pln, pnd, act, cpl, kll.
    const std::array<int64_t, 6> counted = {d.total,  d.planned,   d.pending,
                                            d.active, d.completed, d.killed};
    for (std::size_t i = 0; i < counted.size(); ++i) {
        const int64_t diff = counted[i] - current.front().values[i];
        if (diff != 0) metric_add(queue, core::kReportedCounters[i], diff);
    }
}

}  // namespace fetchq::ops
