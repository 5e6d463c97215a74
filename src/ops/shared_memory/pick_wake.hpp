// Waking the waiting picks (doc_pick_wait) of a queue when a commit makes
// one of its documents pickable. A transaction notes each queue where a
// document moved to pending (core's lifecycle: a push that is due, a
// promotion, a reject or reschedule to pending, an orphan re-queued, a
// released pick, a retry); after its commit, each of those queues' slot in
// shared memory gets a new generation and its condition variable is
// broadcast. Queues share slots by hash: a waiter woken for another queue
// finds nothing to pick and waits again. Never polled, never LISTEN/NOTIFY.
#pragma once

#include <cstdint>
#include <string_view>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// Shared memory, from shared_state's hooks.
Size pick_wake_shmem_size();
void pick_wake_shmem_init();

// This transaction made a document of `queue` pickable.
void note_pickable(std::string_view queue);
// This transaction took pending documents of `queue`: if it rolls back they
// are pending again, and the waiters that skipped them must look again.
void note_picked(std::string_view queue);
// From the transaction callback.
void wake_pickers_at_commit();
void wake_pickers_at_abort();
void forget_pickable();

// The generation of the queue's slot: read before looking for documents,
// so that a commit after the look is not missed.
uint64_t pick_generation(std::string_view queue);

// Waits until the slot's generation is no longer `seen` or `timeout_ms`
// passed; true when woken. Holds no snapshot itself; interrupts (cancel,
// terminate) are served while it waits.
bool wait_pickable(std::string_view queue, uint64_t seen, long timeout_ms);

}  // namespace fetchq::ops
