#include "ops/schedules/schedule_ticks.hpp"

#include <deque>
#include <optional>

#include "core/error.hpp"
#include "core/queue_privilege.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "ops/documents/doc_push.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/schedules/schedule_clock.hpp"
#include "ops/schedules/schedules.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "utils/timestamp.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

// A due schedule's row, read locked.
struct Row {
    std::string name, queue, subject, catch_up;
    Every every;
    Datum payload = 0;
    int32_t version = 0, priority = 0;
    std::optional<Interval> expires_after;
    TimestampTz next_at = 0;
    Oid owner = InvalidOid;
};

constexpr const char* kRowSql =
    "SELECT name, queue, COALESCE(cron, every::pg_catalog.text), cron IS NOT NULL, timezone,"
    " subject, payload, version, priority, expires_after, catch_up, next_at,"
    " owner::pg_catalog.oid FROM fetchq.periodic_schedules"
    " WHERE id = $1 AND NOT paused AND next_at <= $2 FOR UPDATE";

std::optional<Row> read_row(int32_t id, TimestampTz now) {
    SPIPlanPtr plan = cached_plan("", "schedule_row", [] { return std::string(kRowSql); },
                                  {INT4OID, TIMESTAMPTZOID});
    Datum values[2] = {Int32GetDatum(id), TimestampTzGetDatum(now)};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, false); });
    if (n == 0) return std::nullopt;
    Row r;
    bool isnull = false;
    r.name = spi_text(0, 1);
    r.queue = spi_text(0, 2);
    const std::string every = spi_text(0, 3);
    const bool cron = DatumGetBool(spi_value(0, 4, &isnull));
    r.every = parse_every(every, spi_text(0, 5), cron);
    r.subject = spi_text(0, 6);
    const Datum payload = spi_value(0, 7, &isnull);
    r.payload = pg_call([&] { return PointerGetDatum(PG_DETOAST_DATUM_COPY(payload)); });
    r.version = static_cast<int32_t>(spi_int(0, 8));
    r.priority = static_cast<int32_t>(spi_int(0, 9));
    const Datum expires = spi_value(0, 10, &isnull);
    if (!isnull) r.expires_after = *DatumGetIntervalP(expires);
    r.catch_up = spi_text(0, 11);
    r.next_at = DatumGetTimestampTz(spi_value(0, 12, &isnull));
    r.owner = DatumGetObjectId(spi_value(0, 13, &isnull));
    return r;
}

// A cron schedule's missed ticks are walked one by one (a few µs each); a
// walk stops after this many, so that a unit stays well under
// fetchq.task_timeout, and goes on in the next round.
constexpr int64_t kMaxWalkedTicks = 100000;

// The ticks to push now: with catch_up 'none' the latest due one, with 'all'
// the latest kMaxCatchUpTicks due ones, oldest first. Sets *next to the
// first tick after them and *skipped to the due ones left out. A walk cut
// short returns no tick, *next at the oldest tick it kept (still due, so the
// next round comes at once and walks on from there) and *skipped at the
// ticks before it.
std::deque<TimestampTz> ticks_to_push(const Row& r, TimestampTz now, TimestampTz* next,
                                      int64_t* skipped) {
    const std::size_t keep = r.catch_up == "all" ? kMaxCatchUpTicks : 1;
    std::deque<TimestampTz> ticks;
    *skipped = 0;
    TimestampTz t = r.next_at;
    // An interval of time alone: the due ticks before the last `keep` are
    // skipped by arithmetic, not walked (a schedule of every second after a
    // month's downtime has 2.6 million).
    const Interval& every = r.every.interval;
    if (!r.every.cron && every.month == 0 && every.day == 0 && t <= now) {
        const int64_t due = (now - t) / every.time + 1;
        const int64_t left_out = due - static_cast<int64_t>(keep);
        if (left_out > 0) {
            *skipped = left_out;
            t += left_out * every.time;
        }
    }
    int64_t walked = 0;
    for (; t <= now; ++walked) {
        if (walked == kMaxWalkedTicks) {
            *next = ticks.front();
            *skipped += walked - static_cast<int64_t>(ticks.size());
            return {};
        }
        ticks.push_back(t);
        if (ticks.size() > keep) ticks.pop_front();
        t = next_tick(r.every, t);
    }
    *skipped += walked - static_cast<int64_t>(ticks.size());
    *next = t;
    return ticks;
}

void require_owner_push(const Row& r) {
    if (queue_privilege_held(r.queue, core::QueuePrivilege::kPush, r.owner)) return;
    const char* role = pg_call([&] { return GetUserNameFromId(r.owner, true); });
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "schedule \"" + r.name +
                          "\" pushes nothing: its owner may no longer push "
                          "into queue \"" +
                          r.queue + "\"",
                      "The owner is role \"" + std::string(role ? role : "(dropped)") + "\".",
                      "Give it push again, or drop the schedule.");
}

