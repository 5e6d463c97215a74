// The write log of Fetchq 4's metric_log_* functions (fetchq.metrics_writes),
// folded into the counters by the 'lgp' job and metric_log_pack().
#pragma once

#include <cstdint>

namespace fetchq::ops {

// Takes every log entry no other packer holds, applies the latest reset and
// the sum of the increments of each counter, and returns the entries folded.
// Needs an SPI connection; the increments are written at commit.
int64_t pack_metric_log();

}  // namespace fetchq::ops
