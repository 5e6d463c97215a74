// Transaction locks of fetchq's own, in the advisory lock space of the
// database but each with a lock class of its own (LOCKTAG field4), so that no
// pg_advisory_lock() of an application ever takes or waits for one; they show
// in pg_locks as advisory locks with objsubid 71 or 72.
//
// 71: the lock a claim takes on a key of one consumer group. Keys are hashed
// to 64 bits: two keys that collide only make a claim skip one of them while
// the other is being claimed.
#pragma once

#include <cstdint>
#include <string>

namespace fetchq::ops {

// Takes the key for one group's claim without waiting; false when another
// transaction holds it (a claim under way).
bool try_lock_key_for_claim(int32_t stream_id, const std::string& group, const std::string& key);

// The same lock, waited for: a release holds the key as a claim does.
void lock_key_for_release(int32_t stream_id, const std::string& group, const std::string& key);

// 72: a stream, shared by its appends, group registrations and settings
// changes, alone by stream_drop, which so waits for them; an append that
// waited for a drop finds the stream gone. Each takes it before any row of
// fetchq.streams (a group's foreign key locks its stream's row), so that a
// drop and a transaction doing several of them cannot deadlock. True when
// this transaction did not hold it in that mode yet.
bool lock_stream_shared(int32_t stream_id);
void lock_stream_for_drop(int32_t stream_id);

}  // namespace fetchq::ops
