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
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

struct FlowLimits {
    std::optional<int32_t> max_active;
    std::optional<int32_t> key_max_active;
    // key_rate picks per key_rate_interval (in microseconds) per key, with
    // key_burst more at once after a quiet spell.
    std::optional<int32_t> key_rate;
    int64_t rate_interval_us = 1000000;
    int32_t key_burst = 0;
    // Picks shared out among the keys in turn (round robin).
    bool fair = false;
    // Per-key exceptions (queue_set_key_limits).
    std::unordered_map<std::string, int32_t> key_caps;
    std::unordered_map<std::string, int32_t> key_rates;

    bool per_key() const {
        return key_max_active || key_rate || fair || !key_caps.empty() || !key_rates.empty();
    }
    // The cap of `key`'s active documents; none: not limited.
    std::optional<int32_t> cap_of(const std::string& key) const {
        auto it = key_caps.find(key);
        if (it != key_caps.end()) return it->second;
        return key_max_active;
    }
    std::optional<int32_t> rate_of(const std::string& key) const {
        auto it = key_rates.find(key);
        if (it != key_rates.end()) return it->second;
        return key_rate;
    }
};

// A key's rate as a pick found it (GCRA, the token bucket as arithmetic): the
// key's picks are due `emission_us` apart (interval / rate), and up to
// `burst` of them may come early; `base_us` is when the next one is due
// (never before now). After choosing n documents of the key, the pick
// records base + n * emission (note_key_picks).
struct KeyRate {
    bool limited = false;
    int64_t base_us = 0;
    int64_t emission_us = 0;
};

// The queue's limits, cached per backend until fetchq's catalog changes;
// nullptr when it has none (a pick then runs exactly as without this
// feature). Needs SPI.
std::shared_ptr<const FlowLimits> flow_limits(const std::string& queue);

// Whether the queue has limits, as this backend's cache knows it, without
// reading anything (no statement: SPI_tuptable stays the caller's); none
// when not cached.
std::optional<bool> flow_limited_cached(const std::string& queue);

// How many more documents of the queue may become active now (max_active
// minus the active ones, at least 0), its row locked until the end of the
// transaction; none when `wait` is false and another transaction holds it.
// Only for a queue with max_active. Needs SPI.
std::optional<int64_t> queue_room(const std::string& queue, int32_t max_active, bool wait);

// How many more documents of `key` may become active now (its cap minus its
// active documents, at least 0), its lock held until the end of the
// transaction; 0 when `wait` is false and another transaction holds it.
// Needs SPI.
// With a rate, also at most what the key's token bucket allows now (`rate`
// is filled in for note_key_picks).
int64_t key_room(const std::string& queue, const std::string& key, const FlowLimits& limits,
                 bool wait, KeyRate* rate);

// Records that `picked` documents of a rate-limited key were chosen (in the
// picking transaction, as fetchq's catalog owner). Needs SPI.
void note_key_picks(const std::string& queue, const std::string& key, const KeyRate& rate,
                    int64_t picked);

// The indexes a limited pick needs on the queue's documents: ready
// documents by key, active ones by key. Made when limits are set, so that a
// queue without limits pays for neither. As a role that may create them.
void create_flow_indexes(const std::string& queue);

// Ready documents of the queue that a limit keeps back now (on the caller's
// snapshot, without locks): all of them when max_active is reached, else
// those of keys at their cap. 0 for a queue without limits. Needs SPI.
int64_t held_back(const std::string& queue);

// One row of fetchq.flow_keys.
struct FlowKeyRow {
    std::string key;
    int64_t active = 0;
    int64_t ready = 0;
    int64_t held_back = 0;
    std::optional<double> tokens;  // none: the key has no rate
};

// The keys of a queue with limits that have pending or active documents or
// a rate's state, on the caller's snapshot. Needs SPI; run as a role that
// may read the queue's documents.
std::vector<FlowKeyRow> flow_keys(const std::string& queue, const FlowLimits& limits);

// The queues that have limits, by name. Needs SPI.
std::vector<std::string> limited_queues();

}  // namespace fetchq::ops
