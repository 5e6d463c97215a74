#include "ops/queue_activity.hpp"

#include <algorithm>
#include <vector>

extern "C" {
#include "common/hashfn.h"
#include "port/atomics.h"
#include "storage/shmem.h"
}

namespace fetchq::ops {

namespace {

constexpr uint32 kSlots = 4096;

pg_atomic_uint64* g_last = nullptr;

uint32 slot_of(std::string_view queue) {
    const uint32 h = hash_bytes(reinterpret_cast<const unsigned char*>(queue.data()),
                                static_cast<int>(queue.size()));
    return hash_combine(h, MyDatabaseId) % kSlots;
}

std::vector<uint32>& noted() {
    static std::vector<uint32> slots;
    return slots;
}

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
    if (g_last == nullptr) return;
    const uint32 slot = slot_of(queue);
    std::vector<uint32>& slots = noted();
    if (std::find(slots.begin(), slots.end(), slot) == slots.end()) slots.push_back(slot);
}

void record_activity_at_commit() {
    std::vector<uint32>& slots = noted();
    if (slots.empty()) return;
    const auto now = static_cast<uint64>(GetCurrentTimestamp());
    for (uint32 slot : slots) {
        // Only forward: a slower commit must not move it back.
        uint64 seen = pg_atomic_read_u64(&g_last[slot]);
        while (seen < now && !pg_atomic_compare_exchange_u64(&g_last[slot], &seen, now)) {
        }
    }
    slots.clear();
}

void forget_activity() { noted().clear(); }

TimestampTz last_activity(std::string_view queue) {
    if (g_last == nullptr) return 0;
    return static_cast<TimestampTz>(pg_atomic_read_u64(&g_last[slot_of(queue)]));
}

}  // namespace fetchq::ops
