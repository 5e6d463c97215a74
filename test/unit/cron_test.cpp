// Cron expressions: the fields as crontab(5) reads them, the next tick
// across month ends, leap days and years, day-of-month beside day-of-week,
// and clear refusals.
#include "core/cron.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace fetchq::core {
namespace {

CivilMinute at(int y, int mo, int d, int h, int mi) { return CivilMinute{y, mo, d, h, mi}; }

CivilMinute next(const char* expr, CivilMinute after) {
    const std::optional<CivilMinute> n = CronExpression::parse(expr).next_after(after);
    EXPECT_TRUE(n.has_value()) << expr;
    return n.value_or(CivilMinute{});
}

std::string refusal(const char* expr) {
    try {
        CronExpression::parse(expr);
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "22023") << expr;
        return e.detail();
    }
    ADD_FAILURE() << expr << " accepted";
    return {};
}

TEST(Cron, Calendar) {
    EXPECT_EQ(days_in_month(2024, 2), 29);
    EXPECT_EQ(days_in_month(2023, 2), 28);
    EXPECT_EQ(days_in_month(1900, 2), 28);
    EXPECT_EQ(days_in_month(2000, 2), 29);
    EXPECT_EQ(days_in_month(2026, 4), 30);
    EXPECT_EQ(day_of_week(2026, 11, 27), 5);  // a Friday
    EXPECT_EQ(day_of_week(2000, 1, 1), 6);    // a Saturday
    EXPECT_EQ(day_of_week(2024, 2, 29), 4);   // a Thursday
}

TEST(Cron, EveryMinuteAndSteps) {
    EXPECT_EQ(next("* * * * *", at(2026, 11, 27, 10, 59)), at(2026, 11, 27, 11, 0));
    EXPECT_EQ(next("*/5 * * * *", at(2026, 11, 27, 10, 0)), at(2026, 11, 27, 10, 5));
    EXPECT_EQ(next("*/5 * * * *", at(2026, 11, 27, 10, 57)), at(2026, 11, 27, 11, 0));
    EXPECT_EQ(next("10-20/5 * * * *", at(2026, 11, 27, 10, 15)), at(2026, 11, 27, 10, 20));
    EXPECT_EQ(next("10-20/5 * * * *", at(2026, 11, 27, 10, 20)), at(2026, 11, 27, 11, 10));
    EXPECT_EQ(next("50/5 * * * *", at(2026, 11, 27, 10, 56)), at(2026, 11, 27, 11, 50));
    EXPECT_EQ(next("0,30 9-17 * * *", at(2026, 11, 27, 17, 30)), at(2026, 11, 28, 9, 0));
}

TEST(Cron, Shorthands) {
    const CivilMinute friday = at(2026, 11, 27, 10, 0);
    EXPECT_EQ(next("@hourly", friday), at(2026, 11, 27, 11, 0));
    EXPECT_EQ(next("@daily", friday), at(2026, 11, 28, 0, 0));
    EXPECT_EQ(next("@midnight", friday), at(2026, 11, 28, 0, 0));
    EXPECT_EQ(next("@weekly", friday), at(2026, 11, 29, 0, 0));  // Sunday
    EXPECT_EQ(next("@monthly", friday), at(2026, 12, 1, 0, 0));
    EXPECT_EQ(next("@yearly", friday), at(2027, 1, 1, 0, 0));
    EXPECT_EQ(next("@ANNUALLY", friday), at(2027, 1, 1, 0, 0));
}

TEST(Cron, MonthEndsAndLeapDays) {
    // The 31st: only months that have one.
    EXPECT_EQ(next("0 0 31 * *", at(2026, 3, 31, 0, 0)), at(2026, 5, 31, 0, 0));
    // February 29th: the next leap year.
    EXPECT_EQ(next("0 12 29 2 *", at(2025, 1, 1, 0, 0)), at(2028, 2, 29, 12, 0));
    EXPECT_EQ(next("0 12 29 2 *", at(2096, 3, 1, 0, 0)), at(2104, 2, 29, 12, 0));
    // Across a year's end.
    EXPECT_EQ(next("59 23 31 12 *", at(2026, 12, 31, 23, 59)), at(2027, 12, 31, 23, 59));
    EXPECT_EQ(next("0 0 1 jan *", at(2026, 12, 31, 23, 59)), at(2027, 1, 1, 0, 0));
}

