// Periodic schedules (fetchq.periodic_schedules): created, dropped, paused
// and resumed here; their ticks are pushed by the scheduler
// (ops/schedules/schedule_ticks.hpp). A schedule pushes with its owner's
// rights, the role that created it, which needs push on the queue. Every
// function needs SPI.
#pragma once

#include <optional>
#include <string>

#include "pg/postgres.hpp"

namespace fetchq::ops {

struct ScheduleSpec {
    std::string name;
    std::string queue;
    std::string every;     // a cron expression or an interval
    std::string timezone;  // for a cron expression
    std::string subject;   // template: {tick} stands for the tick
    Datum payload = 0;
    int32_t version = 0;
    int32_t priority = 0;
    std::optional<Interval> expires_after;
    std::string catch_up = "none";
};

// Creates the schedule, owned by the caller; returns its first tick.
// Raises 42704 (queue), 42501 (no push on it), 42710 (the name is taken),
// 22023 (every, timezone, catch_up), 22001 (a subject too long with a tick).
TimestampTz create_schedule(const ScheduleSpec& spec);

// Only the schedule's owner, the queue's owner (a member of either) or a
// superuser; 42704 for a missing schedule, 42501 otherwise.
void drop_schedule(const std::string& name);
void pause_schedule(const std::string& name);
// Its next tick is the first after now: the ticks of the pause are skipped.
TimestampTz resume_schedule(const std::string& name);

// The document subject of `tick`: the template with each {tick} replaced
// by the tick in ISO 8601 UTC, or the tick appended after a hyphen when it
// has none.
std::string tick_subject(const std::string& subject, TimestampTz tick);

}  // namespace fetchq::ops
