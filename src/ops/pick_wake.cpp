#include "ops/pick_wake.hpp"

#include <algorithm>
#include <vector>

#include "pg/guard.hpp"

extern "C" {
#include "common/hashfn.h"
#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/shmem.h"
#include "utils/wait_event.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

constexpr uint32 kSlots = 1024;

struct WakeSlot {
    pg_atomic_uint64 generation;
    ConditionVariable cv;
};

WakeSlot* g_slots = nullptr;

// The queues of this database are told apart from those of others.
uint32 slot_of(std::string_view queue) {
    const uint32 h = hash_bytes(reinterpret_cast<const unsigned char*>(queue.data()),
                                static_cast<int>(queue.size()));
    return hash_combine(h, MyDatabaseId) % kSlots;
}

std::vector<uint32>& noted() {
    static std::vector<uint32> slots;
    return slots;
}

std::vector<uint32>& picked() {
    static std::vector<uint32> slots;
    return slots;
}

void add_slot(std::vector<uint32>& slots, std::string_view queue) {
    if (g_slots == nullptr) return;
    const uint32 slot = slot_of(queue);
    if (std::find(slots.begin(), slots.end(), slot) == slots.end()) slots.push_back(slot);
}

void wake(std::vector<uint32>& slots) {
    for (uint32 slot : slots) {
        pg_atomic_fetch_add_u64(&g_slots[slot].generation, 1);
        ConditionVariableBroadcast(&g_slots[slot].cv);
    }
    slots.clear();
}

}  // namespace

Size pick_wake_shmem_size() { return mul_size(sizeof(WakeSlot), kSlots); }

void pick_wake_shmem_init() {
    bool found = false;
    g_slots =
        static_cast<WakeSlot*>(ShmemInitStruct("fetchq pick wake", pick_wake_shmem_size(), &found));
    if (found) return;
    for (uint32 i = 0; i < kSlots; ++i) {
        pg_atomic_init_u64(&g_slots[i].generation, 0);
        ConditionVariableInit(&g_slots[i].cv);
    }
}

void note_pickable(std::string_view queue) { add_slot(noted(), queue); }

void note_picked(std::string_view queue) { add_slot(picked(), queue); }

void wake_pickers_at_commit() {
    picked().clear();
    wake(noted());
}

void wake_pickers_at_abort() {
    noted().clear();
    wake(picked());
}

void forget_pickable() {
    noted().clear();
    picked().clear();
}

uint64_t pick_generation(std::string_view queue) {
    if (g_slots == nullptr) return 0;
    return pg_atomic_read_u64(&g_slots[slot_of(queue)].generation);
}

bool wait_pickable(std::string_view queue, uint64_t seen, long timeout_ms) {
    if (g_slots == nullptr) return false;
    WakeSlot* slot = &g_slots[slot_of(queue)];
    return pg_call([&] {
        bool woken = false;
        ConditionVariablePrepareToSleep(&slot->cv);
        while (!(woken = pg_atomic_read_u64(&slot->generation) != seen)) {
            // true: the timeout passed (ConditionVariableTimedSleep serves
            // interrupts while it waits)
            if (ConditionVariableTimedSleep(&slot->cv, timeout_ms, PG_WAIT_EXTENSION)) break;
        }
        ConditionVariableCancelSleep();
        return woken;
    });
}

}  // namespace fetchq::ops
