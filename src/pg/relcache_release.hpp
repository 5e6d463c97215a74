// Frees this backend's relcache entries of relations it no longer uses.
// PostgreSQL keeps the entry of every relation a backend ever opened (its
// descriptor, and its indexes' entries and operator data) until an
// invalidation arrives for it: with a thousand queues, some 60 kB a queue
// for the backend's life. Freed the way an invalidation frees them: an entry
// someone has open is rebuilt instead, and the next use builds it again.
#pragma once

#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::pg {

// The relations that the plans read (from their plan sources).
std::vector<Oid> plan_relations(SPIPlanPtr plan);

// Frees the entries of those of the relations that are in `schema`, and of
// their indexes (the catalog tables other queues share stay). In a
// transaction.
void release_relcache(const std::vector<Oid>& relids, const char* schema);

}  // namespace fetchq::pg
