// Per-transaction counter changes, with savepoint levels (1 = top level).
#include "core/metric_deltas.hpp"

#include <gtest/gtest.h>

#include <tuple>

namespace fetchq::core {
namespace {

using Row = std::tuple<std::string, std::string, int64_t>;

std::vector<Row> Drain(MetricDeltas& d) {
    std::vector<Row> rows;
    for (const MetricDelta& m : d.drain()) rows.emplace_back(m.queue, m.metric, m.delta);
    return rows;
}

TEST(MetricDeltas, StartsEmpty) {
    MetricDeltas d;
    EXPECT_TRUE(d.empty());
    EXPECT_EQ(d.pending("q", "cnt"), 0);
    EXPECT_TRUE(d.drain().empty());
}

TEST(MetricDeltas, AddSumsPerCounter) {
    MetricDeltas d;
    d.add("q", "cnt", 3, 1);
    d.add("q", "cnt", 2, 1);
    d.add("q", "pnd", -4, 1);
    d.add("r", "cnt", 7, 1);
    EXPECT_FALSE(d.empty());
    EXPECT_EQ(d.pending("q", "cnt"), 5);
    EXPECT_EQ(d.pending("q", "pnd"), -4);
    EXPECT_EQ(d.pending("r", "cnt"), 7);
    EXPECT_EQ(d.pending("r", "pnd"), 0);
}

TEST(MetricDeltas, ZeroAddIsIgnored) {
    MetricDeltas d;
    d.add("q", "cnt", 0, 1);
    EXPECT_TRUE(d.empty());
}

TEST(MetricDeltas, PendingSumsAllLevels) {
    MetricDeltas d;
    d.add("q", "act", 1, 1);
    d.add("q", "act", 10, 2);
    d.add("q", "act", 100, 3);
    EXPECT_EQ(d.pending("q", "act"), 111);
}

TEST(MetricDeltas, ReleasedSavepointsFoldIntoParent) {
    MetricDeltas d;
    d.add("q", "act", 1, 1);
    d.add("q", "act", 10, 2);
    d.add("q", "act", 100, 3);
    d.commit_subtransaction(3);
    EXPECT_EQ(d.pending("q", "act"), 111);
    d.commit_subtransaction(2);
    EXPECT_EQ(d.pending("q", "act"), 111);
    // Everything is at level 1 now: aborting a new savepoint keeps it.
    d.abort_subtransaction(2);
    EXPECT_EQ(d.pending("q", "act"), 111);
}

TEST(MetricDeltas, RolledBackSavepointTakesItsChanges) {
    MetricDeltas d;
    d.add("q", "act", 1, 1);
    d.add("q", "act", 10, 2);
    d.add("q", "pnd", -10, 2);
    d.abort_subtransaction(2);
    EXPECT_EQ(d.pending("q", "act"), 1);
    EXPECT_EQ(d.pending("q", "pnd"), 0);
    EXPECT_EQ(Drain(d), (std::vector<Row>{{"q", "act", 1}}));
}

TEST(MetricDeltas, RollbackDropsDeeperLevelsToo) {
    MetricDeltas d;
    d.add("q", "act", 1, 1);
    d.add("q", "act", 10, 2);
    d.add("q", "act", 100, 3);
    d.abort_subtransaction(2);
    EXPECT_EQ(d.pending("q", "act"), 1);
}

TEST(MetricDeltas, ReleasedIntoRolledBack) {
    // SAVEPOINT a; SAVEPOINT b; ...; RELEASE b; ROLLBACK TO a.
    MetricDeltas d;
    d.add("q", "cnt", 1, 1);
    d.add("q", "cnt", 10, 2);
    d.add("q", "cnt", 100, 3);
    d.commit_subtransaction(3);
    EXPECT_EQ(d.pending("q", "cnt"), 111);
    d.abort_subtransaction(2);
    EXPECT_EQ(d.pending("q", "cnt"), 1);
}

TEST(MetricDeltas, RolledBackInnerReleasedOuter) {
    MetricDeltas d;
    d.add("q", "cnt", 1, 1);
    d.add("q", "cnt", 10, 2);
    d.add("q", "cnt", 100, 3);
    d.abort_subtransaction(3);
    d.commit_subtransaction(2);
    EXPECT_EQ(Drain(d), (std::vector<Row>{{"q", "cnt", 11}}));
}

TEST(MetricDeltas, SavepointWithoutChangesIsHarmless) {
    MetricDeltas d;
    d.add("q", "cnt", 5, 1);
    d.commit_subtransaction(2);
    d.abort_subtransaction(3);
    EXPECT_EQ(Drain(d), (std::vector<Row>{{"q", "cnt", 5}}));
}

TEST(MetricDeltas, ForgetQueueCancelsItAtEveryLevel) {
    MetricDeltas d;
    d.add("gone", "cnt", 1, 1);
    d.add("gone", "pnd", 1, 2);
    d.add("kept", "cnt", 2, 1);
    d.add("kept", "pnd", 3, 2);
    d.add("gone_too_not", "cnt", 4, 1);  // a name that only starts alike stays
    d.forget_queue("gone", 2);
    EXPECT_EQ(d.pending("gone", "cnt"), 0);
    EXPECT_EQ(d.pending("gone", "pnd"), 0);
    d.commit_subtransaction(2);
    EXPECT_EQ(Drain(d), (std::vector<Row>{
                            {"gone_too_not", "cnt", 4}, {"kept", "cnt", 2}, {"kept", "pnd", 3}}));
}

// Forgetting is itself undone when its savepoint rolls back.
TEST(MetricDeltas, ForgetInARolledBackSavepointKeepsEarlierChanges) {
    MetricDeltas d;
    d.add("q", "cnt", 5, 1);
    d.forget_queue("q", 2);
    EXPECT_EQ(d.pending("q", "cnt"), 0);
    d.abort_subtransaction(2);
    EXPECT_EQ(d.pending("q", "cnt"), 5);
    d.forget("q", "cnt", 2);
    d.commit_subtransaction(2);
    EXPECT_EQ(Drain(d), (std::vector<Row>{}));
}

TEST(MetricDeltas, DrainSortsByQueueThenMetric) {
    MetricDeltas d;
    d.add("b", "pnd", 1, 1);
    d.add("a_b", "cnt", 2, 2);
    d.add("b", "act", 3, 1);
    d.add("a", "pnd", 4, 3);
    d.add("a", "act", 5, 1);
    EXPECT_EQ(Drain(d), (std::vector<Row>{{"a", "act", 5},
                                          {"a", "pnd", 4},
                                          {"a_b", "cnt", 2},
                                          {"b", "act", 3},
                                          {"b", "pnd", 1}}));
}

TEST(MetricDeltas, DrainSumsLevelsAndDropsZeros) {
    MetricDeltas d;
    d.add("q", "pnd", 3, 1);
    d.add("q", "pnd", -3, 2);  // nets to zero across levels
    d.add("q", "act", 2, 1);
    d.add("q", "act", -2, 1);  // nets to zero within a level
    d.add("q", "cnt", 1, 1);
    d.add("q", "cnt", 1, 2);
    EXPECT_EQ(Drain(d), (std::vector<Row>{{"q", "cnt", 2}}));
}

TEST(MetricDeltas, DrainClears) {
    MetricDeltas d;
    d.add("q", "cnt", 1, 1);
    d.add("q", "cnt", 1, 2);
    EXPECT_EQ(d.drain().size(), 1u);
    EXPECT_TRUE(d.empty());
    EXPECT_EQ(d.pending("q", "cnt"), 0);
    EXPECT_TRUE(d.drain().empty());
}

TEST(MetricDeltas, ClearForgetsEverything) {
    MetricDeltas d;
    d.add("q", "cnt", 1, 1);
    d.add("q", "cnt", 1, 4);
    d.clear();
    EXPECT_TRUE(d.empty());
    EXPECT_TRUE(d.drain().empty());
}

TEST(MetricDeltas, LargeValues) {
    MetricDeltas d;
    d.add("q", "cnt", INT64_MAX / 2, 1);
    d.add("q", "cnt", INT64_MAX / 2, 2);
    EXPECT_EQ(d.pending("q", "cnt"), INT64_MAX / 2 * 2);
}

}  // namespace
}  // namespace fetchq::core
