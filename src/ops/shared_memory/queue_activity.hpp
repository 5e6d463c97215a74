// When a queue's documents last moved (a push, a pick, an outcome, a
// promotion...), for the idle timeout of temporary queues. Kept in shared
// memory, written at commit by the transaction that moved them: no role can
// forge it, as it could a column of a table it may update. Queues share
// slots by hash, so a queue can only look busier than it is (an idle
// temporary queue is dropped later, never earlier). Reset by a restart,
// which ends every session and so every temporary queue anyway.
#pragma once

#include <string_view>

#include "pg/postgres.hpp"

namespace fetchq::ops {

Size queue_activity_shmem_size();
void queue_activity_shmem_init();

// This transaction moved documents of `queue`.
void note_activity(std::string_view queue);
// From the transaction callback.
void record_activity_at_commit();
void forget_activity();

// The last commit that moved documents of the queue (or of one sharing its
// slot); 0 when none since the server started.
TimestampTz last_activity(std::string_view queue);

}  // namespace fetchq::ops
