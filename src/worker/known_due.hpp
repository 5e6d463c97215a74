// The due moments the scheduler remembers of idle queues. A queue's next due
// moment (its earliest planned document, lock expiry, expiry or end of
// retention: next_due) changes only when its documents move, which every
// fetchq function records at commit (ops/shared_memory/queue_activity.hpp), or when its
// settings change (the catalog generation). So an idle queue costs no
// statement in a round while nothing moved in it since its due moment was
// read, the catalog is the same, and that moment is still ahead; with
// thousands of queues that also spares preparing their statements again
// when they left the plan cache (pg/spi.hpp). Documents changed by plain SQL
// on a queue's tables, not through fetchq's functions, record nothing: every
// queue is read again at least every kRecheckMs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::worker {

constexpr int kRecheckMs = 300000;

// When a due moment is about to be read: taken before its transaction
// starts (begin_due_reading), outside any transaction.
struct DueReading {
    TimestampTz started = 0;
    uint64_t generation = 0;
};
DueReading begin_due_reading();

// The remembered due moment of the queue, if it still holds at `now`.
bool known_due(const std::string& queue, TimestampTz now, TimestampTz* due);
// Remembers what a reading begun at `reading` found.
void remember_due(const std::string& queue, const DueReading& reading, TimestampTz due);
void forget_due_of(const std::string& queue);
// Keeps only the queues listed.
void retain_known_dues(const std::vector<std::string>& queues);

}  // namespace fetchq::worker
