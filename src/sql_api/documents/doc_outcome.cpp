// What a consumer does with a document it picked: the SQL entries of
// ops/documents/doc_outcome (complete, kill, drop, reschedule, reject, extend) and of
// doc_retry. The Fetchq 4 overloads stay; the forms with `attempts` (the
// fence) are new overloads of their own.
#include <optional>

#include "ops/documents/doc_outcome.hpp"
#include "ops/queues/queue_log.hpp"
#include "ops/queues/queue_access.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

// The optional `attempts` argument at position i (NULL or absent: no fence).
Fence arg_fence(FunctionCallInfo fcinfo, int i) {
    if (PG_NARGS() <= i || arg_is_null(fcinfo, i)) return std::nullopt;
    return arg_int(fcinfo, i, "attempts");
}

Datum affected(int64_t n) { PG_RETURN_INT32(static_cast<int32_t>(n)); }

// doc_complete / doc_kill (queue, subject [, payload [, attempts]])
template <typename Finish>
Datum finish(FunctionCallInfo fcinfo, Finish&& f) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    bool payload_null = true;
    Datum payload = PG_NARGS() > 2 ? arg_fetchq4_json(fcinfo, 2, &payload_null) : (Datum)0;
    const Fence attempts = arg_fence(fcinfo, 3);
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kPick,
                         [&] { n = f(queue, subject, payload, payload_null, attempts); });
    spi_finish();
    return affected(n);
}

Datum doc_complete(FunctionCallInfo fcinfo) { return finish(fcinfo, complete); }
Datum doc_kill(FunctionCallInfo fcinfo) { return finish(fcinfo, kill); }

// doc_complete_many(queue, subjects[]): completes the active ones.
Datum doc_complete_many(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    if (arg_is_null(fcinfo, 1)) PG_RETURN_INT32(0);
    Datum subjects = PG_GETARG_DATUM(1);
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kPick, [&] { n = complete_many(queue, subjects); });
    spi_finish();
    return affected(n);
}

// doc_drop(queue, subject [, attempts]): deletes an active document.
Datum doc_drop(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    const Fence attempts = arg_fence(fcinfo, 2);
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kPick, [&] { n = drop(queue, subject, attempts); });
    spi_finish();
    return affected(n);
}

// doc_reschedule(queue, subject, next_iteration [, payload [, attempts]])
Datum doc_reschedule(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    TimestampTz next_iteration = arg_timestamptz(fcinfo, 2, "next_iteration");
    bool payload_null = true;
    Datum payload = PG_NARGS() > 3 ? arg_fetchq4_json(fcinfo, 3, &payload_null) : (Datum)0;
    const Fence attempts = arg_fence(fcinfo, 4);
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kPick, [&] {
        n = reschedule(queue, subject, next_iteration, payload, payload_null, attempts);
    });
    spi_finish();
    return affected(n);
}

// Back to pending (at once, or `delay` from now), or killed when its
// attempts reached the queue's max_attempts; the reason goes to the log.
// ref_id, delay and attempts are the arguments at those places, if any
// (ref_id_at < 0: the form has none).
Datum reject_call(FunctionCallInfo fcinfo, int ref_id_at, int delay_at, int attempts_at) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    Rejection why;
    why.message = arg_text(fcinfo, 2, "message");
    why.details = arg_fetchq4_json(fcinfo, 3, &why.details_null);
    if (ref_id_at >= 0 && PG_NARGS() > ref_id_at) why.ref_id = arg_text_or_null(fcinfo, ref_id_at);
    if (PG_NARGS() > delay_at && !arg_is_null(fcinfo, delay_at))
        why.delay = arg_nonnegative_interval(fcinfo, delay_at, "delay");
    const Fence attempts = arg_fence(fcinfo, attempts_at);
    check_log_entry(subject, why.message);
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kPick,
                         [&] { n = reject(queue, subject, why, attempts); });
    spi_finish();
    return affected(n);
}

// doc_reject(queue, subject, message, details [, ref_id [, delay [, attempts]]])
Datum doc_reject(FunctionCallInfo fcinfo) { return reject_call(fcinfo, 4, 5, 6); }

// doc_reject(queue, subject, message, details, delay): the same with no
// ref_id, so that a call can name the delay alone.
Datum doc_reject_delayed(FunctionCallInfo fcinfo) { return reject_call(fcinfo, -1, 4, 5); }

// doc_extend(queue, subject, duration [, attempts]): the lock of an active
// document ends `duration` from now.
Datum doc_extend(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    Interval* lock = arg_positive_duration(fcinfo, 2, "duration");
    const Fence attempts = arg_fence(fcinfo, 3);
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kPick,
                         [&] { n = extend(queue, subject, lock, attempts); });
    spi_finish();
    return affected(n);
}

// doc_retry(queue, subject [, next_iteration]): a killed document back to
// pending (or planned at next_iteration).
Datum doc_retry(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    const TimestampTz next_iteration = PG_NARGS() > 2 && !arg_is_null(fcinfo, 2)
                                           ? PG_GETARG_TIMESTAMPTZ(2)
                                           : GetCurrentTransactionStartTimestamp();
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kManage,
                         [&] { n = retry(queue, subject, next_iteration); });
    spi_finish();
    return affected(n);
}

// doc_cancel(queue, subject, reason): a planned, pending or waiting document
// killed at once; the same privilege as doc_kill (pick).
Datum doc_cancel(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    const std::optional<std::string> reason = arg_text_or_null(fcinfo, 2);
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kPick, [&] { n = cancel(queue, subject, reason); });
    spi_finish();
    return affected(n);
}

// doc_retry_many(queue [, subject_pattern]): every killed document, or those
// whose subject is LIKE the pattern, back to pending (redrive).
Datum doc_retry_many(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    const std::optional<std::string> pattern =
        PG_NARGS() > 1 ? arg_text_or_null(fcinfo, 1) : std::nullopt;
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kManage, [&] { n = retry_many(queue, pattern); });
    spi_finish();
    return affected(n);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_doc_complete, fetchq::sql_api::doc_complete)
FETCHQ_SQL_FUNCTION(fetchq_doc_kill, fetchq::sql_api::doc_kill)
FETCHQ_SQL_FUNCTION(fetchq_doc_cancel, fetchq::sql_api::doc_cancel)
FETCHQ_SQL_FUNCTION(fetchq_doc_complete_many, fetchq::sql_api::doc_complete_many)
FETCHQ_SQL_FUNCTION(fetchq_doc_drop, fetchq::sql_api::doc_drop)
FETCHQ_SQL_FUNCTION(fetchq_doc_reschedule, fetchq::sql_api::doc_reschedule)
FETCHQ_SQL_FUNCTION(fetchq_doc_reject, fetchq::sql_api::doc_reject)
FETCHQ_SQL_FUNCTION(fetchq_doc_reject_delayed, fetchq::sql_api::doc_reject_delayed)
FETCHQ_SQL_FUNCTION(fetchq_doc_extend, fetchq::sql_api::doc_extend)
FETCHQ_SQL_FUNCTION(fetchq_doc_retry, fetchq::sql_api::doc_retry)
FETCHQ_SQL_FUNCTION(fetchq_doc_retry_many, fetchq::sql_api::doc_retry_many)
