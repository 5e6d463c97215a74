#include "ops/catalog/catalog_cache.hpp"

#include "pg/postgres.hpp"

extern "C" {
#include "nodes/makefuncs.h"
#include "utils/inval.h"
}

#include "pg/guard.hpp"

namespace fetchq::ops {

namespace {

// The tables whose changes empty the caches.
constexpr const char* kCatalogTables[] = {"queues",         "routes",        "queue_grants",
                                          "streams",        "stream_groups", "stream_grants",
                                          "awaited_queues", "flow_limits",   "flow_key_limits",
                                          "remote_routes"};
constexpr int kTables = sizeof(kCatalogTables) / sizeof(kCatalogTables[0]);

// Plain data, so that the callback never allocates.
uint64_t g_generation = 1;
Oid g_relids[kTables] = {InvalidOid};
bool g_known = false;

bool watched(Oid relid) {
    for (Oid r : g_relids)
        if (r == relid) return true;
    return false;
}

// The tables may have been dropped (DROP EXTENSION): looked up again.
void on_relcache(Datum, Oid relid) {
    pg::callback_entry(ERROR, "catalog_relcache_callback", [relid] {
        if (relid != InvalidOid && !watched(relid)) return;
        ++g_generation;
        g_known = false;
    });
}

Oid catalog_relid(const char* name) {
    return pg::pg_call([name] {
        return RangeVarGetRelid(
            makeRangeVar(const_cast<char*>("fetchq"), const_cast<char*>(name), -1), NoLock, true);
    });
}

}  // namespace

uint64_t catalog_generation() {
    if (!g_known) {
        g_known = true;
        for (int i = 0; i < kTables; ++i) {
            g_relids[i] = catalog_relid(kCatalogTables[i]);
            g_known = g_known && OidIsValid(g_relids[i]);
        }
    }
    return g_generation;
}

uint64_t catalog_generation_seen() { return g_generation; }

void catalog_generation_register() { CacheRegisterRelcacheCallback(on_relcache, (Datum)0); }

}  // namespace fetchq::ops
