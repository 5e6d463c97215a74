#include "ops/shared_memory/wake.hpp"

#include "ops/shared_memory/shared_state.hpp"

extern "C" {
#include "storage/latch.h"
}

namespace fetchq::ops {
namespace {

TimestampTz g_due = DT_NOEND;
int g_slot_index = -1;  // cached position of this database's slot

DbSlot* my_slot() {
    SharedState* s = shared();
    if (s == nullptr) return nullptr;
    if (g_slot_index >= 0 && g_slot_index < s->nslots &&
        s->slots[g_slot_index].dboid == MyDatabaseId)
        return &s->slots[g_slot_index];
    for (int i = 0; i < s->nslots; ++i) {
        if (s->slots[i].dboid == MyDatabaseId && s->slots[i].state != kSlotFree) {
            g_slot_index = i;
            return &s->slots[i];
        }
    }
    return nullptr;
}

}  // namespace

void note_due(TimestampTz when) {
    if (when < g_due) g_due = when;
}

void forget_due() { g_due = DT_NOEND; }

// The due moment goes into noted_due, which the scheduler folds into its next
// wake-up after each round (so a commit during a round, when next_wake is 0,
// does not start another round at once); a sleeping scheduler whose wake-up
// is later is woken. Reads are unlocked: a stale value only costs a spurious
// wake-up.
void wake_scheduler_at_commit() {
    if (g_due == DT_NOEND) return;
    const TimestampTz due = g_due;
    g_due = DT_NOEND;
    DbSlot* slot = my_slot();
    if (slot == nullptr) return;
    note_due_in(*slot, due);
    const auto planned = static_cast<TimestampTz>(pg_atomic_read_u64(&slot->next_wake));
    if (due >= planned) return;
    pg_atomic_write_u64(&slot->next_wake, static_cast<uint64>(due));
    Latch* latch = slot->latch;
    if (latch != nullptr) SetLatch(latch);
}

}  // namespace fetchq::ops
