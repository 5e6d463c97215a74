// Retry delays for failing tasks and crashing schedulers: doubling from a
// base, capped, so an error is retried soon but never in a tight loop.
#pragma once

#include <cstdint>

namespace fetchq::core {

// Delay before retry number `failures` (1 = first retry), in milliseconds.
inline int64_t backoff_ms(int failures, int64_t base_ms = 1000, int64_t max_ms = 300000) {
    if (failures <= 0) return 0;
    int64_t delay = base_ms;
    for (int i = 1; i < failures && delay < max_ms; ++i) delay *= 2;
    return delay < max_ms ? delay : max_ms;
}

}  // namespace fetchq::core
