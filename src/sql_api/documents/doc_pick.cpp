// doc_pick: takes the next pending documents of a queue and locks them for a
// while (status 2); the rows are skipped, never waited for, when another
// consumer holds them.
#include "ops/queues/queue_access.hpp"
#include "pg/args.hpp"
#include "ops/counters/counters.hpp"
#include "ops/documents/doc_pick.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"
#include "ops/shared_memory/session_end.hpp"
#include "ops/shared_memory/wake.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/documents/doc_moves.hpp"
#include "core/duration.hpp"
#include "core/echo.hpp"
#include "core/error.hpp"

extern "C" {
#include "common/int.h"
}

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

constexpr const char* kDefaultLock = "5m";

// The lock of doc_pick(queue, duration). A number without a unit is refused
// here, unlike in every other duration (seconds, as in Fetchq 4): a parameter
// sent without a type, as drivers send them, makes doc_pick($1, $2) this form
// even when the number was meant as the limit of doc_pick(queue, limit).
Interval* two_argument_lock(const std::string& text) {
    if (core::is_bare_number(text))
        throw core::Error(
            core::sqlstate::kInvalidParameterValue,
            "argument duration of doc_pick(queue, duration) is a number without a unit: " +
                core::echo(text),
            "A parameter without a type (as node-postgres and most drivers send them) makes "
            "doc_pick($1, $2) this form, the duration of the lock, though the number may have "
            "been meant as a limit.",
            "For a limit, pass an integer ($2::integer) or call doc_pick(queue, version, limit, "
            "duration); for a lock, write its unit, such as '30s' or '5m'.");
    return parse_positive_duration_or_throw(text, "duration");
}

// doc_pick(queue [, version, limit, duration [, session_bound]]) /
// (queue, duration) / (queue, limit). Documents picked session-bound carry
// the session's key and go back to pending as soon as the session ends.
Datum doc_pick(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    int32_t version = 0, limit = 1;
    Interval* lock = nullptr;
    bool session_bound = false;
    switch (PG_NARGS()) {
        case 1:
            lock = parse_duration_or_throw(kDefaultLock, "duration");
            break;
        case 2: {
            // (queue, duration varchar) or (queue, limit integer)
            Oid type = get_fn_expr_argtype(fcinfo->flinfo, 1);
            if (type == INT4OID) {
                limit = arg_limit(fcinfo, 1, "limit");
                lock = parse_duration_or_throw(kDefaultLock, "duration");
            } else {
                lock = two_argument_lock(arg_text(fcinfo, 1, "duration"));
            }
            break;
        }
        default:
            version = arg_int(fcinfo, 1, "version");
            limit = arg_limit(fcinfo, 2, "limit");
            lock = arg_positive_duration(fcinfo, 3, "duration");
            session_bound = PG_NARGS() > 4 && arg_bool(fcinfo, 4, "session_bound");
            break;
    }
    begin_rows(fcinfo);
    if (limit == 0) return (Datum)0;
    spi_connect();
    with_queue_privilege(queue, QueuePrivilege::kPick, [&] {
        const uint64_t n = pick(queue, version, limit, lock, session_bound);
        for (uint64_t row = 0; row < n; ++row) add_spi_row(fcinfo, row);
    });
    spi_finish();
    return (Datum)0;
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_doc_pick, fetchq::sql_api::doc_pick)

// doc_pick_position(priority, next_iteration, attempts, waits_before) ->
// attempts + 1: in the SET list of doc_pick's statement, where it sees each
// document's place in pick order before the pick changes it, and whether a
// pending document not due yet lies before it (ops/documents/doc_pick.hpp). Outside a
// pick it changes nothing: the next pick starts afresh. Plain C: nothing
// here throws, and it runs once per document taken.
extern "C" {
PG_FUNCTION_INFO_V1(fetchq_doc_pick_position);
Datum fetchq_doc_pick_position(PG_FUNCTION_ARGS) {
    const bool known = !PG_ARGISNULL(0) && !PG_ARGISNULL(1) && !PG_ARGISNULL(2);
    fetchq::core::PickKey key;
    if (known) key = {PG_GETARG_INT32(0), PG_GETARG_TIMESTAMPTZ(1), PG_GETARG_INT32(2)};
    std::optional<bool> waits_before;
    if (!PG_ARGISNULL(3)) waits_before = PG_GETARG_BOOL(3);
    fetchq::ops::note_pick_position(known, key, waits_before);
    if (PG_ARGISNULL(2)) PG_RETURN_NULL();
    int32 attempts = 0;
    if (pg_add_s32_overflow(PG_GETARG_INT32(2), 1, &attempts))
        ereport(ERROR,
                (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE), errmsg("integer out of range")));
    PG_RETURN_INT32(attempts);
}
}
