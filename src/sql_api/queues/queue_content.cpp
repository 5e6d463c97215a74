// Looking at and emptying queues: queue_top, queue_status, queue_truncate,
// queue_truncate_all.
#include <string>
#include <vector>

#include "pg/args.hpp"
#include "ops/documents/doc_dependencies.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/counters/counters.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/remote_routes/remote_routes.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

// queue_top(queue, version, limit, offset): a page of the documents of one
// version, in pick order (subject breaks ties, so pages do not overlap).
Datum queue_top(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    const int32_t version = arg_int(fcinfo, 1, "version");
    const int32_t limit = arg_limit(fcinfo, 2, "limit");
    const int32_t offset = arg_limit(fcinfo, 3, "offset");
    begin_rows(fcinfo);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kRead);
    require_queue(queue);
    SPIPlanPtr plan =
        queue_plan(queue, "top",
                   [&] {
                       return "SELECT subject, payload, version, priority, attempts, iterations,"
                              " created_at, last_iteration, next_iteration, lock_upgrade FROM " +
                              docs_rel(queue) +
                              " WHERE version = $1 ORDER BY priority DESC, next_iteration, subject"
                              " LIMIT $2 OFFSET $3";
                   },
                   {INT4OID, INT4OID, INT4OID});
    Datum values[3] = {Int32GetDatum(version), Int32GetDatum(limit), Int32GetDatum(offset)};
    uint64_t n = 0;
    as_queue_owner(
        queue, [&] { n = queue_execute(queue, plan, values, nullptr, true); }, ACL_SELECT);
    for (uint64_t row = 0; row < n; ++row) add_spi_row(fcinfo, row);
    leave_queue(scope);
    spi_finish();
    return (Datum)0;
}

// queue_status(queue): id, name, is_active of the queue.
Datum queue_status_one(FunctionCallInfo fcinfo, const std::string& queue) {
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kRead);
    SPIPlanPtr plan = cached_plan(
        "", "queue_status_one",
        [] { return std::string("SELECT id, name, is_active FROM fetchq.queues WHERE name = $1"); },
        {TEXTOID});
    Datum name = to_text(queue);
    const uint64_t n = spi_execute(plan, &name, nullptr, true);
    if (n == 0) throw_queue_missing(queue);
    add_spi_row(fcinfo, 0);
    leave_queue(scope);
    spi_finish();
    return (Datum)0;
}

// queue_status(): the same for every queue the caller may read (queue_listed).
Datum queue_status_all(FunctionCallInfo fcinfo) {
    struct Row {
        int64_t id;
        std::string name;
        bool active;
    };
    spi_connect();
    SPIPlanPtr plan = cached_plan(
        "", "queue_status_all",
        [] { return std::string("SELECT id, name, is_active FROM fetchq.queues ORDER BY id"); },
        {});
    std::vector<Row> rows;
    as_catalog_owner([&] {
        const uint64_t n = spi_execute(plan, nullptr, nullptr, true);
        for (uint64_t row = 0; row < n; ++row) {
            bool isnull = false;
            rows.push_back(
                {spi_int(row, 1), spi_text(row, 2), DatumGetBool(spi_value(row, 3, &isnull))});
        }
    });
    for (const Row& r : rows) {
        if (!queue_listed(r.name)) continue;
        Datum values[3] = {Int32GetDatum(static_cast<int32_t>(r.id)), to_text(r.name),
                           BoolGetDatum(r.active)};
        bool nulls[3] = {false, false, false};
        add_row(fcinfo, values, nulls);
    }
    spi_finish();
    return (Datum)0;
}

Datum queue_status(FunctionCallInfo fcinfo) {
    begin_rows(fcinfo);
    return PG_NARGS() > 0 ? queue_status_one(fcinfo, arg_queue(fcinfo, 0))
                          : queue_status_all(fcinfo);
}

// Empties one queue's documents (and with `empty` its logs and metrics and
// the run history of its maintenance jobs), then recounts its counters from
// scratch. Runs inside an SPI connection.
void truncate_queue(const std::string& queue, bool empty) {
    require_queue(queue);
    if (empty) {
        spi_execute_text("TRUNCATE " + docs_rel(queue) + ", " + logs_rel(queue) + ", " +
                         metrics_rel(queue) + " RESTART IDENTITY");
        SPIPlanPtr jobs =
            cached_plan("", "queue_truncate_jobs",
                        [] {
                            return std::string(
                                "UPDATE fetchq.jobs SET attempts = 0, iterations = 0, "
                                "next_iteration = now(), last_iteration = NULL WHERE queue = $1");
                        },
                        {TEXTOID});
        Datum name = to_text(queue);
        as_catalog_owner([&] { spi_execute(jobs, &name, nullptr, false); });
    } else {
        spi_execute_text("TRUNCATE " + docs_rel(queue));
    }
    // Changes counted earlier in this transaction describe documents that are
    // gone: drop them before metric_reset recounts.
    metric_forget_queue(queue);
    SPIPlanPtr reset =
        cached_plan("", "queue_truncate_metric_reset",
                    [] { return std::string("SELECT * FROM fetchq.metric_reset($1)"); }, {TEXTOID});
    Datum name = to_text(queue);
    spi_execute(reset, &name, nullptr, false);
}

// queue_truncate(queue [, empty])
Datum queue_truncate(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    const bool empty = PG_NARGS() > 1 ? arg_bool(fcinfo, 1, "empty") : false;
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    forget_queue_documents(queue, "truncated with its queue");
    forget_queue_origins(queue);
    pg::as_user(queue_owner_or_invalid(queue), [&] { truncate_queue(queue, empty); });
    leave_queue(scope);
    spi_finish();
    PG_RETURN_BOOL(true);
}

// queue_truncate_all([empty]): queue_truncate on every queue; with `empty`
// the counters of every queue, even unregistered ones, are cleared first.
Datum queue_truncate_all(FunctionCallInfo fcinfo) {
    const bool empty = PG_NARGS() > 0 ? arg_bool(fcinfo, 0, "empty") : false;
    spi_connect();
    const std::vector<std::string> queues = all_queue_names();
    // All or nothing: only a role that owns every queue empties them all.
    for (const std::string& queue : queues) require_queue_owner(queue);
    if (empty)
        as_catalog_owner([] {
            spi_execute_text(
                "TRUNCATE fetchq.counters, fetchq.custom_counters, fetchq.metrics_writes RESTART "
                "IDENTITY");
        });
    for (const std::string& queue : queues) {
        forget_queue_documents(queue, "truncated with its queue");
        forget_queue_origins(queue);
    }
    for (const std::string& queue : queues)
        pg::as_user(queue_owner_or_invalid(queue), [&] { truncate_queue(queue, empty); });
    spi_finish();
    PG_RETURN_BOOL(true);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_queue_top, fetchq::sql_api::queue_top)
FETCHQ_SQL_FUNCTION(fetchq_queue_status, fetchq::sql_api::queue_status)
FETCHQ_SQL_FUNCTION(fetchq_queue_truncate, fetchq::sql_api::queue_truncate)
FETCHQ_SQL_FUNCTION(fetchq_queue_truncate_all, fetchq::sql_api::queue_truncate_all)
