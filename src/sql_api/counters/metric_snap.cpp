// metric_snap: copies the current value of a queue's counters (all of them,
// one, or those named in a JSON array) into its history table
// fetchq_data.<queue>__metrics.
#include "core/error.hpp"
#include "core/queue_name.hpp"
#include "pg/args.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/counters/counters.hpp"
#include "ops/maintenance/metric_snapshot.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

Datum snap_result(FunctionCallInfo fcinfo, uint64_t inserts) {
    Datum values[2] = {BoolGetDatum(true), Int32GetDatum(static_cast<int32_t>(inserts))};
    bool nulls[2] = {false, false};
    return make_record(fcinfo, values, nulls);
}

// A whitelist is a JSON array of metric names.
void check_whitelist(Datum whitelist) {
    SPIPlanPtr plan = cached_plan(
        "", "metric_whitelist_check",
        [] {
            return std::string(
                "SELECT jsonb_typeof($1) = 'array' AND NOT EXISTS (SELECT 1 FROM "
                "jsonb_array_elements($1) AS e(v) WHERE jsonb_typeof(e.v) <> 'string')");
        },
        {JSONBOID});
    spi_execute(plan, &whitelist, nullptr, false);
    bool isnull = false;
    if (!DatumGetBool(spi_value(0, 1, &isnull)))
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument whitelist must be a JSON array of metric names", {},
                          "Pass for example '[\"cnt\", \"pnd\"]'::jsonb.");
}

// metric_snap(queue) -> (success, inserts)
Datum metric_snap_all(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue(queue);
    uint64_t n = 0;
    as_queue_owner(
        queue, [&] { n = snapshot_counters(queue, nullptr); }, ACL_INSERT,
        core::metrics_table(queue));
    leave_queue(scope);
    spi_finish();
    return snap_result(fcinfo, n);
}

// metric_snap(queue, whitelist jsonb) -> (success, inserts)
Datum metric_snap_some(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    bool isnull = false;
    Datum whitelist = arg_datum(fcinfo, 1, &isnull);
    if (isnull) throw_null_argument("whitelist");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue(queue);
    check_whitelist(whitelist);
    uint64_t n = 0;
    as_queue_owner(
        queue, [&] { n = snapshot_counters(queue, &whitelist); }, ACL_INSERT,
        core::metrics_table(queue));
    leave_queue(scope);
    spi_finish();
    return snap_result(fcinfo, n);
}

// metric_snap(queue, metric) -> (success, inserts): one row, 0 when the
// counter does not exist.
Datum metric_snap_one(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string metric = arg_metric(fcinfo, 1);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue(queue);
    const Counter c = counter_read(queue, metric);
    SPIPlanPtr plan = queue_plan(
        queue, "metric_snap_one",
        [&] { return "INSERT INTO " + metrics_rel(queue) + " (metric, value) VALUES ($1, $2)"; },
        {TEXTOID, INT8OID});
    Datum values[2] = {to_text(metric), Int64GetDatum(c.value)};
    uint64_t n = 0;
    as_queue_owner(
        queue, [&] { n = queue_execute(queue, plan, values, nullptr); }, ACL_INSERT,
        core::metrics_table(queue));
    leave_queue(scope);
    spi_finish();
    return snap_result(fcinfo, n);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_metric_snap, fetchq::sql_api::metric_snap_all)
FETCHQ_SQL_FUNCTION(fetchq_metric_snap_metric, fetchq::sql_api::metric_snap_one)
FETCHQ_SQL_FUNCTION(fetchq_metric_snap_whitelist, fetchq::sql_api::metric_snap_some)
