// metric_set and metric_increment: direct writes to one counter. An
// increment joins the transaction's other counter changes (written at
// commit, into this backend's stripe); a set rewrites the counter at once.
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

Datum value_result(FunctionCallInfo fcinfo, int32_t current, bool created) {
    Datum values[2] = {Int32GetDatum(current), BoolGetDatum(created)};
    bool nulls[2] = {false, false};
    return make_record(fcinfo, values, nulls);
}

// metric_set(queue, metric, value) -> (current_value, was_created)
Datum metric_set(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string metric = arg_metric(fcinfo, 1);
    const int32_t value = arg_int(fcinfo, 2, "value");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue(queue);
    require_counter_writer(queue);
    const bool created = counter_set(queue, metric, value);
    leave_queue(scope);
    spi_finish();
    return value_result(fcinfo, value, created);
}

// metric_increment(queue, metric, value) -> (current_value, was_created)
Datum metric_increment(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string metric = arg_metric(fcinfo, 1);
    const int32_t value = arg_int(fcinfo, 2, "value");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue(queue);
    require_counter_writer(queue);
    const Counter before = counter_read(queue, metric);
    const int32_t current = counter_int(queue, metric, before.value + value);
    // A zero change is never written, yet Fetchq creates the counter.
    if (!before.exists && value == 0) counter_set(queue, metric, 0);
    leave_queue(scope);
    spi_finish();
    metric_add(queue, metric, value);
    return value_result(fcinfo, current, !before.exists);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_metric_set, fetchq::sql_api::metric_set)
FETCHQ_SQL_FUNCTION(fetchq_metric_increment, fetchq::sql_api::metric_increment)
