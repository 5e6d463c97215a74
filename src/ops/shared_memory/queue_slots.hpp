// Queues mapped onto a fixed number of slots in shared memory (the wake-ups
// of waiting picks, the last activity of queues): by a hash of the queue's
// name and database, so that queues share slots and no registry is needed.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace fetchq::ops {

// The queue's slot among `count`.
uint32_t queue_slot(std::string_view queue, uint32_t count);

// A hash of the queue's name alone (the slot's also mixes in the database).
uint32_t queue_hash(std::string_view queue);

// The slots of the queues a transaction touched, each once.
class SlotSet {
  public:
    void add(uint32_t slot);
    const std::vector<uint32_t>& slots() const { return slots_; }
    void clear() { slots_.clear(); }

  private:
    std::vector<uint32_t> slots_;
};

}  // namespace fetchq::ops
