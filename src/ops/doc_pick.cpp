#include "ops/doc_pick.hpp"

#include "ops/doc_moves.hpp"
#include "ops/doc_status_sql.hpp"
#include "ops/queue_sql.hpp"
#include "ops/session_end.hpp"
#include "ops/wake.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

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
                   docs + " WHERE " + status_sql::ready +
                   " AND version = $1"
                   " ORDER BY priority DESC, next_iteration, attempts"
                   " LIMIT $2 FOR UPDATE SKIP LOCKED))"
                   " RETURNING d.subject, d.payload, d.version, d.priority, d.attempts,"
                   " d.iterations, d.created_at, d.last_iteration, d.next_iteration,"
                   " d.lock_upgrade";
        },
        {INT4OID, INT4OID, INTERVALOID, INT8OID});
}

}  // namespace

uint64_t pick(const std::string& queue, int32_t version, int32_t limit, Interval* lock,
              bool session_bound) {
    SPIPlanPtr plan = pick_plan(queue);
    if (session_bound) watch_session_end();
    Datum values[4] = {Int32GetDatum(version), Int32GetDatum(limit), IntervalPGetDatum(lock),
                       Int64GetDatum(session_bound ? session_key() : 0)};
    const char nulls[4] = {' ', ' ', ' ', session_bound ? ' ' : 'n'};
    const uint64_t n = queue_execute(queue, plan, values, nulls);
    if (n > 0) {
        // The locks expire at now + duration: the scheduler must be awake then.
        note_due(pg_call([&] {
            return DatumGetTimestampTz(DirectFunctionCall2(
                timestamptz_pl_interval, TimestampTzGetDatum(GetCurrentTransactionStartTimestamp()),
                IntervalPGetDatum(lock)));
        }));
        count_move(queue, core::DocMove::kPick, core::DocStatus::kActive, static_cast<int64_t>(n));
    }
    return n;
}

}  // namespace fetchq::ops
