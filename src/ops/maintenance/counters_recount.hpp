// After a crash, the changes of deferred queues that shared memory held are
// lost (ops/counters/deferred.hpp): the scheduler's first round after shared
// memory was set up recounts the status counters (cnt, pln, pnd, act, cpl,
// kll) of every deferred queue from its documents. The cumulative counters
// (ent, pkd, prc, ...) keep what was folded.
#pragma once

#include <string>

namespace fetchq::ops {

// Adds to this transaction what makes the queue's status counters equal its
// documents counted by status. Locks the documents table in SHARE mode (the
// commits changing it end first, their changes in shared memory; new ones
// wait) and the queue's catalog row (no fold meanwhile). Run as the queue's
// owner, with SPI.
void recount_status_counters(const std::string& queue);

}  // namespace fetchq::ops
