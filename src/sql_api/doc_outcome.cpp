// What a consumer does with a document it picked (status 2): complete, kill,
// drop, reschedule or reject it. Documents that are not active are left
// alone and the call returns 0.
#include "core/error.hpp"
#include "pg/args.hpp"
#include "ops/counters.hpp"
#include "ops/queue_log.hpp"
#include "ops/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"
#include "ops/wake.hpp"
#include "ops/doc_status_sql.hpp"
#include "ops/doc_moves.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

// Runs `name` on the queue with (subject, payload-or-NULL); returns rows.
// `set_clause` is built only when the statement is prepared.
template <typename SetClause>
int64_t finish_active(const std::string& queue, const char* name, SetClause&& set_clause,
                      FunctionCallInfo fcinfo) {
    std::string subject = arg_text(fcinfo, 1, "subject");
    bool payload_null = true;
    Datum payload = PG_NARGS() > 2 ? arg_fetchq4_json(fcinfo, 2, &payload_null) : (Datum)0;
    SPIPlanPtr plan = queue_plan(queue, name,
                                 [&] {
                                     return "UPDATE " + docs_rel(queue) + " SET " + set_clause() +
                                            ", payload = COALESCE($2, payload), lock_session = NULL"
                                            " WHERE subject = $1 AND status = " +
                                            status_sql::active;
                                 },
                                 {TEXTOID, JSONBOID});
    Datum values[2] = {to_text(subject), payload};
    char nulls[2] = {' ', payload_null ? 'n' : ' '};
    return static_cast<int64_t>(queue_execute(queue, plan, values, nulls));
}

using core::DocMove;
using core::DocStatus;

