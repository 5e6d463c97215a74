#include "ops/catalog_cache.hpp"

#include "pg/postgres.hpp"

extern "C" {
#include "nodes/makefuncs.h"
#include "utils/inval.h"
}

#include "pg/guard.hpp"

namespace fetchq::ops {

namespace {

// Plain data, so that the callback never allocates.
uint64_t g_generation = 1;
Oid g_queues_relid = InvalidOid;
Oid g_routes_relid = InvalidOid;

// The tables may have been dropped (DROP EXTENSION): looked up again.
void on_relcache(Datum, Oid relid) {
    pg::callback_entry(ERROR, "catalog_relcache_callback", [relid] {
        if (relid != InvalidOid && relid != g_queues_relid && relid != g_routes_relid) return;
        ++g_generation;
        g_queues_relid = g_routes_relid = InvalidOid;
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
    if (g_queues_relid == InvalidOid || g_routes_relid == InvalidOid) {
        g_queues_relid = catalog_relid("queues");
        g_routes_relid = catalog_relid("routes");
    }
    return g_generation;
}

void catalog_generation_register() { CacheRegisterRelcacheCallback(on_relcache, (Datum)0); }

}  // namespace fetchq::ops
