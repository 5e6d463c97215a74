// The transaction lock a claim takes on a key of one consumer group, in the
// advisory lock space of the database but with a lock class of its own
// (LOCKTAG field4 71), so that no pg_advisory_lock() of an application ever
// takes or waits for one; it shows in pg_locks as an advisory lock with
// objsubid 71. Keys are hashed to 64 bits: two keys that collide only make a
// claim skip one of them while the other is being claimed.
#pragma once

#include <cstdint>
#include <string>

namespace fetchq::ops {

// Takes the key for one group's claim without waiting; false when another
// transaction holds it (a claim under way).
bool try_lock_key_for_claim(int32_t stream_id, const std::string& group, const std::string& key);

// The same lock, waited for: a release holds the key as a claim does.
void lock_key_for_release(int32_t stream_id, const std::string& group, const std::string& key);

}  // namespace fetchq::ops
