#include "ops/schedules/schedules.hpp"

#include "core/echo.hpp"
#include "core/error.hpp"
#include "core/queue_privilege.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/schedules/schedule_clock.hpp"
#include "ops/shared_memory/wake.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "utils/acl.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

constexpr std::size_t kMaxSubject = 50;  // the documents' subject column
constexpr const char* kTickMark = "{tick}";

[[noreturn]] void throw_schedule_missing(const std::string& name) {
    throw core::Error(core::sqlstate::kUndefinedObject, "schedule \"" + name + "\" does not exist",
                      {}, "The schedules are listed in fetchq.schedules.");
}

void check_catch_up(const std::string& catch_up) {
    if (catch_up == "none" || catch_up == "all") return;
    throw core::Error(core::sqlstate::kInvalidParameterValue,
                      "argument catch_up must be 'none' or 'all'",
                      "The value was " + core::echo(catch_up) + ".",
                      "'none': after a downtime, only the latest missed tick is pushed; 'all': "
                      "every missed tick, in order.");
}

void check_subject(const ScheduleSpec& spec, TimestampTz tick) {
    const std::string subject = tick_subject(spec.subject, tick);
    if (subject.size() <= kMaxSubject) return;
    throw core::Error(core::sqlstate::kStringDataRightTruncation,
                      "argument subject is too long for a document's subject with its tick",
                      "The subject of a tick would be " + core::echo(subject) + ", " +
                          std::to_string(subject.size()) + " bytes; at most 50 fit.",
                      "Use a shorter subject: the tick takes 20 bytes.");
}

void require_push(const std::string& queue) {
    if (!OidIsValid(queue_owner_or_invalid(queue))) throw_queue_missing(queue);
    const Oid me = pg_call([] { return GetUserId(); });
    if (queue_privilege_held(queue, core::QueuePrivilege::kPush, me)) return;
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "permission denied to schedule pushes into queue \"" + queue + "\"",
                      "A schedule pushes with the rights of the role that creates it, which needs "
                      "the push privilege on the queue.",
                      {});
}

struct ScheduleRow {
    int32_t id = 0;
    std::string queue;
    Oid owner = InvalidOid;
};

// The schedule's row, locked; raises 42704 when missing, 42501 unless the
// caller has the privileges of its owner or of its queue's owner.
ScheduleRow require_schedule_manager(const std::string& name) {
    SPIPlanPtr plan =
        cached_plan("", "schedule_manager",
                    [] {
                        return std::string(
                            "SELECT id, queue, owner::pg_catalog.oid FROM fetchq.periodic_schedules"
                            " WHERE name = $1 FOR UPDATE");
                    },
                    {TEXTOID});
    Datum arg = to_text(name);
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, &arg, nullptr, false); });
    if (n == 0) throw_schedule_missing(name);
    ScheduleRow row;
    bool isnull = false;
    row.id = static_cast<int32_t>(spi_int(0, 1));
    row.queue = spi_text(0, 2);
    row.owner = DatumGetObjectId(spi_value(0, 3, &isnull));
    const Oid queue_owner = queue_owner_or_invalid(row.queue);
    const bool may = pg_call([&] {
        const Oid me = GetUserId();
        return has_privs_of_role(me, row.owner) ||
               (OidIsValid(queue_owner) && has_privs_of_role(me, queue_owner));
    });
    if (may) return row;
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "permission denied for schedule \"" + name + "\"",
                      "Only its owner, the owner of queue \"" + row.queue +
                          "\" (or a member of either) or a superuser may drop, pause or resume it.",
                      {});
}

// Runs `sql` on the schedule's row ($1: its id) as the catalog's owner.
void run_on_schedule(const char* plan_name, const char* sql, int32_t id) {
    SPIPlanPtr plan = cached_plan("", plan_name, [sql] { return std::string(sql); }, {INT4OID});
    Datum value = Int32GetDatum(id);
    as_catalog_owner([&] { spi_execute(plan, &value, nullptr, false); });
}

}  // namespace

std::string tick_subject(const std::string& subject, TimestampTz tick) {
    const std::string t = tick_text(tick);
    std::string out;
    std::size_t from = 0;
    bool marked = false;
    for (std::size_t at = subject.find(kTickMark); at != std::string::npos;
         at = subject.find(kTickMark, from)) {
        out += subject.substr(from, at - from) + t;
        from = at + std::char_traits<char>::length(kTickMark);
        marked = true;
    }
    out += subject.substr(from);
    return marked ? out : out + "-" + t;
}

