#include "ops/shared_memory/queue_activity.hpp"

#include "ops/shared_memory/queue_slots.hpp"

extern "C" {
#include "port/atomics.h"
#include "storage/shmem.h"
}

namespace fetchq::ops {

namespace {

constexpr uint32 kSlots = 4096;

pg_atomic_uint64* g_last = nullptr;

SlotSet g_moved;  // the queues whose documents this transaction moved

}  // namespace

Size queue_activity_shmem_size() { return mul_size(sizeof(pg_atomic_uint64), kSlots); }

void queue_activity_shmem_init() {
    bool found = false;
    g_last = static_cast<pg_atomic_uint64*>(
        ShmemInitStruct("fetchq queue activity", queue_activity_shmem_size(), &found));
    if (found) return;
    for (uint32 i = 0; i < kSlots; ++i) pg_atomic_init_u64(&g_last[i], 0);
}

void note_activity(std::string_view queue) {
    if (g_last != nullptr) g_moved.add(queue_slot(queue, kSlots));
}

void record_activity_at_commit() {
    if (g_moved.slots().empty()) return;
    const auto now = static_cast<uint64>(GetCurrentTimestamp());
    for (uint32 slot : g_moved.slots()) {
        // Only forward: a slower commit must not move it back.
        uint64 seen = pg_atomic_read_u64(&g_last[slot]);
        while (seen < now && !pg_atomic_compare_exchange_u64(&g_last[slot], &seen, now)) {
        }
    }
    g_moved.clear();
}

void forget_activity() { g_moved.clear(); }

TimestampTz last_activity(std::string_view queue) {
    if (g_last == nullptr) return 0;
    return static_cast<TimestampTz>(pg_atomic_read_u64(&g_last[queue_slot(queue, kSlots)]));
}

}  // namespace fetchq::ops
