#include "ops/queues/queue_defaults.hpp"

#include "ops/catalog/catalog_cache.hpp"
#include "pg/guard.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

std::optional<Interval> read_ttl(const std::string& queue) {
    SPIPlanPtr plan = cached_plan(
        "", "queue_default_ttl",
        [] { return std::string("SELECT default_ttl FROM fetchq.queues WHERE name = $1"); },
        {TEXTOID});
    Datum arg = to_text(queue);
    if (spi_execute_latest(plan, &arg, nullptr) == 0) return std::nullopt;
    bool isnull = true;
    Datum value = spi_value(0, 1, &isnull);
    if (isnull) return std::nullopt;
    return *DatumGetIntervalP(value);
}

}  // namespace

std::optional<Interval> queue_default_ttl(const std::string& queue) {
    static CatalogCache<std::optional<Interval>> cache;
    return cache.get(queue, [&] { return read_ttl(queue); });
}

std::optional<TimestampTz> default_expiry(const std::string& queue) {
    const std::optional<Interval> ttl = queue_default_ttl(queue);
    if (!ttl) return std::nullopt;
    Interval span = *ttl;
    return pg_call([&] {
        return DatumGetTimestampTz(DirectFunctionCall2(
            timestamptz_pl_interval, TimestampTzGetDatum(GetCurrentTransactionStartTimestamp()),
            IntervalPGetDatum(&span)));
    });
}

}  // namespace fetchq::ops