// doc_complete(queue, subject [, payload])
Datum doc_complete(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    int64_t n = finish_active(
        queue, "complete",
        [] {
            return "status = " + status_sql::completed +
                   ", attempts = 0, iterations = iterations + 1, last_iteration = now(),"
                   " next_iteration = '2970-01-01 00:00:00+00'";
        },
        fcinfo);
    spi_finish();
    count_move(queue, DocMove::kComplete, DocStatus::kCompleted, n);
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// doc_kill(queue, subject [, payload])
Datum doc_kill(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    int64_t n = finish_active(
        queue, "kill",
        [] {
            return "status = " + status_sql::killed +
                   ", attempts = 0, iterations = iterations + 1, last_iteration = now()";
        },
        fcinfo);
    spi_finish();
    count_move(queue, DocMove::kKill, DocStatus::kKilled, n);
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// doc_complete_many(queue, subjects[]): completes the active ones.
Datum doc_complete_many(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    if (arg_is_null(fcinfo, 1)) PG_RETURN_INT32(0);
    Datum subjects = PG_GETARG_DATUM(1);
    spi_connect();
    SPIPlanPtr plan = queue_plan(
        queue, "complete_many",
        [&] {
            return "UPDATE " + docs_rel(queue) + " SET status = " + status_sql::completed +
                   ", attempts = 0, iterations = iterations + 1,"
                   " last_iteration = now(), next_iteration = '2970-01-01 00:00:00+00',"
                   " lock_session = NULL WHERE subject = ANY ($1::text[]) AND status = " +
                   status_sql::active;
        },
        {TEXTARRAYOID});
    int64_t n = static_cast<int64_t>(queue_execute(queue, plan, &subjects, nullptr));
    spi_finish();
    count_move(queue, DocMove::kComplete, DocStatus::kCompleted, n);
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// doc_drop(queue, subject): deletes an active document.
Datum doc_drop(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    spi_connect();
    SPIPlanPtr plan = queue_plan(
        queue, "drop",
        [&] {
            return "DELETE FROM " + docs_rel(queue) +
                   " WHERE subject = $1 AND status = " + status_sql::active + " RETURNING version";
        },
        {TEXTOID});
    Datum value = to_text(subject);
    int64_t n = static_cast<int64_t>(queue_execute(queue, plan, &value, nullptr));
    int64_t version = n > 0 ? spi_int(0, 1) : 0;
    spi_finish();
    count_move(queue, DocMove::kDrop, core::kDeleted, n, static_cast<int32_t>(version));
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// doc_reschedule(queue, subject, next_iteration [, payload])
Datum doc_reschedule(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    TimestampTz next_iteration = arg_timestamptz(fcinfo, 2, "next_iteration");
    bool payload_null = true;
    Datum payload = PG_NARGS() > 3 ? arg_fetchq4_json(fcinfo, 3, &payload_null) : (Datum)0;
    const bool due = next_iteration <= GetCurrentTransactionStartTimestamp();
    spi_connect();
    SPIPlanPtr plan = queue_plan(queue, "reschedule",
                                 [&] {
                                     return "UPDATE " + docs_rel(queue) +
                                            " SET status = $3, next_iteration = $2, attempts = 0,"
                                            " iterations = iterations + 1, last_iteration = now(),"
                                            " payload = COALESCE($4, payload), lock_session = NULL"
                                            " WHERE subject = $1 AND status = " +
                                            status_sql::active;
                                 },
                                 {TEXTOID, TIMESTAMPTZOID, INT4OID, JSONBOID});
    Datum values[4] = {to_text(subject), TimestampTzGetDatum(next_iteration),
                       Int32GetDatum(core::status_code(due ? core::DocStatus::kPending
                                                           : core::DocStatus::kPlanned)),
                       payload};
    char nulls[4] = {' ', ' ', ' ', payload_null ? 'n' : ' '};
    int64_t n = static_cast<int64_t>(queue_execute(queue, plan, values, nulls));
    spi_finish();
    if (n > 0 && !due) ops::note_due(next_iteration);
    count_move(queue, DocMove::kReschedule, due ? DocStatus::kPending : DocStatus::kPlanned, n);
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// doc_reject(queue, subject, message, details [, ref_id]): back to pending, or
// killed when its attempts reached the queue's max_attempts; the reason goes
// to the queue's log.
Datum doc_reject(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    std::string message = arg_text(fcinfo, 2, "message");
    bool details_null = false;
    Datum details = arg_fetchq4_json(fcinfo, 3, &details_null);
    std::optional<std::string> ref_id = PG_NARGS() > 4 ? arg_text_or_null(fcinfo, 4) : std::nullopt;
    check_log_entry(subject, message);
    spi_connect();
    SPIPlanPtr plan = queue_plan(
        queue, "reject",
        [&] {
            return "UPDATE " + docs_rel(queue) +
                   " AS d SET status = CASE WHEN d.attempts >= COALESCE("
                   "(SELECT q.max_attempts FROM fetchq.queues q WHERE q.name = $2), 5)"
                   " THEN " +
                   status_sql::killed + " ELSE " + status_sql::pending +
                   " END,"
                   " lock_upgrade = CASE WHEN d.lock_upgrade IS NULL THEN NULL ELSE now() END,"
                   " iterations = d.iterations + 1, last_iteration = now(), lock_session = NULL"
                   " WHERE d.subject = $1 AND d.status = " +
                   status_sql::active + " RETURNING d.status";
        },
        {TEXTOID, TEXTOID});
    Datum values[2] = {to_text(subject), to_text(queue)};
    int64_t n = static_cast<int64_t>(queue_execute(queue, plan, values, nullptr));
    const bool killed = n > 0 && spi_int(0, 1) == core::status_code(core::DocStatus::kKilled);
    if (n > 0) {
        insert_log(queue, subject, message, details, details_null, ref_id);
    }
    spi_finish();
    count_move(queue, DocMove::kReject, killed ? DocStatus::kKilled : DocStatus::kPending, n);
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_doc_complete, fetchq::sql_api::doc_complete)
FETCHQ_SQL_FUNCTION(fetchq_doc_kill, fetchq::sql_api::doc_kill)
FETCHQ_SQL_FUNCTION(fetchq_doc_complete_many, fetchq::sql_api::doc_complete_many)
FETCHQ_SQL_FUNCTION(fetchq_doc_drop, fetchq::sql_api::doc_drop)
FETCHQ_SQL_FUNCTION(fetchq_doc_reschedule, fetchq::sql_api::doc_reschedule)
FETCHQ_SQL_FUNCTION(fetchq_doc_reject, fetchq::sql_api::doc_reject)
