// Durations as Fetchq clients write them, parsed into interval fields.
#include "core/duration.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fetchq::core {

// For readable failures (found by argument-dependent lookup).
void PrintTo(const Duration& d, std::ostream* os) {
    *os << "{months=" << d.months << ", days=" << d.days << ", micros=" << d.micros << "}";
}

namespace {

constexpr int64_t kSec = 1000000;
constexpr int64_t kMin = 60 * kSec;
constexpr int64_t kHour = 60 * kMin;

Duration D(int32_t months, int32_t days, int64_t micros) {
    Duration d;
    d.months = months;
    d.days = days;
    d.micros = micros;
    return d;
}

void Expect(std::string_view text, Duration want) {
    std::optional<Duration> got = parse_duration(text);
    ASSERT_TRUE(got.has_value()) << "\"" << text << "\" did not parse";
    EXPECT_EQ(*got, want) << "\"" << text << "\"";
}

TEST(Duration, CompactUnits) {
    Expect("3us", D(0, 0, 3));
    Expect("100ms", D(0, 0, 100000));
    Expect("5s", D(0, 0, 5 * kSec));
    Expect("5m", D(0, 0, 5 * kMin));
    Expect("2h", D(0, 0, 2 * kHour));
    Expect("2d", D(0, 2, 0));
    Expect("1w", D(0, 7, 0));
    Expect("3mon", D(3, 0, 0));
    Expect("2y", D(24, 0, 0));
}

TEST(Duration, LongUnits) {
    Expect("10 minutes", D(0, 0, 10 * kMin));
    Expect("1 minute", D(0, 0, kMin));
    Expect("2 days", D(0, 2, 0));
    Expect("1 day", D(0, 1, 0));
    Expect("3 hours", D(0, 0, 3 * kHour));
    Expect("1 hour", D(0, 0, kHour));
    Expect("30 seconds", D(0, 0, 30 * kSec));
    Expect("30 sec", D(0, 0, 30 * kSec));
    Expect("30 secs", D(0, 0, 30 * kSec));
    Expect("5 min", D(0, 0, 5 * kMin));
    Expect("5 mins", D(0, 0, 5 * kMin));
    Expect("250 milliseconds", D(0, 0, 250000));
    Expect("250 msec", D(0, 0, 250000));
    Expect("7 microseconds", D(0, 0, 7));
    Expect("7 usec", D(0, 0, 7));
    Expect("2 weeks", D(0, 14, 0));
    Expect("1 week", D(0, 7, 0));
    Expect("1 month", D(1, 0, 0));
    Expect("6 months", D(6, 0, 0));
    Expect("1 year", D(12, 0, 0));
    Expect("2 years", D(24, 0, 0));
    Expect("1 yr", D(12, 0, 0));
    Expect("2 yrs", D(24, 0, 0));
}

TEST(Duration, UnitsIgnoreCase) {
    Expect("5M", D(0, 0, 5 * kMin));
    Expect("100MS", D(0, 0, 100000));
    Expect("2 Days", D(0, 2, 0));
}

TEST(Duration, Combinations) {
    Expect("1h30m", D(0, 0, kHour + 30 * kMin));
    Expect("1h 30m", D(0, 0, kHour + 30 * kMin));
    Expect("1 hour 30 minutes", D(0, 0, kHour + 30 * kMin));
    Expect("1d12h", D(0, 1, 12 * kHour));
    Expect("1y2mon3d4h5m6s7ms8us", D(14, 3, 4 * kHour + 5 * kMin + 6 * kSec + 7008));
    Expect("1m1m", D(0, 0, 2 * kMin));  // repeated units add up
}

TEST(Duration, Spaces) {
    Expect("  5s  ", D(0, 0, 5 * kSec));
    Expect("\t5 s", D(0, 0, 5 * kSec));
    Expect("5    minutes", D(0, 0, 5 * kMin));
}

TEST(Duration, Fractions) {
    Expect("1.5h", D(0, 0, 90 * kMin));
    Expect("0.5s", D(0, 0, kSec / 2));
    Expect(".5s", D(0, 0, kSec / 2));
    Expect("5.s", D(0, 0, 5 * kSec));
    Expect("2.5ms", D(0, 0, 2500));
    Expect("1.5us", D(0, 0, 2));  // rounded to the nearest microsecond
    // Fractions of days and months spill into the smaller fields, as in PostgreSQL.
    Expect("1.5d", D(0, 1, 12 * kHour));
    Expect("0.5mon", D(0, 15, 0));
    Expect("1.5y", D(18, 0, 0));
    Expect("1.25w", D(0, 8, 18 * kHour));
    Expect("1.3mon", D(1, 9, 0));
    Expect("0.7d", D(0, 0, 16 * kHour + 48 * kMin));
    // A fraction of a year is rounded to whole months, never spilling into days.
    Expect("0.1y", D(1, 0, 0));
    Expect("1.1 years", D(13, 0, 0));
    Expect("0.01y", D(0, 0, 0));
}

TEST(Duration, Signs) {
    Expect("+5s", D(0, 0, 5 * kSec));
    Expect("-5m", D(0, 0, -5 * kMin));
    Expect("- 5m", D(0, 0, -5 * kMin));
    // The sign applies to the whole text.
    Expect("-1h30m", D(0, 0, -(kHour + 30 * kMin)));
    Expect("-1d12h", D(0, -1, -12 * kHour));
    Expect("-1.5d", D(0, -1, -12 * kHour));
    Expect("-0s", D(0, 0, 0));
}

TEST(Duration, Zero) {
    Expect("0s", D(0, 0, 0));
    Expect("0 days", D(0, 0, 0));
}

TEST(Duration, RejectsGarbage) {
    for (const char* text : {"",     "   ",    "abc",           "5",    "5 ",         "m",
                             "5x",   "5 m x",  "5m5",           "1e5s", ".s",         ".",
                             "-",    "+",      "--5s",          "+-5s", "5m -3s",     "5m,3s",
                             "5,5s", "1.2.3s", "5 minutes ago", "5m!",  "5\xc2\xb5s", "5s\n"})
        EXPECT_FALSE(parse_duration(text).has_value()) << "\"" << text << "\"";
    EXPECT_FALSE(parse_duration(std::string_view("5s\0", 3)).has_value());
}

// Not of this grammar: the caller hands these to PostgreSQL's interval input.
TEST(Duration, LeavesOtherFormsToPostgres) {
    for (const char* text : {"1:30", "01:02:03", "P1D", "PT5M", "1 day 02:00:00", "@ 5 mins"})
        EXPECT_FALSE(parse_duration(text).has_value()) << "\"" << text << "\"";
}

TEST(Duration, Overflow) {
    // More than 18 digits in one number.
    EXPECT_FALSE(parse_duration("1234567890123456789s").has_value());
    EXPECT_FALSE(parse_duration("0000000000000000001s").has_value());
    EXPECT_FALSE(parse_duration("999999999999999999h").has_value());
    // Microseconds beyond int64.
    EXPECT_FALSE(parse_duration("10000000000000s").has_value());
    EXPECT_FALSE(parse_duration("9000000000000s 9000000000000s").has_value());
    Expect("9000000000000s", D(0, 0, 9000000000000 * kSec));
    // Days and months beyond int32.
    Expect("2147483647d", D(0, 2147483647, 0));
    EXPECT_FALSE(parse_duration("2147483648d").has_value());
    EXPECT_FALSE(parse_duration("306783379w").has_value());
    Expect("2147483647mon", D(2147483647, 0, 0));
    EXPECT_FALSE(parse_duration("2147483648mon").has_value());
    Expect("178956970y", D(2147483640, 0, 0));
    EXPECT_FALSE(parse_duration("178956971y").has_value());
    Expect("-2147483647d", D(0, -2147483647, 0));
}

}  // namespace
}  // namespace fetchq::core

TEST(Duration, BareNumber) {
    for (const char* text : {"5", "0", " 5 ", "-1", "+2", "1.5", ".5", "5.", "007"})
        EXPECT_TRUE(fetchq::core::is_bare_number(text)) << "\"" << text << "\"";
    for (const char* text : {"", " ", ".", "-", "5s", "5 m", "1:30", "5 5", "1e5", "--5", "5m"})
        EXPECT_FALSE(fetchq::core::is_bare_number(text)) << "\"" << text << "\"";
}
