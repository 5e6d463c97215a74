// The write log of Fetchq 4: metric_log_set/increment/decrement append to
// fetchq.metrics_writes, metric_log_pack folds the log into the counters.
// Counters do not need the log (doc operations write them directly); it is
// kept for clients that use it.
#include <optional>
#include <vector>

#include "pg/args.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/counters/counters.hpp"
#include "ops/counters/metric_log.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

// Appends one entry; an increment or a reset (exactly one is set). Stamped
// with the clock, not now(), so that entries of one transaction keep their
// order and the pack finds the latest reset.
int32_t log_write(const std::string& queue, const std::string& metric,
                  std::optional<int64_t> increment, std::optional<int64_t> reset) {
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue(queue);
    require_counter_writer(queue);
    SPIPlanPtr plan = cached_plan(
        "", "metric_log_write",
        [] {
            return std::string(
                "INSERT INTO fetchq.metrics_writes (created_at, queue, metric, increment, reset) "
                "VALUES (clock_timestamp(), $1, $2, $3, $4)");
        },
        {TEXTOID, TEXTOID, INT8OID, INT8OID});
    Datum values[4] = {to_text(queue), to_text(metric), Int64GetDatum(increment.value_or(0)),
                       Int64GetDatum(reset.value_or(0))};
    char nulls[4] = {' ', ' ', increment ? ' ' : 'n', reset ? ' ' : 'n'};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nulls, false); });
    leave_queue(scope);
    spi_finish();
    return static_cast<int32_t>(n);
}

// metric_log_set(queue, metric, value) -> affected_rows
Datum metric_log_set(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string metric = arg_metric(fcinfo, 1);
    const int32_t value = arg_int(fcinfo, 2, "value");
    PG_RETURN_INT32(log_write(queue, metric, std::nullopt, value));
}

// metric_log_increment / metric_log_decrement(queue, metric, value) ->
// affected_rows; a zero change is not logged.
Datum log_change(FunctionCallInfo fcinfo, int sign) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string metric = arg_metric(fcinfo, 1);
    const int32_t value = arg_int(fcinfo, 2, "value");
    if (value == 0) {
        spi_connect();
        const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
        require_queue(queue);
        require_counter_writer(queue);
        leave_queue(scope);
        spi_finish();
        PG_RETURN_INT32(0);
    }
    PG_RETURN_INT32(log_write(queue, metric, sign * static_cast<int64_t>(value), std::nullopt));
}

Datum metric_log_increment(FunctionCallInfo fcinfo) { return log_change(fcinfo, 1); }
Datum metric_log_decrement(FunctionCallInfo fcinfo) { return log_change(fcinfo, -1); }

// metric_log_pack() -> affected_rows: the latest reset of each counter
// first, then the sum of its increments; returns the entries folded.
Datum metric_log_pack(FunctionCallInfo fcinfo) {
    spi_connect();
    const int64_t entries = pack_metric_log();
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(entries));
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_metric_log_set, fetchq::sql_api::metric_log_set)
FETCHQ_SQL_FUNCTION(fetchq_metric_log_increment, fetchq::sql_api::metric_log_increment)
FETCHQ_SQL_FUNCTION(fetchq_metric_log_decrement, fetchq::sql_api::metric_log_decrement)
FETCHQ_SQL_FUNCTION(fetchq_metric_log_pack, fetchq::sql_api::metric_log_pack)
