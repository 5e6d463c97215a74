#include "ops/route_cache.hpp"

#include <unordered_map>

extern "C" {
#include "nodes/makefuncs.h"
#include "utils/inval.h"
}

#include "ops/route_selector.hpp"
#include "pg/as_user.hpp"
#include "pg/guard.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

struct Cache {
    std::unordered_map<std::string, std::shared_ptr<const QueueRoutes>> queues;
    uint64_t generation = 0;  // of the entries
};

Cache& cache() {
    static Cache c;
    return c;
}

// Bumped by every invalidation of fetchq.routes or fetchq.queues; plain
// data, so that the callback never allocates.
uint64_t g_generation = 1;
Oid g_routes_relid = InvalidOid;
Oid g_queues_relid = InvalidOid;

// The tables may have been dropped (DROP EXTENSION): look them up again.
void on_relcache(Datum, Oid relid) {
    pg::callback_entry(ERROR, "route_cache_callback", [relid] {
        if (relid != InvalidOid && relid != g_routes_relid && relid != g_queues_relid) return;
        ++g_generation;
        g_routes_relid = g_queues_relid = InvalidOid;
    });
}

Oid catalog_relid(const char* name) {
    return pg_call([name] {
        return RangeVarGetRelid(
            makeRangeVar(const_cast<char*>("fetchq"), const_cast<char*>(name), -1), NoLock, true);
    });
}

// Read as the owner of fetchq.routes, whatever the pusher may read of the
// catalog: routes are the extension's, not the pusher's.
std::shared_ptr<const QueueRoutes> read_routes(const std::string& queue) {
    auto out = std::make_shared<QueueRoutes>();
    const Oid owner = table_owner("fetchq", "routes");
    if (!OidIsValid(owner)) return out;
    SPIPlanPtr plan = cached_plan(
        "", "routes_from",
        [] {
            return std::string(
                "SELECT q.is_topic, r.id, r.destination::text, r.owner::oid, r.selector"
                " FROM fetchq.queues AS q LEFT JOIN fetchq.routes AS r ON r.source = q.name"
                " WHERE q.name = $1 ORDER BY r.id");
        },
        {TEXTOID});
    Datum arg = to_text(queue);
    as_user(owner, [&] {
        const uint64_t n = spi_execute_latest(plan, &arg, nullptr);
        for (uint64_t row = 0; row < n; ++row) {
            bool isnull = true;
            out->is_topic = DatumGetBool(spi_value(row, 1, &isnull));
            if (spi_value(row, 2, &isnull), isnull) continue;  // no route
            Route r;
            r.id = spi_int(row, 2);
            r.source = queue;
            r.destination = spi_text(row, 3);
            r.owner = DatumGetObjectId(spi_value(row, 4, &isnull));
            Datum selector = spi_value(row, 5, &isnull);
            if (!isnull) {
                const auto* bytes =
                    pg_call([&] { return DatumGetPointer(PG_DETOAST_DATUM(selector)); });
                r.selector.assign(bytes, VARSIZE(bytes));
                r.uses_variables = selector_uses_variables(r.selector_datum());
                out->any_variables |= r.uses_variables;
            }
            out->routes.push_back(std::move(r));
        }
    });
    return out;
}

}  // namespace

std::shared_ptr<const QueueRoutes> routes_from(const std::string& queue) {
    Cache& c = cache();
    if (g_routes_relid == InvalidOid) {
        g_routes_relid = catalog_relid("routes");
        g_queues_relid = catalog_relid("queues");
    }
    if (c.generation != g_generation) {
        c.queues.clear();
        c.generation = g_generation;
    }
    auto it = c.queues.find(queue);
    if (it != c.queues.end()) return it->second;
    // An invalidation accepted while reading may be newer than what was
    // read: use it this once, keep nothing.
    const uint64_t before = g_generation;
    std::shared_ptr<const QueueRoutes> routes = read_routes(queue);
    if (g_generation == before) c.queues.emplace(queue, routes);
    return routes;
}

void route_cache_register() { CacheRegisterRelcacheCallback(on_relcache, (Datum)0); }

}  // namespace fetchq::ops
