// A key's rate limit as arithmetic (GCRA, the generic cell rate algorithm: a
// token bucket kept as one moment, when the key's next pick is due). Times
// in microseconds. `rate` picks per `interval` are due `emission` apart;
// `burst` of them may come that many emissions early. Over any window of
// `interval` (half open) a key gets at most rate + burst picks.
#pragma once

#include <algorithm>
#include <cstdint>

namespace fetchq::core {

// The time between two picks at the rate: interval / rate, at least 1.
inline int64_t rate_emission(int64_t interval, int32_t rate) {
    return std::max<int64_t>(1, rate > 0 ? interval / rate : interval);
}

// When the next pick is due, never before now (a key that was quiet does
// not save up more than its burst).
inline int64_t rate_base(int64_t next_due, int64_t now) { return std::max(next_due, now); }

// How many picks the key may make at `now`; after n of them its next pick
// is due at rate_base(next_due, now) + n * emission.
inline int64_t rate_allowed(int64_t next_due, int64_t now, int64_t emission, int32_t burst) {
    const int64_t ahead = rate_base(next_due, now) - now;
    const int64_t tolerance = emission * std::max(burst, 0);
    return ahead > tolerance ? 0 : (tolerance - ahead) / emission + 1;
}

// The bucket's tokens at `now`: burst + 1 when full, a fraction while it
// refills, 0 when empty (fetchq.flow_keys.tokens).
inline double rate_tokens(int64_t next_due, int64_t now, int64_t emission, int32_t burst) {
    const double full = std::max(burst, 0) + 1.0;
    const double behind =
        static_cast<double>(rate_base(next_due, now) - now) / static_cast<double>(emission);
    return std::max(0.0, std::min(full, full - behind));
}

}  // namespace fetchq::core
