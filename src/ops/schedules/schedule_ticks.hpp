// The scheduler's side of periodic schedules: which are due, and pushing a
// schedule's due ticks in one transaction with the move of its next tick, so
// that a crash between the two never loses nor doubles a tick (and a tick
// pushed twice anyway is deduplicated by its subject). Every function needs
// SPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// After a downtime, catch_up 'all' pushes at most this many missed ticks,
// the latest ones, oldest first; older ones are skipped.
inline constexpr int kMaxCatchUpTicks = 1000;

struct DueSchedule {
    int32_t id = 0;
    std::string name;
    std::string queue;
};

// The schedules not paused whose next tick is at or before `now`, earliest
// first (at most `limit`), and the earliest next tick of the others
// (DT_NOEND: none).
std::vector<DueSchedule> due_schedules(TimestampTz now, int32_t limit, TimestampTz* next);

// Pushes the schedule's due ticks as its owner and moves its next tick,
// which it sets in *next (DT_NOEND when it did nothing); returns the
// documents pushed (a tick whose subject exists counts 0). Raises 42501
// when its owner may no longer push into the queue (nothing is pushed and
// the tick stays due). Does nothing for a schedule paused, dropped or not
// due any more.
int64_t run_schedule(int32_t id, TimestampTz now, TimestampTz* next);

}  // namespace fetchq::ops
