// Sessions that own something: documents picked with session_bound = true
// and temporary queues. A session is named by a key made of its pid and its
// start time (pids are reused, start times are not). When such a session
// exits, its exit callback wakes the scheduler; after a crash restart the
// scheduler checks every session-owned thing against the live sessions.
#pragma once

#include <cstdint>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// The key of the current session.
int64_t session_key();

// Registers, once per session, the exit callback that tells the scheduler.
void watch_session_end();

// Keys of the sessions alive now (call inside a transaction).
std::vector<int64_t> live_session_keys();

// Session keys as an int8[] Datum, a statement's parameter (palloc'd in the
// current memory context).
Datum session_key_array(const std::vector<int64_t>& keys);

}  // namespace fetchq::ops