TEST(Cron, DayOfMonthBesideDayOfWeek) {
    // Both restricted: either one (the 13th, and every Friday).
    const CronExpression either = CronExpression::parse("0 0 13 * fri");
    EXPECT_TRUE(either.matches(at(2026, 11, 13, 0, 0)));  // a Friday the 13th
    EXPECT_TRUE(either.matches(at(2026, 12, 13, 0, 0)));  // a Sunday
    EXPECT_TRUE(either.matches(at(2026, 11, 20, 0, 0)));  // a Friday
    EXPECT_FALSE(either.matches(at(2026, 11, 21, 0, 0)));
    EXPECT_EQ(next("0 0 13 * fri", at(2026, 11, 13, 0, 0)), at(2026, 11, 20, 0, 0));
    // A day-of-week starting with `*`: only the day-of-month decides with it.
    const CronExpression both = CronExpression::parse("0 0 13 * */2");
    EXPECT_FALSE(both.matches(at(2026, 11, 13, 0, 0)));  // a Friday (5)
    EXPECT_TRUE(both.matches(at(2026, 12, 13, 0, 0)));   // a Sunday (0)
    // Day-of-week alone; 7 and 0 are Sunday; names and ranges.
    EXPECT_EQ(next("0 8 * * 7", at(2026, 11, 27, 10, 0)), at(2026, 11, 29, 8, 0));
    EXPECT_EQ(next("0 8 * * 0", at(2026, 11, 27, 10, 0)), at(2026, 11, 29, 8, 0));
    EXPECT_EQ(next("0 8 * * mon-fri", at(2026, 11, 27, 10, 0)), at(2026, 11, 30, 8, 0));
    EXPECT_EQ(next("0 8 * * 5-7", at(2026, 11, 28, 10, 0)), at(2026, 11, 29, 8, 0));
    EXPECT_EQ(next("0 8 * Dec Sat", at(2026, 11, 27, 10, 0)), at(2026, 12, 5, 8, 0));
}

TEST(Cron, Refusals) {
    EXPECT_NE(refusal("* * * *").find("4 fields instead of 5"), std::string::npos);
    EXPECT_NE(refusal("* * * * * *").find("6 fields"), std::string::npos);
    EXPECT_NE(refusal("60 * * * *").find("minute (0-59): \"60\""), std::string::npos);
    EXPECT_NE(refusal("* 24 * * *").find("hour (0-23)"), std::string::npos);
    EXPECT_NE(refusal("* * 0 * *").find("day-of-month (1-31)"), std::string::npos);
    EXPECT_NE(refusal("* * * 13 *").find("month (1-12)"), std::string::npos);
    EXPECT_NE(refusal("* * * * 8").find("day-of-week (0-7)"), std::string::npos);
    EXPECT_NE(refusal("* * * * fry").find("\"fry\""), std::string::npos);
    EXPECT_NE(refusal("*/0 * * * *").find("step \"0\""), std::string::npos);
    EXPECT_NE(refusal("5-1 * * * *").find("runs backwards"), std::string::npos);
    EXPECT_NE(refusal("1,,2 * * * *").find("empty item"), std::string::npos);
    EXPECT_NE(refusal("@fortnightly").find("\"@fortnightly\""), std::string::npos);
    EXPECT_NE(refusal("0 0 30 2 *").find("never fires"), std::string::npos);
    EXPECT_NE(refusal("0 0 31 4,6,9,11 *").find("never fires"), std::string::npos);
    EXPECT_NE(refusal("").find("0 fields"), std::string::npos);
}

TEST(Cron, NeverFiringOnlyWhenNothingElseStandsBeside) {
    // 30 February, or any Monday: fires.
    EXPECT_NO_THROW(CronExpression::parse("0 0 30 2 mon"));
    EXPECT_NO_THROW(CronExpression::parse("0 0 29 2 *"));
}

}  // namespace
}  // namespace fetchq::core
