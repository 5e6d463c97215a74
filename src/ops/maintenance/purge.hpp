// Retention of finished documents (queue_set_retention): the scheduler
// deletes completed and killed documents whose last change is older than the
// queue's retention, in batches through the partial indexes of completed
// and killed documents, so the cost grows with the documents removed, never
// with the queue. Counters: cnt and cpl or kll down, rtn up.
#pragma once

#include <cstdint>
#include <string_view>

namespace fetchq::ops {

// Deletes up to `limit` completed and up to `limit` killed documents past
// the queue's retention; returns how many. Needs an SPI connection.
int64_t purge_finished(std::string_view queue, int32_t limit);

}  // namespace fetchq::ops
