// Cron expressions as crontab(5) reads them, for periodic schedules: five
// fields (minute hour day-of-month month day-of-week) of `*`, numbers,
// names (jan-dec, sun-sat), lists, ranges and steps, or one of @hourly,
// @daily (@midnight), @weekly, @monthly, @yearly (@annually). Times are
// civil (wall-clock) minutes; the time zone is the caller's business.
//
// Day-of-month and day-of-week together: when both fields are restricted
// (neither starts with `*`), a day matches if either does, as cron has
// always read them ("0 0 1,15 * 1": the 1st, the 15th and every Monday);
// when one starts with `*`, only the other decides.
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fetchq::core {

// A minute of the civil calendar (proleptic Gregorian).
struct CivilMinute {
    int year = 1970;
    int month = 1;   // 1-12
    int day = 1;     // 1-31
    int hour = 0;    // 0-23
    int minute = 0;  // 0-59

    bool operator==(const CivilMinute& o) const {
        return year == o.year && month == o.month && day == o.day && hour == o.hour &&
               minute == o.minute;
    }
};

// 28 to 31.
int days_in_month(int year, int month);
// 0 (Sunday) to 6.
int day_of_week(int year, int month, int day);

class CronExpression {
  public:
    // Raises 22023 naming the field and the text at fault; an expression
    // that can never fire ("0 0 30 2 *") is refused too.
    static CronExpression parse(std::string_view text);

    bool matches(const CivilMinute& t) const;

    // The first matching minute strictly after `after`; none within the
    // next 8 years (never, for an expression parse accepted, unless the
    // year runs past 9999).
    std::optional<CivilMinute> next_after(const CivilMinute& after) const;

  private:
    bool day_matches(int year, int month, int day) const;

    std::bitset<60> minutes_;
    std::bitset<24> hours_;
    std::bitset<32> days_;     // 1-31
    std::bitset<13> months_;   // 1-12
    std::bitset<7> weekdays_;  // 0-6, Sunday 0
    bool days_star_ = false;
    bool weekdays_star_ = false;
};

}  // namespace fetchq::core
