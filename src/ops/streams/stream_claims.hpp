// Leases of a stream's keys to consumer sessions (stream_claim,
// stream_release): within one group, a key is leased to one session at a
// time, so its messages are processed in order while other keys go to other
// consumers. A claim takes only keys that have unread messages for the group
// and no live lease (a lease is live until it ends, or until its session
// ends); it never waits for another session's claim under way, it skips the
// keys that claim holds. Needs SPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

struct ClaimedKey {
    std::string key;
    TimestampTz until = 0;
};

// Up to max_keys keys, oldest unread message first, leased to this session
// for `lease`.
std::vector<ClaimedKey> claim_keys(int32_t stream, const std::string& group, int32_t max_keys,
                                   const Interval* lease);

// Ends this session's leases in the group (of one key, or all when key is
// empty); returns how many.
int64_t release_keys(int32_t stream, const std::string& group, const std::string& key);

}  // namespace fetchq::ops
