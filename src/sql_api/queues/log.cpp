// A queue's error log: log_error writes to fetchq_data.<queue>__logs, and
// trace follows one subject through every queue (its document and its log
// rows), numbered in that order.
#include <string>
#include <vector>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "core/queue_name.hpp"
#include "pg/args.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_log.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

// log_error(queue, subject, message, details [, ref_id]) -> true
Datum log_error(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    std::string message = arg_text(fcinfo, 2, "message");
    check_log_entry(subject, message);
    bool details_null = true;
    Datum details = arg_fetchq4_json(fcinfo, 3, &details_null);
    std::optional<std::string> ref_id = PG_NARGS() > 4 ? arg_text_or_null(fcinfo, 4) : std::nullopt;
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kPick);
    const uint64_t n = insert_log(queue, subject, message, details, details_null, ref_id);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_BOOL(n == 1);
}

// One row of trace() before it gets its step number; the varlena values
// live in the function's memory context, out of SPI's.
struct TraceRow {
    std::size_t queue;  // index into the queue list
    Datum created_at;
    Datum info;
    Datum details;
    bool created_at_null, info_null, details_null;
    bool document;
};

std::vector<std::string> queue_names() {
    SPIPlanPtr plan =
        cached_plan("", "trace_queues",
                    [] { return std::string("SELECT name FROM fetchq.queues ORDER BY id"); }, {});
    const uint64_t n = spi_execute(plan, nullptr, nullptr, true);
    std::vector<std::string> names;
    names.reserve(n);
    for (uint64_t row = 0; row < n; ++row) names.emplace_back(spi_text(row, 1));
    return names;
}

// Result columns: is_document, created_at, info, details.
SPIPlanPtr trace_plan(const std::string& queue) {
    return queue_plan(
        queue, "trace",
        [&] {
            return "SELECT true, d.created_at, concat('status: ', d.status, '; attempts: ',"
                   " d.attempts, '; iterations: ', d.iterations), row_to_json(d)::jsonb, 0"
                   " FROM " +
                   docs_rel(queue) +
                   " AS d WHERE d.subject = $1"
                   " UNION ALL "
                   "SELECT false, l.created_at, l.message::text, row_to_json(l)::jsonb, l.id"
                   " FROM " +
                   logs_rel(queue) +
                   " AS l WHERE l.subject = $1"
                   " ORDER BY 1 DESC, 5";
        },
        {TEXTOID});
}

Datum transfer(Datum value, bool isnull) {
    return isnull ? value : pg_call([&] { return SPI_datumTransfer(value, false, -1); });
}

void collect_trace(const std::string& queue, std::size_t index, const std::string& subject,
                   std::vector<TraceRow>& rows) {
    Datum arg = to_text(subject);
    const uint64_t n = queue_execute(queue, trace_plan(queue), &arg, nullptr, true);
    for (uint64_t r = 0; r < n; ++r) {
        TraceRow row{};
        row.queue = index;
        bool isnull = false;
        row.document = DatumGetBool(spi_value(r, 1, &isnull));
        row.created_at = spi_value(r, 2, &row.created_at_null);
        row.info = transfer(spi_value(r, 3, &row.info_null), row.info_null);
        row.details = transfer(spi_value(r, 4, &row.details_null), row.details_null);
        rows.push_back(row);
    }
}

bool descending(const std::string& order) {
    std::string upper;
    for (char c : order) upper.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c);
    if (upper == "ASC") return false;
    if (upper == "DESC") return true;
    throw core::Error(core::sqlstate::kInvalidParameterValue,
                      "argument order must be 'ASC' or 'DESC'",
                      "The value was " + core::echo(order) + ".", "Pass 'ASC' or 'DESC'.");
}

// trace(subject [, order]): step, created_at, queue, type, info, details
Datum trace(FunctionCallInfo fcinfo) {
    std::string subject = arg_text(fcinfo, 0, "subject");
    const bool desc = PG_NARGS() > 1 && descending(arg_text(fcinfo, 1, "order"));
    begin_rows(fcinfo);
    spi_connect();
    std::vector<std::string> queues;
    as_catalog_owner([&] { queues = queue_names(); });
    std::vector<TraceRow> rows;
    // Each queue read as its owner (a superuser's trace never runs an owner's
    // code, such as a view put in place of a queue table, with its rights),
    // and only the queues the caller may read (documents and logs).
    for (std::size_t i = 0; i < queues.size(); ++i)
        if (queue_listed(queues[i], true))
            as_user(queue_owner_or_invalid(queues[i]),
                    [&] { collect_trace(queues[i], i, subject, rows); });
    spi_finish();
    const Datum document = to_text("document"), error = to_text("error");
    std::vector<Datum> names;
    names.reserve(queues.size());
    for (const std::string& q : queues) names.push_back(to_text(q));
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const std::size_t i = desc ? rows.size() - 1 - k : k;
        const TraceRow& row = rows[i];
        Datum values[6] = {Int32GetDatum(static_cast<int32_t>(i + 1)),
                           row.created_at,
                           names[row.queue],
                           row.document ? document : error,
                           row.info,
                           row.details};
        bool nulls[6] = {false, row.created_at_null, false, false, row.info_null, row.details_null};
        add_row(fcinfo, values, nulls);
    }
    return (Datum)0;
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_log_error, fetchq::sql_api::log_error)
FETCHQ_SQL_FUNCTION(fetchq_trace, fetchq::sql_api::trace)
