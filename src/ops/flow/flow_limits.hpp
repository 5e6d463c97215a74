// Flow limits of a queue: how many of its documents, and of each flow_key,
// may be active at once (fetchq.queue_set_limits, queue_set_key_limits).
//
// Exact under concurrency: before it counts a queue's or a key's active
// documents, a pick locks that queue's row of fetchq.flow_limits (waiting) or
// takes a transaction-level advisory lock of that key (without waiting: a
// key another transaction is picking counts as full for this one), and
// counts on the latest committed state; the lock is held until the picking
// transaction ends, so the next pick of that key counts what this one made
// active.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "pg/postgres.hpp"

namespace fetchq::ops {

struct FlowLimits {
    std::optional<int32_t> max_active;
    std::optional<int32_t> key_max_active;
    // Per-key exceptions of key_max_active (queue_set_key_limits).
    std::unordered_map<std::string, int32_t> key_caps;

    bool per_key() const { return key_max_active || !key_caps.empty(); }
    // The cap of `key`'s active documents; none: not limited.
    std::optional<int32_t> cap_of(const std::string& key) const {
        auto it = key_caps.find(key);
        if (it != key_caps.end()) return it->second;
        return key_max_active;
    }
};

// The queue's limits, cached per backend until fetchq's catalog changes;
// nullptr when it has none (a pick then runs exactly as without this
// feature). Needs SPI.
std::shared_ptr<const FlowLimits> flow_limits(const std::string& queue);

// How many more documents of the queue may become active now (max_active
// minus the active ones, at least 0), its row locked until the end of the
// transaction; none when `wait` is false and another transaction holds it.
// Only for a queue with max_active. Needs SPI.
std::optional<int64_t> queue_room(const std::string& queue, int32_t max_active, bool wait);

// How many more documents of `key` may become active now (its cap minus its
// active documents, at least 0), its lock held until the end of the
// transaction; 0 when `wait` is false and another transaction holds it.
// Needs SPI.
int64_t key_room(const std::string& queue, const std::string& key, int32_t cap, bool wait);

// The indexes a limited pick needs on the queue's documents: ready
// documents by key, active ones by key. Made when limits are set, so that a
// queue without limits pays for neither. As a role that may create them.
void create_flow_indexes(const std::string& queue);

// Ready documents of the queue that a limit keeps back now (on the caller's
// snapshot, without locks): all of them when max_active is reached, else
// those of keys at their cap. 0 for a queue without limits. Needs SPI.
int64_t held_back(const std::string& queue);

}  // namespace fetchq::ops
