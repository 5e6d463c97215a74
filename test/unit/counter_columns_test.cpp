#include "core/counter_columns.hpp"

#include <gtest/gtest.h>

using fetchq::core::counter_column;
using fetchq::core::kCounterColumns;
using fetchq::core::kReportedCounters;
using fetchq::core::MetricDelta;
using fetchq::core::reported_counter;
using fetchq::core::split_counter_deltas;

TEST(CounterColumns, StandardNamesHaveAColumn) {
    EXPECT_EQ(counter_column("cnt"), 0u);
    EXPECT_EQ(counter_column("err"), 13u);
    EXPECT_EQ(counter_column("v0"), kCounterColumns.size() - 1);
    EXPECT_FALSE(counter_column("v1"));
    EXPECT_EQ(counter_column("pkd"), 8u);
    EXPECT_FALSE(counter_column("my_counter"));
    EXPECT_FALSE(counter_column("CNT"));
    EXPECT_FALSE(counter_column(""));
}

// The reported counters are the standard columns but v0, in their order,
// then exp and rtn.
TEST(CounterColumns, ReportedCounters) {
    for (std::size_t i = 0; i + 1 < kCounterColumns.size(); ++i)
        EXPECT_EQ(kReportedCounters[i], kCounterColumns[i]);
    EXPECT_EQ(kReportedCounters[kReportedCounters.size() - 2], "exp");
    EXPECT_EQ(kReportedCounters.back(), "rtn");
    EXPECT_EQ(reported_counter("cnt"), 0u);
    EXPECT_EQ(reported_counter("exp"), kReportedCounters.size() - 2);
    EXPECT_EQ(reported_counter("rtn"), kReportedCounters.size() - 1);
    EXPECT_FALSE(reported_counter("v0"));
    EXPECT_FALSE(reported_counter("EXP"));
    EXPECT_FALSE(reported_counter(""));
}

TEST(CounterColumns, OneRowPerQueueAndOtherNamesApart) {
    const std::vector<MetricDelta> sorted = {
        {"a", "act", 1},  {"a", "custom", 7}, {"a", "pkd", 1},
        {"a", "pnd", -1}, {"b", "cnt", 2},    {"c", "zz", -3},
    };
    const auto split = split_counter_deltas(sorted);
    ASSERT_EQ(split.rows.size(), 2u);
    EXPECT_EQ(split.rows[0].queue, "a");
    EXPECT_EQ(split.rows[0].deltas[*counter_column("act")], 1);
    EXPECT_EQ(split.rows[0].deltas[*counter_column("pkd")], 1);
    EXPECT_EQ(split.rows[0].deltas[*counter_column("pnd")], -1);
    EXPECT_FALSE(split.rows[0].deltas[*counter_column("cnt")]);
    EXPECT_EQ(split.rows[1].queue, "b");
    EXPECT_EQ(split.rows[1].deltas[*counter_column("cnt")], 2);
    ASSERT_EQ(split.others.size(), 2u);
    EXPECT_EQ(split.others[0].metric, "custom");
    EXPECT_EQ(split.others[1].queue, "c");
    EXPECT_EQ(split.others[1].delta, -3);
}

TEST(CounterColumns, NothingInNothingOut) {
    const auto split = split_counter_deltas({});
    EXPECT_TRUE(split.rows.empty());
    EXPECT_TRUE(split.others.empty());
}
