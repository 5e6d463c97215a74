#include "ops/schedules/schedule_clock.hpp"

#include <cctype>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "pg/guard.hpp"

extern "C" {
#include "pgtime.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

bool is_cron(const std::string& every) {
    std::size_t fields = 0;
    bool in_word = false;
    for (char c : every) {
        const bool space = std::isspace(static_cast<unsigned char>(c));
        if (!space && !in_word) ++fields;
        in_word = !space;
    }
    const std::size_t first = every.find_first_not_of(" \t\n");
    return fields == 5 || (first != std::string::npos && every[first] == '@');
}

pg_tz* zone_of(const std::string& name) {
    pg_tz* tz = pg_call([&] { return pg_tzset(name.c_str()); });
    if (tz == nullptr)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "time zone " + core::echo(name) + " not recognized", {},
                          "Name a zone of pg_timezone_names, such as 'Europe/Rome' or 'UTC'.");
    return tz;
}

Interval parse_interval(const std::string& every) {
    const char* text = every.c_str();
    Interval value{};
    pg_call([&] {
        Datum d = DirectFunctionCall3(interval_in, CStringGetDatum(text),
                                      ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
        value = *DatumGetIntervalP(d);
    });
    Interval second{};
    second.time = USECS_PER_SEC;
    const int cmp = pg_call([&] {
        return DatumGetInt32(DirectFunctionCall2(interval_cmp, IntervalPGetDatum(&value),
                                                 IntervalPGetDatum(&second)));
    });
    if (cmp < 0)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument every must be at least 1 second",
                          "The interval was " + core::echo(every) + ".",
                          "Give an interval such as '30 seconds' or '1 hour', or a cron expression "
                          "such as '*/5 * * * *'.");
    return value;
}

core::CivilMinute civil(TimestampTz t, pg_tz* tz) {
    struct pg_tm tm;
    fsec_t fsec = 0;
    int offset = 0;
    pg_call([&] {
        if (timestamp2tm(t, &offset, &tm, &fsec, nullptr, tz) != 0)
            ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                            errmsg("timestamp out of range")));
    });
    return {tm.tm_year, tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min};
}

TimestampTz instant(const core::CivilMinute& c, pg_tz* tz) {
    TimestampTz out = 0;
    pg_call([&] {
        struct pg_tm tm {};
        tm.tm_year = c.year;
        tm.tm_mon = c.month;
        tm.tm_mday = c.day;
        tm.tm_hour = c.hour;
        tm.tm_min = c.minute;
        tm.tm_sec = 0;
        int offset = DetermineTimeZoneOffset(&tm, tz);
        if (tm2timestamp(&tm, 0, &offset, &out) != 0)
            ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                            errmsg("timestamp out of range")));
    });
    return out;
}

TimestampTz plus(TimestampTz t, const Interval& interval) {
    return pg_call([&] {
        return DatumGetTimestampTz(DirectFunctionCall2(
            timestamptz_pl_interval, TimestampTzGetDatum(t), IntervalPGetDatum(&interval)));
    });
}

}  // namespace

Every parse_every(const std::string& every, const std::string& timezone, std::optional<bool> cron) {
    Every e;
    e.timezone = timezone;
    zone_of(timezone);
    if (cron.value_or(is_cron(every)))
        e.cron = core::CronExpression::parse(every);
    else
        e.interval = parse_interval(every);
    return e;
}

TimestampTz next_tick(const Every& every, TimestampTz after) {
    if (!every.cron) return plus(after, every.interval);
    pg_tz* tz = zone_of(every.timezone);
    core::CivilMinute from = civil(after, tz);
    for (;;) {
        const std::optional<core::CivilMinute> next = every.cron->next_after(from);
        if (!next)
            throw core::Error(core::sqlstate::kInvalidParameterValue,
                              "the cron expression has no tick in the next 8 years");
        const TimestampTz t = instant(*next, tz);
        if (t > after) return t;
        from = *next;  // a wall-clock minute repeated by a change: its first run was it
    }
}

TimestampTz first_tick(const Every& every, TimestampTz now) {
    if (every.cron) return next_tick(every, now);
    return plus(now - now % USECS_PER_SEC, every.interval);
}

std::string tick_text(TimestampTz tick) {
    struct pg_tm tm;
    fsec_t fsec = 0;
    pg_call([&] {
        if (timestamp2tm(tick, nullptr, &tm, &fsec, nullptr, nullptr) != 0)
            ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                            errmsg("timestamp out of range")));
    });
    char out[32];
    snprintf(out, sizeof(out), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year, tm.tm_mon, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec);
    return out;
}

}  // namespace fetchq::ops
