// Queue counters (cnt, pnd, pkd, ...). Each document operation adds to a
// transaction-local tally; just before commit the tally is written to
// fetchq.metrics in one statement, into this backend's stripe of rows, so
// counters are exact for committed work, visible at once, and concurrent
// consumers do not queue up behind one counter row.
#pragma once

#include <cstdint>
#include <string_view>

namespace fetchq::pg {

inline constexpr int kMetricSlots = 16;

void metric_add(std::string_view queue, std::string_view metric, int64_t delta);
// The uncommitted change this transaction has made so far.
int64_t metric_pending(std::string_view queue, std::string_view metric);
// The queue is being dropped: its pending changes must not be written.
void metric_forget_queue(std::string_view queue);
// Installs the transaction callbacks (from _PG_init).
void metrics_register_callbacks();

}  // namespace fetchq::pg
