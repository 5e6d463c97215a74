// Flow limits of a queue (ops/flow/flow_limits.hpp): queue_set_limits,
// queue_set_key_limits, queue_drop_key_limits. Set by a role with manage on
// the queue, written as the catalog's owner.
#include <optional>
#include <string>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "ops/flow/flow_limits.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

extern "C" {
#include "utils/builtins.h"
#include "utils/timestamp.h"
}

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

// A limit: NULL (none) or at least 1.
std::optional<int32_t> arg_limit_value(FunctionCallInfo fcinfo, int i, const char* name) {
    if (PG_NARGS() <= i || arg_is_null(fcinfo, i)) return std::nullopt;
    const int32_t value = arg_int(fcinfo, i, name);
    if (value < 1)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          std::string("argument ") + name + " must be at least 1",
                          "The value was " + std::to_string(value) + "; nothing was changed.",
                          "Pass NULL for no limit.");
    return value;
}

std::string arg_key(FunctionCallInfo fcinfo, int i) {
    std::string key = arg_text(fcinfo, i, "flow_key");
    if (key.empty())
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument flow_key must not be empty", {}, "Name the key doc_send gave.");
    return key;
}

Oid caller() {
    return pg_call([] { return GetUserId(); });
}

// A change of rates starts the buckets afresh: a key's next pick was due by
// the old rate (of one key, or of every key of the queue when `key` is null).
void reset_rates(const std::string& queue, const std::string* key) {
    SPIPlanPtr plan =
        cached_plan("", key ? "flow_key_rates_reset_key" : "flow_key_rates_reset",
                    [key] {
                        return std::string("DELETE FROM fetchq.flow_key_rates WHERE queue = $1") +
                               (key ? " AND flow_key = $2" : "");
                    },
                    {TEXTOID, TEXTOID});
    Datum args[2] = {to_text(queue), key ? to_text(*key) : (Datum)0};
    const char nulls[2] = {' ', key ? ' ' : 'n'};
    as_catalog_owner([&] { spi_execute(plan, args, nulls, false); });
}

Datum opt_int(const std::optional<int32_t>& v) { return v ? Int32GetDatum(*v) : (Datum)0; }
char opt_null(const std::optional<int32_t>& v) { return v ? ' ' : 'n'; }

// queue_set_limits(queue, max_active, key_max_active, key_rate,
// key_rate_interval, key_burst, fair) -> affected_rows: every call sets all
// of them; all NULL (fair false) removes the queue's limits.
Datum queue_set_limits(FunctionCallInfo fcinfo) {
    const std::string queue = arg_queue(fcinfo, 0);
    const std::optional<int32_t> max_active = arg_limit_value(fcinfo, 1, "max_active");
    const std::optional<int32_t> key_max_active = arg_limit_value(fcinfo, 2, "key_max_active");
    const std::optional<int32_t> key_rate = arg_limit_value(fcinfo, 3, "key_rate");
    if (arg_is_null(fcinfo, 4)) throw_null_argument("key_rate_interval");
    Interval* interval = pg_call([&] { return PG_GETARG_INTERVAL_P(4); });
    Interval millisecond{};
    millisecond.time = 1000;
    const bool too_short = pg_call([&] {
        return DatumGetBool(DirectFunctionCall2(interval_lt, IntervalPGetDatum(interval),
                                                IntervalPGetDatum(&millisecond)));
    });
    if (too_short)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument key_rate_interval must be at least 1 millisecond",
                          "Nothing was changed.", "Pass an interval such as '1 second'.");
    const std::optional<int32_t> key_burst = arg_limit_value(fcinfo, 5, "key_burst");
    const bool fair = arg_bool(fcinfo, 6, "fair");
    if (key_burst && !key_rate)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument key_burst needs key_rate", "Nothing was changed.",
                          "A burst is how many picks of a key may come early against its rate.");
    const Oid setter = caller();
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    uint64_t n = 0;
    if (!max_active && !key_max_active && !key_rate && !fair) {
        SPIPlanPtr plan = cached_plan(
            "", "flow_limits_drop",
            [] { return std::string("DELETE FROM fetchq.flow_limits WHERE queue = $1"); },
            {TEXTOID});
        Datum name = to_text(queue);
        as_catalog_owner([&] { n = spi_execute(plan, &name, nullptr, false); });
    } else {
        SPIPlanPtr plan = cached_plan(
            "", "flow_limits_set",
            [] {
                return std::string(
                    "INSERT INTO fetchq.flow_limits (queue, max_active, key_max_active,"
                    " key_rate_interval, set_by, key_rate, key_burst, fair)"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                    " ON CONFLICT (queue) DO UPDATE SET max_active = EXCLUDED.max_active,"
                    " key_max_active = EXCLUDED.key_max_active,"
                    " key_rate_interval = EXCLUDED.key_rate_interval,"
                    " key_rate = EXCLUDED.key_rate, key_burst = EXCLUDED.key_burst,"
                    " fair = EXCLUDED.fair, set_by = EXCLUDED.set_by, set_at = pg_catalog.now()");
            },
            {TEXTOID, INT4OID, INT4OID, INTERVALOID, REGROLEOID, INT4OID, INT4OID, BOOLOID});
        Datum values[8] = {to_text(queue),           opt_int(max_active),
                           opt_int(key_max_active),  IntervalPGetDatum(interval),
                           ObjectIdGetDatum(setter), opt_int(key_rate),
                           opt_int(key_burst),       BoolGetDatum(fair)};
        const char nulls[8] = {' ', opt_null(max_active), opt_null(key_max_active), ' ',
                               ' ', opt_null(key_rate),   opt_null(key_burst),      ' '};
        as_catalog_owner([&] { n = spi_execute(plan, values, nulls, false); });
        create_flow_indexes(queue);
    }
    reset_rates(queue, nullptr);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// queue_set_key_limits(queue, flow_key, key_max_active, key_rate) ->
