// Flow limits' rate per key (core/flow_rate.hpp): spacing, bursts, and the
// bound of any window, under picks asked for at arbitrary moments.
#include "core/flow_rate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace fetchq::core {
namespace {

constexpr int64_t kSec = 1000000;

// Asks for `want` picks at each moment of `asks`, takes what is allowed;
// returns the moment of every pick taken.
std::vector<int64_t> simulate(const std::vector<int64_t>& asks, int64_t want, int64_t interval,
                              int32_t rate, int32_t burst) {
    const int64_t emission = rate_emission(interval, rate);
    int64_t due = 0;
    std::vector<int64_t> picks;
    for (int64_t now : asks) {
        const int64_t n = std::min(want, rate_allowed(due, now, emission, burst));
        for (int64_t i = 0; i < n; ++i) picks.push_back(now);
        if (n > 0) due = rate_base(due, now) + n * emission;
    }
    return picks;
}

// The most picks in any half-open window [t, t + interval).
int64_t busiest_window(const std::vector<int64_t>& picks, int64_t interval) {
    int64_t most = 0;
    size_t end = 0;
    for (size_t start = 0; start < picks.size(); ++start) {
        while (end < picks.size() && picks[end] < picks[start] + interval) ++end;
        most = std::max<int64_t>(most, static_cast<int64_t>(end - start));
    }
    return most;
}

TEST(FlowRate, WithoutBurstPicksAreSpacedByTheEmission) {
    const int64_t emission = rate_emission(kSec, 4);  // 250 ms
    EXPECT_EQ(emission, 250000);
    EXPECT_EQ(rate_allowed(0, 10 * kSec, emission, 0), 1);
    const int64_t due = rate_base(0, 10 * kSec) + emission;
    EXPECT_EQ(rate_allowed(due, 10 * kSec + 249999, emission, 0), 0);
    EXPECT_EQ(rate_allowed(due, 10 * kSec + 250000, emission, 0), 1);
}

TEST(FlowRate, AQuietKeyTakesItsBurstAndOneMore) {
    const int64_t emission = rate_emission(kSec, 1);
    EXPECT_EQ(rate_allowed(0, 100 * kSec, emission, 3), 4);
    // After the burst: empty, then one token per emission.
    const int64_t due = rate_base(0, 100 * kSec) + 4 * emission;
    EXPECT_EQ(rate_allowed(due, 100 * kSec, emission, 3), 0);
    EXPECT_EQ(rate_allowed(due, 101 * kSec, emission, 3), 1);
}

TEST(FlowRate, TokensShowTheBucket) {
    const int64_t emission = rate_emission(kSec, 1);
    EXPECT_DOUBLE_EQ(rate_tokens(0, 50 * kSec, emission, 2), 3.0);
    EXPECT_DOUBLE_EQ(rate_tokens(53 * kSec, 50 * kSec, emission, 2), 0.0);
    EXPECT_DOUBLE_EQ(rate_tokens(52 * kSec, 50 * kSec, emission, 2), 1.0);
    EXPECT_DOUBLE_EQ(rate_tokens(51 * kSec + kSec / 2, 50 * kSec, emission, 2), 1.5);
}

TEST(FlowRate, NoWindowHoldsMoreThanRatePlusBurst) {
    std::mt19937_64 random(35);
    for (int32_t rate : {1, 3, 10}) {
        for (int32_t burst : {0, 2, 7}) {
            for (int64_t want : {1, 5}) {
                // Sparse asks (up to 250 ms apart), then dense ones (up
                // to 1 ms apart), then sparse again.
                std::vector<int64_t> asks;
                int64_t t = 0;
                for (int i = 0; i < 6000; ++i) {
                    const bool dense = i >= 1000 && i < 5000;
                    t += 1 + static_cast<int64_t>(random() % (dense ? kSec / 1000 : kSec / 4));
                    asks.push_back(t);
                }
                const std::vector<int64_t> picks = simulate(asks, want, kSec, rate, burst);
                EXPECT_LE(busiest_window(picks, kSec), rate + burst)
                    << "rate " << rate << " burst " << burst << " want " << want;
                // And while asks are dense, the rate is reached.
                const int64_t from = asks[1500], to = asks[4900];
                const auto in_dense = std::count_if(picks.begin(), picks.end(),
                                                    [&](int64_t p) { return p >= from && p < to; });
                EXPECT_GE(static_cast<double>(in_dense),
                          0.9 * rate * static_cast<double>(to - from) / kSec - 1)
                    << "rate " << rate << " burst " << burst << " want " << want;
            }
        }
    }
}

}  // namespace
}  // namespace fetchq::core