TimestampTz create_schedule(const ScheduleSpec& spec) {
    check_catch_up(spec.catch_up);
    const Every every = parse_every(spec.every, spec.timezone);
    require_push(spec.queue);
    const TimestampTz now = pg_call([] { return GetCurrentTransactionStartTimestamp(); });
    const TimestampTz first = first_tick(every, now);
    check_subject(spec, first);
    SPIPlanPtr plan = cached_plan(
        "", "schedule_create",
        [] {
            return std::string(
                "INSERT INTO fetchq.periodic_schedules (name, queue, cron, every, timezone,"
                " subject, payload, version, priority, expires_after, catch_up, next_at, owner)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,"
                " $13::pg_catalog.regrole) ON CONFLICT (name) DO NOTHING");
        },
        {TEXTOID, TEXTOID, TEXTOID, INTERVALOID, TEXTOID, TEXTOID, JSONBOID, INT4OID, INT4OID,
         INTERVALOID, TEXTOID, TIMESTAMPTZOID, OIDOID});
    Interval interval = every.interval;
    Interval expires = spec.expires_after.value_or(Interval{});
    Datum values[13] = {to_text(spec.name),
                        to_text(spec.queue),
                        every.cron ? to_text(spec.every) : (Datum)0,
                        every.cron ? (Datum)0 : IntervalPGetDatum(&interval),
                        to_text(spec.timezone),
                        to_text(spec.subject),
                        spec.payload,
                        Int32GetDatum(spec.version),
                        Int32GetDatum(spec.priority),
                        IntervalPGetDatum(&expires),
                        to_text(spec.catch_up),
                        TimestampTzGetDatum(first),
                        ObjectIdGetDatum(pg_call([] { return GetUserId(); }))};
    char nulls[13];
    for (char& c : nulls) c = ' ';
    nulls[every.cron ? 3 : 2] = 'n';
    if (!spec.expires_after) nulls[9] = 'n';
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nulls, false); });
    if (n == 0)
        throw core::Error(core::sqlstate::kDuplicateObject,
                          "schedule \"" + spec.name + "\" already exists", {},
                          "Drop it first with fetchq.schedule_drop('" + spec.name +
                              "'), or choose another name.");
    note_due(first);
    return first;
}

void drop_schedule(const std::string& name) {
    const ScheduleRow row = require_schedule_manager(name);
    run_on_schedule("schedule_drop", "DELETE FROM fetchq.periodic_schedules WHERE id = $1", row.id);
}

void pause_schedule(const std::string& name) {
    const ScheduleRow row = require_schedule_manager(name);
    run_on_schedule("schedule_pause",
                    "UPDATE fetchq.periodic_schedules SET paused = true WHERE id = $1", row.id);
}

TimestampTz resume_schedule(const std::string& name) {
    const ScheduleRow row = require_schedule_manager(name);
    SPIPlanPtr read = cached_plan(
        "", "schedule_every",
        [] {
            return std::string(
                "SELECT COALESCE(cron, every::pg_catalog.text), timezone, cron IS NOT NULL"
                " FROM fetchq.periodic_schedules WHERE id = $1");
        },
        {INT4OID});
    Datum id = Int32GetDatum(row.id);
    as_catalog_owner([&] { spi_execute(read, &id, nullptr, false); });
    const std::string every_text = spi_text(0, 1);
    bool isnull = false;
    const bool cron = DatumGetBool(spi_value(0, 3, &isnull));
    const Every every = parse_every(every_text, spi_text(0, 2), cron);
    const TimestampTz now = pg_call([] { return GetCurrentTransactionStartTimestamp(); });
    const TimestampTz next = first_tick(every, now);
    SPIPlanPtr resume = cached_plan(
        "", "schedule_resume",
        [] {
            return std::string(
                "UPDATE fetchq.periodic_schedules SET paused = false, next_at = $2 WHERE id = $1");
        },
        {INT4OID, TIMESTAMPTZOID});
    Datum values[2] = {id, TimestampTzGetDatum(next)};
    as_catalog_owner([&] { spi_execute(resume, values, nullptr, false); });
    note_due(next);
    return next;
}

}  // namespace fetchq::ops