// affected_rows: the key's own values; NULL takes the queue's.
Datum queue_set_key_limits(FunctionCallInfo fcinfo) {
    const std::string queue = arg_queue(fcinfo, 0);
    const std::string key = arg_key(fcinfo, 1);
    const std::optional<int32_t> key_max_active = arg_limit_value(fcinfo, 2, "key_max_active");
    const std::optional<int32_t> key_rate = arg_limit_value(fcinfo, 3, "key_rate");
    const Oid setter = caller();
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    SPIPlanPtr plan = cached_plan(
        "", "flow_key_limits_set",
        [] {
            return std::string(
                "INSERT INTO fetchq.flow_key_limits (queue, flow_key, key_max_active, set_by,"
                " key_rate) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (queue, flow_key) DO UPDATE"
                " SET key_max_active = EXCLUDED.key_max_active, key_rate = EXCLUDED.key_rate,"
                " set_by = EXCLUDED.set_by, set_at = pg_catalog.now()");
        },
        {TEXTOID, TEXTOID, INT4OID, REGROLEOID, INT4OID});
    Datum values[5] = {to_text(queue), to_text(key), opt_int(key_max_active),
                       ObjectIdGetDatum(setter), opt_int(key_rate)};
    const char nulls[5] = {' ', ' ', opt_null(key_max_active), ' ', opt_null(key_rate)};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nulls, false); });
    create_flow_indexes(queue);
    reset_rates(queue, &key);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// queue_drop_key_limits(queue, flow_key) -> affected_rows (0: there were none).
Datum queue_drop_key_limits(FunctionCallInfo fcinfo) {
    const std::string queue = arg_queue(fcinfo, 0);
    const std::string key = arg_key(fcinfo, 1);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    SPIPlanPtr plan = cached_plan(
        "", "flow_key_limits_drop",
        [] {
            return std::string(
                "DELETE FROM fetchq.flow_key_limits WHERE queue = $1 AND flow_key = $2");
        },
        {TEXTOID, TEXTOID});
    Datum values[2] = {to_text(queue), to_text(key)};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, false); });
    reset_rates(queue, &key);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// queue_held_back(queue) -> the ready documents a limit keeps back now (0
// for a queue without limits); read on the queue, counted as its owner.
Datum queue_held_back(FunctionCallInfo fcinfo) {
    const std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kRead, [&] {
        if (!flow_limits(queue)) return;
        as_queue_owner(
            queue, [&] { n = held_back(queue); }, ACL_SELECT);
    });
    spi_finish();
    PG_RETURN_INT64(n);
}

// flow_keys_list() -> per queue with limits that the caller may read
// (queue_listed), per key with pending or active documents or a rate's
// state: (queue, flow_key, active, ready, held_back, tokens). Behind the
// view fetchq.flow_keys.
Datum flow_keys_list(FunctionCallInfo fcinfo) {
    begin_rows(fcinfo);
    spi_connect();
    for (const std::string& queue : limited_queues()) {
        if (!queue_listed(queue)) continue;
        const std::shared_ptr<const FlowLimits> limits = flow_limits(queue);
        if (!limits) continue;
        std::vector<FlowKeyRow> rows;
        as_catalog_owner([&] {
            as_queue_owner(
                queue, [&] { rows = flow_keys(queue, *limits); }, ACL_SELECT);
        });
        for (const FlowKeyRow& row : rows) {
            Datum values[6] = {to_text(queue),
                               to_text(row.key),
                               Int64GetDatum(row.active),
                               Int64GetDatum(row.ready),
                               Int64GetDatum(row.held_back),
                               Float8GetDatum(row.tokens.value_or(0))};
            bool nulls[6] = {false, false, false, false, false, !row.tokens};
            add_row(fcinfo, values, nulls);
        }
    }
    spi_finish();
    return (Datum)0;
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_queue_set_limits, fetchq::sql_api::queue_set_limits)
FETCHQ_SQL_FUNCTION(fetchq_queue_set_key_limits, fetchq::sql_api::queue_set_key_limits)
FETCHQ_SQL_FUNCTION(fetchq_queue_drop_key_limits, fetchq::sql_api::queue_drop_key_limits)
FETCHQ_SQL_FUNCTION(fetchq_queue_held_back, fetchq::sql_api::queue_held_back)
FETCHQ_SQL_FUNCTION(fetchq_flow_keys_list, fetchq::sql_api::flow_keys_list)
