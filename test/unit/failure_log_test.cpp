// Which failures of the scheduler's units of work reach the server log
// (src/worker/failure_log.hpp, pure C++).
#include <gtest/gtest.h>

#include <string>

#include "worker/failure_log.hpp"

using fetchq::worker::FailureLog;

namespace {
constexpr int64_t kSecond = 1000000;
const std::string kWhat = "maintenance of queue \"q\"";
}  // namespace

TEST(FailureLog, LogsTheFirstFailureThenOneAMinuteWithTheCountLeftOut) {
    FailureLog log;
    EXPECT_TRUE(log.empty());
    FailureLog::Verdict v = log.failed("q", kWhat, 100 * kSecond);
    EXPECT_TRUE(v.log);
    EXPECT_EQ(v.left_out, 0);
    EXPECT_FALSE(log.empty());
    // The scheduler's backoff: 1, 2, 4, 8, 16 s later: all within the minute.
    int64_t t = 100 * kSecond;
    for (int64_t wait : {1, 2, 4, 8, 16}) {
        t += wait * kSecond;
        EXPECT_FALSE(log.failed("q", kWhat, t).log) << "after " << wait << " s";
    }
    // 32 s later, 63 s after the first line: logged, with the five left out.
    v = log.failed("q", kWhat, 163 * kSecond);
    EXPECT_TRUE(v.log);
    EXPECT_EQ(v.left_out, 5);
    EXPECT_EQ(v.last_line, 100 * kSecond);
    // The next minute starts from that line.
    EXPECT_FALSE(log.failed("q", kWhat, 222 * kSecond).log);
    v = log.failed("q", kWhat, 223 * kSecond);
    EXPECT_TRUE(v.log);
    EXPECT_EQ(v.left_out, 1);
    EXPECT_EQ(v.last_line, 163 * kSecond);
}

TEST(FailureLog, ASuccessEndsTheSeriesAndCountsItsFailures) {
    FailureLog log;
    EXPECT_EQ(log.succeeded("q", kWhat), 0);  // was not failing: nothing to say
    for (int i = 0; i < 4; ++i) log.failed("q", kWhat, (1 + i) * kSecond);
    EXPECT_EQ(log.succeeded("q", kWhat), 4);
    EXPECT_TRUE(log.empty());
    EXPECT_EQ(log.succeeded("q", kWhat), 0);
    // A new series is logged from its first failure, whenever it comes.
    EXPECT_TRUE(log.failed("q", kWhat, 6 * kSecond).log);
}

TEST(FailureLog, SeriesAreKeptPerQueueAndUnit) {
    FailureLog log;
    EXPECT_TRUE(log.failed("a", "maintenance of queue \"a\"", kSecond).log);
    EXPECT_TRUE(log.failed("b", "maintenance of queue \"b\"", kSecond).log);
    EXPECT_TRUE(log.failed("a", "job sts of queue \"a\"", kSecond).log);
    EXPECT_FALSE(log.failed("a", "maintenance of queue \"a\"", 2 * kSecond).log);
    EXPECT_EQ(log.succeeded("b", "maintenance of queue \"b\""), 1);
    EXPECT_EQ(log.succeeded("a", "maintenance of queue \"a\""), 2);
    EXPECT_EQ(log.succeeded("a", "job sts of queue \"a\""), 1);
}

TEST(FailureLog, RetainForgetsDroppedQueuesButNotUnitsOfNoQueue) {
    FailureLog log;
    log.failed("kept", "maintenance of queue \"kept\"", kSecond);
    log.failed("dropped", "maintenance of queue \"dropped\"", kSecond);
    log.failed("", "job lgp", kSecond);
    log.retain([](const std::string& queue) { return queue == "kept"; });
    EXPECT_EQ(log.succeeded("dropped", "maintenance of queue \"dropped\""), 0);
    EXPECT_EQ(log.succeeded("kept", "maintenance of queue \"kept\""), 1);
    EXPECT_EQ(log.succeeded("", "job lgp"), 1);
    EXPECT_TRUE(log.empty());
}

TEST(FailureLog, EachFailureInARowWaitsTwiceAsLongBeforeTheNextTry) {
    FailureLog log;
    EXPECT_EQ(log.retry_at("q", kWhat), 0);  // not failing: may run at once
    log.failed("q", kWhat, 10 * kSecond);
    EXPECT_EQ(log.retry_at("q", kWhat), 11 * kSecond);
    log.failed("q", kWhat, 11 * kSecond);
    EXPECT_EQ(log.retry_at("q", kWhat), 13 * kSecond);
    log.failed("q", kWhat, 13 * kSecond);
    EXPECT_EQ(log.retry_at("q", kWhat), 17 * kSecond);
    EXPECT_EQ(log.retry_at("q", "job sts of queue \"q\""), 0);  // per unit
    log.succeeded("q", kWhat);
    EXPECT_EQ(log.retry_at("q", kWhat), 0);
}
