// Counting a queue's documents by status (metric_compute*) and resetting
// its counters to those counts (metric_reset*). Slow on big queues: they
// read every document.
#include <vector>

#include "pg/args.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/counters/counters.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"
#include "ops/queues/queue_stats.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

struct Computed {
    int32_t cnt, pln, pnd, act, kll, cpl;
};

// Fetchq 4 returns the counts as integer: a count past its range is an
// error, not a wrapped number.
int32_t int4_count(int64_t n) {
    if (n > INT32_MAX)
        throw core::Error(core::sqlstate::kNumericValueOutOfRange, "integer out of range");
    return static_cast<int32_t>(n);
}

// In a snapshot of its own: reset() counts the commits its lock waited for.
Computed compute(const std::string& queue) {
    const DocCounts d = count_documents(queue, false);
    return {int4_count(d.total),  int4_count(d.planned), int4_count(d.pending),
            int4_count(d.active), int4_count(d.killed),  int4_count(d.completed)};
}

// Drops every counter and log entry of the queue, then sets the status
// counters to the counts. The docs table is locked in SHARE mode first: it
// waits for the transactions that are changing documents (their counter
// changes are written when they commit) and holds new ones back until this
// transaction ends, so the counts and the counters agree exactly. This
// transaction's own document changes are in the counts already, so its
// pending counter changes of the queue are dropped.
Computed reset(const std::string& queue) {
    spi_execute_text("LOCK TABLE " + docs_rel(queue) + " IN SHARE MODE");
    // Counter rows are locked in the order commits lock them (see metrics.cpp):
    // the standard counters' rows, then the others.
    SPIPlanPtr standard = cached_plan(
        "", "metric_reset_counters",
        [] {
            return std::string(
                "DELETE FROM fetchq.counters WHERE ctid = ANY (ARRAY("
                "SELECT ctid FROM fetchq.counters WHERE queue = $1 ORDER BY slot FOR UPDATE))");
        },
        {TEXTOID});
    SPIPlanPtr plan =
        cached_plan("", "metric_reset_delete",
                    [] {
                        return std::string(
                            "WITH m AS (DELETE FROM fetchq.custom_counters WHERE id = ANY (ARRAY("
                            "SELECT id FROM fetchq.custom_counters WHERE queue = $1 "
                            "ORDER BY metric COLLATE \"C\", slot FOR UPDATE))) "
                            "DELETE FROM fetchq.metrics_writes WHERE queue = $1");
                    },
                    {TEXTOID});
    // The queue's catalog row, which a fold of its deferred counters locks
    // too (ops/counters/counters.hpp counters_fold): none runs until this
    // transaction ends, and the one that ran before has ended.
    counters_lock_queue_row(queue);
    Datum name = to_text(queue);
    as_catalog_owner([&] {
        spi_execute(standard, &name, nullptr, false);
        spi_execute(plan, &name, nullptr, false);
    });
    metric_forget_queue(queue);
    // What shared memory holds of the queue (deferred counters) is in the
    // counts, or was dropped with the rows: cancelled when this commits
    // (counter_set below cancels its own counter again after forgetting
    // this transaction's change of it).
    counters_cancel_unfolded(queue);
    const Computed c = compute(queue);
    counter_set(queue, "cnt", c.cnt);
    counter_set(queue, "pln", c.pln);
    counter_set(queue, "pnd", c.pnd);
    counter_set(queue, "act", c.act);
    counter_set(queue, "cpl", c.cpl);
    counter_set(queue, "kll", c.kll);
    return c;
}

std::vector<std::string> all_queues() {
    SPIPlanPtr plan = cached_plan(
        "", "metric_queue_names",
        [] { return std::string("SELECT name FROM fetchq.queues ORDER BY name COLLATE \"C\""); },
        {});
    const uint64_t n = spi_execute(plan, nullptr, nullptr, false);
    std::vector<std::string> names;
    names.reserve(n);
    for (uint64_t row = 0; row < n; ++row) names.emplace_back(spi_text(row, 1));
    return names;
}

// (cnt, pln, pnd, act, kll, cpl): metric_compute's order.
Datum compute_record(FunctionCallInfo fcinfo, const Computed& c) {
    Datum values[6] = {Int32GetDatum(c.cnt), Int32GetDatum(c.pln), Int32GetDatum(c.pnd),
                       Int32GetDatum(c.act), Int32GetDatum(c.kll), Int32GetDatum(c.cpl)};
    bool nulls[6] = {};
    return make_record(fcinfo, values, nulls);
}

// (cnt, pln, pnd, act, cpl, kll): metric_reset's and the *_all rows' order.
void reset_order(const Computed& c, Datum* values) {
    values[0] = Int32GetDatum(c.cnt);
    values[1] = Int32GetDatum(c.pln);
    values[2] = Int32GetDatum(c.pnd);
    values[3] = Int32GetDatum(c.act);
    values[4] = Int32GetDatum(c.cpl);
    values[5] = Int32GetDatum(c.kll);
}

// metric_compute(queue) -> (cnt, pln, pnd, act, kll, cpl)
Datum metric_compute(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kRead);
    require_queue(queue);
    Computed c;
    as_queue_owner(
        queue, [&] { c = compute(queue); }, ACL_SELECT);
    leave_queue(scope);
    spi_finish();
    return compute_record(fcinfo, c);
}

// metric_reset(queue) -> (cnt, pln, pnd, act, cpl, kll)
Datum metric_reset(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue(queue);
    Computed c;
    as_queue_owner(
        queue, [&] { c = reset(queue); }, ACL_UPDATE);
    leave_queue(scope);
    spi_finish();
    Datum values[6];
    bool nulls[6] = {};
    reset_order(c, values);
    return make_record(fcinfo, values, nulls);
}

// metric_compute_all() / metric_reset_all() -> TABLE(queue, cnt, pln, pnd,
// act, cpl, kll), one row per queue.
Datum for_all_queues(FunctionCallInfo fcinfo, Computed (*each)(const std::string&)) {
    begin_rows(fcinfo);
    spi_connect();
    for (const std::string& queue : all_queues()) {
        Computed c;
        const bool resets = each == reset;
        const QueuePrivilege needed = resets ? QueuePrivilege::kManage : QueuePrivilege::kRead;
        // A queue with grants of its own that the caller may not use is
        // left out; the others' tables decide, as before.
        if (queue_has_grants(queue) &&
            !queue_privilege_held(queue, needed, pg_call([] { return GetUserId(); })))
            continue;
        with_queue_privilege(queue, needed, [&] {
            as_queue_owner(
                queue, [&] { c = each(queue); }, resets ? ACL_UPDATE : ACL_SELECT);
        });
        Datum values[7];
        bool nulls[7] = {};
        values[0] = to_text(queue);
        reset_order(c, values + 1);
        add_row(fcinfo, values, nulls);
    }
    spi_finish();
    return (Datum)0;
}

Datum metric_compute_all(FunctionCallInfo fcinfo) { return for_all_queues(fcinfo, compute); }
Datum metric_reset_all(FunctionCallInfo fcinfo) { return for_all_queues(fcinfo, reset); }

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_metric_compute, fetchq::sql_api::metric_compute)
FETCHQ_SQL_FUNCTION(fetchq_metric_compute_all, fetchq::sql_api::metric_compute_all)
FETCHQ_SQL_FUNCTION(fetchq_metric_reset, fetchq::sql_api::metric_reset)
FETCHQ_SQL_FUNCTION(fetchq_metric_reset_all, fetchq::sql_api::metric_reset_all)
