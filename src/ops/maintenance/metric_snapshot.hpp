// Snapshots of a queue's counters into its history table
// fetchq_data.<queue>__metrics (metric_snap and the 'sts' job).
#pragma once

#include <cstdint>
#include <string>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// Inserts the current value of every counter of the queue, or of those named
// in `whitelist` (a jsonb array of names) when given; returns the rows
// inserted. Needs an SPI connection.
uint64_t snapshot_counters(const std::string& queue, const Datum* whitelist = nullptr);

}  // namespace fetchq::ops
