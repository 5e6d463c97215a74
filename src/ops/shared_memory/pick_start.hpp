// The start of each queue's picks (core/pick_start.hpp), in shared memory:
// a slot per queue by hash, owned by the last queue that set a start in it.
// A transaction notes the changes it makes to where pickable documents lie;
// they are published after its commit or abort, as the pick wake-ups are.
// Without shared memory (the library not preloaded) every pick starts from
// the beginning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/pick_start.hpp"
#include "pg/postgres.hpp"

extern "C" {
#include "nodes/parsenodes.h"
}

namespace fetchq::ops {

Size pick_start_shmem_size();
void pick_start_shmem_init();

// This transaction made documents of `queue` pickable, the first of them
// (in pick order) at `earliest` of `version`; without it, anywhere.
void note_pickable_at(std::string_view queue, int32_t version, const core::PickKey& earliest);
void note_pickable_anywhere(std::string_view queue);
// This transaction locked or moved pending documents of `queue`: if it (or
// one of its savepoints) rolls back, they are pending again wherever they
// were.
void note_pending_locked(std::string_view queue);

// A TRUNCATE (queue_truncate, or by hand): of the queues whose documents
// table it names, the picks after its commit start from the beginning, so
// they see at once what plain SQL inserts into the emptied table.
void note_truncate(const TruncateStmt* stmt);

// From the transaction callbacks.
void publish_pick_changes_at_commit();
void publish_pick_changes_at_abort();
void pick_changes_at_subabort();
void forget_pick_changes();

// One pick's use of the start: read before the pick looks (no start, from
// the beginning, also when this transaction has changes of its own not yet
// published), finished after it. Until then the pick is a reader of its slot
// (core::begin_pick); the destructor ends an unfinished reading (an error),
// and so does the exit of a backend that dies in between.
class PickStartReading {
  public:
    PickStartReading(std::string_view queue, int32_t version);
    ~PickStartReading();
    PickStartReading(const PickStartReading&) = delete;
    PickStartReading& operator=(const PickStartReading&) = delete;

    const std::optional<core::PickKey>& start() const { return seen_.key; }
    // Registered as a reader: the pick may move the start.
    bool open() const { return open_; }
    void finish(const core::PickOutcome& outcome);

  private:
    uint32_t slot_ = 0;
    int32_t version_ = 0;
    core::StartSeen seen_;
    bool open_ = false;
    std::string owner_;  // the queue
};

}  // namespace fetchq::ops
