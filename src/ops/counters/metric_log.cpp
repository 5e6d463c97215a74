#include "ops/counters/metric_log.hpp"

#include <optional>
#include <string>
#include <vector>

#include "ops/counters/counters.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {
namespace {

using namespace fetchq::pg;

struct Folded {
    std::string queue, metric;
    std::optional<int64_t> reset;  // the latest one
    int64_t increment;             // the sum of all
};

// Takes the log entries no other packer holds (SKIP LOCKED: two packers
// never fold the same entry), deletes them, and returns them per counter, in
// the order commits lock counter rows (bytewise (queue, metric)).
std::vector<Folded> take_log(int64_t* entries) {
    SPIPlanPtr plan = cached_plan(
        "", "metric_log_take",
        [] {
            return std::string(
                "WITH w AS (DELETE FROM fetchq.metrics_writes WHERE ctid = ANY (ARRAY("
                "SELECT ctid FROM fetchq.metrics_writes FOR UPDATE SKIP LOCKED)) "
                "RETURNING ctid, queue, metric, increment, reset, created_at) "
                "SELECT queue, metric, (array_agg(reset ORDER BY created_at DESC NULLS LAST, "
                "ctid DESC) "
                "FILTER (WHERE reset IS NOT NULL))[1], COALESCE(sum(increment), 0)::int8, "
                "count(*) FROM w GROUP BY queue, metric "
                "ORDER BY queue COLLATE \"C\", metric COLLATE \"C\"");
        },
        {});
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, nullptr, nullptr, false); });
    std::vector<Folded> out;
    out.reserve(n);
    *entries = 0;
    for (uint64_t row = 0; row < n; ++row) {
        bool reset_null = true;
        Datum reset = spi_value(row, 3, &reset_null);
        Folded f{spi_text(row, 1), spi_text(row, 2), std::nullopt, spi_int(row, 4)};
        if (!reset_null) f.reset = DatumGetInt64(reset);
        out.push_back(std::move(f));
        *entries += spi_int(row, 5);
    }
    return out;
}

}  // namespace

int64_t pack_metric_log() {
    int64_t entries = 0;
    const std::vector<Folded> folded = take_log(&entries);
    for (const Folded& f : folded)
        if (f.reset) counter_set(f.queue, f.metric, *f.reset);
    for (const Folded& f : folded) metric_add(f.queue, f.metric, f.increment);
    return entries;
}

}  // namespace fetchq::ops
