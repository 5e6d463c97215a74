// A queue's documents counted by status, and what is ready to pick and since
// when: the document half of fetchq.stats (the counters are the other half,
// ops/counters/counters.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "pg/postgres.hpp"

namespace fetchq::ops {

struct DocCounts {
    int64_t total = 0;
    int64_t planned = 0;
    int64_t pending = 0;
    int64_t active = 0;
    int64_t completed = 0;
    int64_t killed = 0;
    // Pending documents a pick would take now: due, not expired (any version).
    int64_t ready = 0;
    // Seconds since the oldest ready document became due; 0 when none is.
    double oldest_ready_age = 0;
    // When the first planned document becomes due; nullopt when none is planned.
    std::optional<TimestampTz> next_planned_at;
};

// Counts the queue's documents in one pass over its table, in the caller's
// snapshot, or in a new one when !read_only (to see the commits a lock just
// waited for). Run it as the queue's owner (as_queue_owner with ACL_SELECT).
DocCounts count_documents(std::string_view queue, bool read_only = true);

}  // namespace fetchq::ops
