// Reading counters: metric_get (one counter, or all of a queue),
// metric_get_total, metric_get_common and metric_get_all. A counter is the
// sum of its stripes plus this transaction's pending change, so readers see
// their own uncommitted work and need no pack job.
#include <array>
#include <optional>

#include "core/counter_columns.hpp"
#include "core/error.hpp"
#include "pg/args.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/counters/counters.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

// The columns of metric_get_common / metric_get_all, in order: Fetchq 4's
// fourteen, then exp (fetchq's own, so it comes last). The retention's rtn is
// read with metric_get and fetchq.stats.
constexpr std::array<const char*, 15> kCommon = {"cnt", "pnd", "pln", "act", "cpl",
                                                 "kll", "ent", "drp", "pkd", "prc",
                                                 "res", "rej", "orp", "err", "exp"};

// Where each column's counter is in QueueCounters::values; a name that is not
// a reported counter fails the build.
constexpr std::array<std::size_t, kCommon.size()> common_indexes() {
    std::array<std::size_t, kCommon.size()> indexes{};
    for (std::size_t i = 0; i < kCommon.size(); ++i) {
        const std::optional<std::size_t> index = core::reported_counter(kCommon[i]);
        if (!index) throw core::Error(core::sqlstate::kInternalError, "unreported common counter");
        indexes[i] = *index;
    }
    return indexes;
}
constexpr std::array<std::size_t, kCommon.size()> kCommonIndex = common_indexes();

// metric_get(queue, metric) -> (current_value, last_update, does_exists)
Datum metric_get_one(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string metric = arg_metric(fcinfo, 1);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kRead);
    require_queue(queue);
    const Counter c = counter_read(queue, metric);
    leave_queue(scope);
    spi_finish();
    Datum values[3] = {Int32GetDatum(counter_int(queue, metric, c.value)),
                       TimestampTzGetDatum(c.last_update), BoolGetDatum(c.exists)};
    bool nulls[3] = {false, !c.exists, false};
    return make_record(fcinfo, values, nulls);
}

// metric_get(queue) -> TABLE(metric, current_value, last_update), by metric.
Datum metric_get_queue(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    begin_rows(fcinfo);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kRead);
    require_queue(queue);
    SPIPlanPtr plan =
        cached_plan("", "metric_get_queue", [] { return queue_counters_sql() + " ORDER BY 1"; },
                    {TEXTOID, TEXTARRAYOID, INT8ARRAYOID});
    Datum values[3] = {to_text(queue), 0, 0};
    pending_arrays(queue, &values[1], &values[2]);
    const uint64_t n = spi_execute(plan, values, nullptr, false);
    for (uint64_t row = 0; row < n; ++row) add_spi_row(fcinfo, row);
    leave_queue(scope);
    spi_finish();
    return (Datum)0;
}

// metric_get_total(metric) -> (current_value, does_exists), over all queues.
Datum metric_get_total(FunctionCallInfo fcinfo) {
    std::string metric = arg_metric(fcinfo, 0);
    spi_connect();
    SPIPlanPtr plan = cached_plan(
        "", "metric_get_total",
        [] {
            return std::string(
                "SELECT sum(value)::int8, count(*) FROM fetchq.metrics WHERE metric = $1");
        },
        {TEXTOID});
    Datum arg = to_text(metric);
    spi_execute(plan, &arg, nullptr, false);
    int64_t total = spi_int(0, 1);
    bool exists = spi_int(0, 2) > 0;
    spi_finish();
    for (const core::MetricDelta& d : metric_pending_all()) {
        if (d.metric != metric) continue;
        total += d.delta;
        exists = true;
    }
    Datum values[2] = {Int32GetDatum(counter_int("", metric, total)), BoolGetDatum(exists)};
    bool nulls[2] = {false, false};
    return make_record(fcinfo, values, nulls);
}

// The INTEGER columns of one row, kCommon's counters (exp last). A counter
// never written reads 0, as the other readers of counters say.
void common_datums(const QueueCounters& r, Datum* values, bool* nulls) {
    for (std::size_t i = 0; i < kCommon.size(); ++i) {
        nulls[i] = false;
        values[i] = Int32GetDatum(counter_int(r.queue, kCommon[i], r.values[kCommonIndex[i]]));
    }
}

// metric_get_common(queue) -> (cnt, pnd, pln, act, cpl, kll, ent, drp, pkd,
// prc, res, rej, orp, err, exp)
Datum metric_get_common(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kRead);
    std::vector<QueueCounters> rows = reported_counters(queue, false);
    leave_queue(scope);
    spi_finish();
    if (rows.empty()) throw_queue_missing(queue);
    Datum values[kCommon.size()];
    bool nulls[kCommon.size()];
    common_datums(rows[0], values, nulls);
    return make_record(fcinfo, values, nulls);
}

// metric_get_all() -> TABLE(queue, <the common counters>): every queue the
// caller may read (queue_listed).
Datum metric_get_all(FunctionCallInfo fcinfo) {
    begin_rows(fcinfo);
    spi_connect();
    std::vector<QueueCounters> all, rows;
    as_catalog_owner([&] { all = reported_counters(std::nullopt, false); });
    for (QueueCounters& r : all)
        if (queue_listed(r.queue)) rows.push_back(std::move(r));
    spi_finish();
    for (const QueueCounters& r : rows) {
        Datum values[kCommon.size() + 1];
        bool nulls[kCommon.size() + 1];
        values[0] = to_text(r.queue);
        nulls[0] = false;
        common_datums(r, values + 1, nulls + 1);
        add_row(fcinfo, values, nulls);
    }
    return (Datum)0;
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_metric_get, fetchq::sql_api::metric_get_one)
FETCHQ_SQL_FUNCTION(fetchq_metric_get_queue, fetchq::sql_api::metric_get_queue)
FETCHQ_SQL_FUNCTION(fetchq_metric_get_total, fetchq::sql_api::metric_get_total)
FETCHQ_SQL_FUNCTION(fetchq_metric_get_common, fetchq::sql_api::metric_get_common)
FETCHQ_SQL_FUNCTION(fetchq_metric_get_all, fetchq::sql_api::metric_get_all)
