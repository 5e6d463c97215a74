// doc_pick: takes the next pending documents of a queue and locks them for a
// while (status 2); the rows are skipped, never waited for, when another
// consumer holds them.
#include "pg/args.hpp"
#include "ops/counters.hpp"
#include "ops/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"
#include "ops/session_end.hpp"
#include "ops/wake.hpp"
#include "ops/doc_status_sql.hpp"
#include "ops/doc_moves.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

constexpr const char* kDefaultLock = "5m";

SPIPlanPtr pick_plan(const std::string& queue) {
    return queue_plan(
        queue, "pick",
        [&] {
            const std::string docs = docs_rel(queue);
            // ctid = ANY(ARRAY(...)): the locked rows are fetched by their
            // address (a TID scan), not looked up again by primary key; a join
            // here gets a generic plan that hashes the table. The rows are
            // locked, so their address holds until commit.
            return "UPDATE " + docs + " AS d SET status = " + status_sql::active +
                   ", next_iteration = now() + $3, attempts = d.attempts + 1, lock_session = $4"
                   " WHERE d.ctid = ANY (ARRAY(SELECT ctid FROM " +
                   docs + " WHERE status = " + status_sql::pending +
                   " AND lock_upgrade IS NULL AND version = $1"
                   " AND next_iteration <= now()"
                   " AND (expires_at IS NULL OR expires_at > now())"
                   " ORDER BY priority DESC, next_iteration, attempts"
                   " LIMIT $2 FOR UPDATE SKIP LOCKED))"
                   " RETURNING d.subject, d.payload, d.version, d.priority, d.attempts,"
                   " d.iterations, d.created_at, d.last_iteration, d.next_iteration,"
                   " d.lock_upgrade";
        },
        {INT4OID, INT4OID, INTERVALOID, INT8OID});
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
                lock = arg_positive_duration(fcinfo, 1, "duration");
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
    SPIPlanPtr plan = pick_plan(queue);
    if (session_bound) ops::watch_session_end();
    Datum values[4] = {Int32GetDatum(version), Int32GetDatum(limit), IntervalPGetDatum(lock),
                       Int64GetDatum(session_bound ? ops::session_key() : 0)};
    const char nulls[4] = {' ', ' ', ' ', session_bound ? ' ' : 'n'};
    const uint64_t n = queue_execute(queue, plan, values, nulls);
    for (uint64_t row = 0; row < n; ++row) add_spi_row(fcinfo, row);
    spi_finish();
    if (n > 0) {
        // The locks expire at now + duration: the scheduler must be awake then.
        ops::note_due(pg_call([&] {
            return DatumGetTimestampTz(DirectFunctionCall2(
                timestamptz_pl_interval, TimestampTzGetDatum(GetCurrentTransactionStartTimestamp()),
                IntervalPGetDatum(lock)));
        }));
        count_move(queue, core::DocMove::kPick, core::DocStatus::kActive, static_cast<int64_t>(n));
    }
    return (Datum)0;
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_doc_pick, fetchq::sql_api::doc_pick)
