#include "ops/shared_memory/queue_slots.hpp"

#include <algorithm>

#include "pg/postgres.hpp"

extern "C" {
#include "common/hashfn.h"
}

namespace fetchq::ops {

uint32_t queue_hash(std::string_view queue) {
    return hash_bytes(reinterpret_cast<const unsigned char*>(queue.data()),
                      static_cast<int>(queue.size()));
}

uint32_t queue_slot(std::string_view queue, uint32_t count) {
    return hash_combine(queue_hash(queue), MyDatabaseId) % count;
}

void SlotSet::add(uint32_t slot) {
    if (std::find(slots_.begin(), slots_.end(), slot) == slots_.end()) slots_.push_back(slot);
}

}  // namespace fetchq::ops
