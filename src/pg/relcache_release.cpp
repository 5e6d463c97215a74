#include "pg/relcache_release.hpp"

#include <algorithm>

#include "pg/guard.hpp"

extern "C" {
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
}

namespace fetchq::pg {

std::vector<Oid> plan_relations(SPIPlanPtr plan) {
    std::vector<Oid> relids;
    pg_call([&] {
        ListCell* lc;
        foreach (lc, SPI_plan_get_plan_sources(plan)) {
            auto* source = static_cast<CachedPlanSource*>(lfirst(lc));
            ListCell* rc;
            foreach (rc, source->relationOids) relids.push_back(lfirst_oid(rc));
        }
    });
    return relids;
}

void release_relcache(const std::vector<Oid>& relids, const char* schema) {
    std::vector<Oid> all(relids);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    pg_call([&] {
        const Oid nsp = get_namespace_oid(schema, true);
        for (Oid relid : all) {
            // Its index list, from the entry itself (opened without a lock:
            // only the cached entry is read; a relation gone meanwhile has
            // none).
            Relation rel = RelationIdGetRelation(relid);
            if (rel == nullptr) continue;
            const bool ours = rel->rd_rel->relnamespace == nsp;
            List* indexes = ours ? RelationGetIndexList(rel) : NIL;
            RelationClose(rel);
            if (!ours) continue;
            ListCell* lc;
            foreach (lc, indexes) RelationCacheInvalidateEntry(lfirst_oid(lc));
            list_free(indexes);
            RelationCacheInvalidateEntry(relid);
        }
    });
}

}  // namespace fetchq::pg
