#include "ops/shared_memory/pick_wake.hpp"

#include "ops/shared_memory/queue_slots.hpp"
#include "pg/guard.hpp"

extern "C" {
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

// Moved to pending (woken at commit), moved out of pending (woken at abort).
SlotSet g_pickable, g_picked;

void add_slot(SlotSet& set, std::string_view queue) {
    if (g_slots != nullptr) set.add(queue_slot(queue, kSlots));
}

void wake(SlotSet& set) {
    for (uint32 slot : set.slots()) {
        pg_atomic_fetch_add_u64(&g_slots[slot].generation, 1);
        ConditionVariableBroadcast(&g_slots[slot].cv);
    }
    set.clear();
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

void note_pickable(std::string_view queue) { add_slot(g_pickable, queue); }

void note_picked(std::string_view queue) { add_slot(g_picked, queue); }

void wake_pickers_at_commit() {
    g_picked.clear();
    wake(g_pickable);
}

void wake_pickers_at_abort() {
    g_pickable.clear();
    wake(g_picked);
}

void forget_pickable() {
    g_pickable.clear();
    g_picked.clear();
}

uint64_t pick_generation(std::string_view queue) {
    if (g_slots == nullptr) return 0;
    return pg_atomic_read_u64(&g_slots[queue_slot(queue, kSlots)].generation);
}

bool wait_pickable(std::string_view queue, uint64_t seen, long timeout_ms) {
    if (g_slots == nullptr) return false;
    WakeSlot* slot = &g_slots[queue_slot(queue, kSlots)];
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
