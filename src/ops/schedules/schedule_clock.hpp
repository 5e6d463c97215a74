// When a schedule's ticks fall: a cron expression read in a time zone
// (core/cron.hpp), or an interval of at least one second.
#pragma once

#include <optional>
#include <string>

#include "core/cron.hpp"
#include "pg/postgres.hpp"

namespace fetchq::ops {

struct Every {
    std::optional<core::CronExpression> cron;  // else `interval`
    Interval interval{};
    std::string timezone;  // the cron expression's
};

// `every` is a cron expression when `cron` says so, or (not said) when it
// starts with '@' or has five fields; else an interval. Raises 22023 for a
// bad expression, an interval under one second and an unknown time zone
// (naming it).
Every parse_every(const std::string& every, const std::string& timezone,
                  std::optional<bool> cron = std::nullopt);

// The first tick strictly after `after`. A cron tick in an hour that a
// daylight-saving change skips falls at the same wall-clock time read in
// the offset before the change (02:30 on a spring-forward night runs at
// 03:30); a wall-clock minute that a change repeats runs once, at its
// first occurrence.
TimestampTz next_tick(const Every& every, TimestampTz after);

// The first tick of a new schedule: the next cron tick after now, or now
// (truncated to the second) plus the interval.
TimestampTz first_tick(const Every& every, TimestampTz now);

// The tick as ISO 8601 in UTC, to the second: 2026-11-27T13:20:00Z.
std::string tick_text(TimestampTz tick);

}  // namespace fetchq::ops
