#include "ops/queue_defaults.hpp"

#include <cstdint>
#include <unordered_map>

extern "C" {
#include "nodes/makefuncs.h"
#include "utils/inval.h"
}

#include "pg/guard.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

struct Cache {
    std::unordered_map<std::string, std::optional<Interval>> ttl;
    uint64_t generation = 0;  // of the entries in ttl
};

Cache& cache() {
    static Cache c;
    return c;
}

// Bumped by every invalidation of fetchq.queues; plain data, so that the
// callback never allocates.
uint64_t g_generation = 1;
Oid g_queues_relid = InvalidOid;

// The table may have been dropped (DROP EXTENSION): look its oid up again.
void on_relcache(Datum, Oid relid) {
    pg::callback_entry(ERROR, "relcache_callback", [relid] {
        if (relid != InvalidOid && relid != g_queues_relid) return;
        ++g_generation;
        g_queues_relid = InvalidOid;
    });
}

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
    Cache& c = cache();
    if (g_queues_relid == InvalidOid)
        g_queues_relid = pg_call([] {
            return RangeVarGetRelid(
                makeRangeVar(const_cast<char*>("fetchq"), const_cast<char*>("queues"), -1), NoLock,
                true);
        });
    if (c.generation != g_generation) {
        c.ttl.clear();
        c.generation = g_generation;
    }
    auto it = c.ttl.find(queue);
    if (it != c.ttl.end()) return it->second;
    // An invalidation processed while reading (the lock on fetchq.queues
    // accepts pending ones) may be newer than what was read: keep nothing.
    const uint64_t before = g_generation;
    std::optional<Interval> ttl = read_ttl(queue);
    if (g_generation == before) c.ttl.emplace(queue, ttl);
    return ttl;
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

void queue_defaults_register() { CacheRegisterRelcacheCallback(on_relcache, (Datum)0); }

}  // namespace fetchq::ops