int64_t push_tick(const Row& r, TimestampTz tick) {
    const std::string subject = tick_subject(r.subject, tick);
    Expiry expiry = Expiry::queue_default();
    if (r.expires_after) {
        Interval after = *r.expires_after;
        expiry = Expiry::given(pg_call([&] {
            return DatumGetTimestampTz(DirectFunctionCall2(
                timestamptz_pl_interval, TimestampTzGetDatum(tick), IntervalPGetDatum(&after)));
        }));
    }
    int64_t n = 0;
    with_queue_privilege(r.queue, core::QueuePrivilege::kPush, [&] {
        n = push_one(r.queue, subject, r.version, r.priority, tick, r.payload, false, expiry);
    });
    return n;
}

// The schedule after its ticks: the next one, the last pushed, the counts.
struct Moved {
    TimestampTz next = 0;
    TimestampTz last = 0;
    std::string subject;
    int64_t pushed = 0;
    int64_t skipped = 0;
};

void move_next(int32_t id, const Moved& m) {
    SPIPlanPtr plan = cached_plan(
        "", "schedule_moved",
        [] {
            return std::string(
                "UPDATE fetchq.periodic_schedules SET next_at = $2, last_at = $3,"
                " last_subject = $4,"
                " ticks_pushed = ticks_pushed OPERATOR(pg_catalog.+) $5,"
                " ticks_skipped = ticks_skipped OPERATOR(pg_catalog.+) $6 WHERE id = $1");
        },
        {INT4OID, TIMESTAMPTZOID, TIMESTAMPTZOID, TEXTOID, INT8OID, INT8OID});
    Datum values[6] = {Int32GetDatum(id),  TimestampTzGetDatum(m.next), TimestampTzGetDatum(m.last),
                       to_text(m.subject), Int64GetDatum(m.pushed),     Int64GetDatum(m.skipped)};
    as_catalog_owner([&] { spi_execute(plan, values, nullptr, false); });
}

// A walk cut short: the tick it goes on from and the ticks it skipped.
void move_on(int32_t id, TimestampTz next, int64_t skipped) {
    SPIPlanPtr plan = cached_plan(
        "", "schedule_walked",
        [] {
            return std::string(
                "UPDATE fetchq.periodic_schedules SET next_at = $2,"
                " ticks_skipped = ticks_skipped OPERATOR(pg_catalog.+) $3 WHERE id = $1");
        },
        {INT4OID, TIMESTAMPTZOID, INT8OID});
    Datum values[3] = {Int32GetDatum(id), TimestampTzGetDatum(next), Int64GetDatum(skipped)};
    as_catalog_owner([&] { spi_execute(plan, values, nullptr, false); });
}

}  // namespace

std::vector<DueSchedule> due_schedules(TimestampTz now, int32_t limit, TimestampTz* next) {
    *next = DT_NOEND;
    std::vector<DueSchedule> due;
    if (!OidIsValid(table_owner("fetchq", "periodic_schedules"))) return due;
    SPIPlanPtr plan =
        cached_plan("", "schedules_due",
                    [] {
                        return std::string(
                            "(SELECT id, name, queue, next_at FROM fetchq.periodic_schedules"
                            "  WHERE NOT paused AND next_at <= $1 ORDER BY next_at LIMIT $2)"
                            " UNION ALL (SELECT 0, '', '', next_at FROM fetchq.periodic_schedules"
                            "  WHERE NOT paused AND next_at > $1 ORDER BY next_at LIMIT 1)");
                    },
                    {TIMESTAMPTZOID, INT4OID});
    Datum values[2] = {TimestampTzGetDatum(now), Int32GetDatum(limit)};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, true); });
    for (uint64_t row = 0; row < n; ++row) {
        bool isnull = false;
        const int32_t id = static_cast<int32_t>(spi_int(row, 1));
        if (id == 0) {
            *next = DatumGetTimestampTz(spi_value(row, 4, &isnull));
            continue;
        }
        due.push_back({id, spi_text(row, 2), spi_text(row, 3)});
    }
    return due;
}

int64_t run_schedule(int32_t id, TimestampTz now, TimestampTz* next) {
    *next = DT_NOEND;
    const std::optional<Row> row = read_row(id, now);
    if (!row) return 0;
    require_owner_push(*row);
    Moved m;
    const std::deque<TimestampTz> ticks = ticks_to_push(*row, now, &m.next, &m.skipped);
    if (ticks.empty()) {  // a long walk, cut short: on in the next round
        move_on(id, m.next, m.skipped);
        *next = m.next;
        return 0;
    }
    int64_t queued = 0;
    as_user(row->owner, [&] {
        for (TimestampTz tick : ticks) queued += push_tick(*row, tick);
    });
    m.last = ticks.back();
    m.subject = tick_subject(row->subject, m.last);
    m.pushed = static_cast<int64_t>(ticks.size());
    move_next(id, m);
    *next = m.next;
    return queued;
}

}  // namespace fetchq::ops
