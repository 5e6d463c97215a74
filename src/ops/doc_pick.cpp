#include "ops/doc_pick.hpp"

#include "ops/doc_moves.hpp"
#include "ops/doc_status_sql.hpp"
#include "ops/pick_start.hpp"
#include "ops/queue_sql.hpp"
#include "ops/session_end.hpp"
#include "ops/wake.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

// The place in pick order of the first document the running pick took, as
// doc_pick_position saw it.
struct Taken {
    bool any = false;
    bool unknown = false;  // a document with a NULL in its key
    core::PickKey first;
};
Taken g_taken;

// The statement's parts: the documents are chosen by the subquery, then
// fetched by their address (ctid = ANY(ARRAY(...)): a TID scan; a join here
// gets a generic plan that hashes the table). The rows are locked, so their
// address holds until commit. doc_pick_position sees each one's place in
// pick order before the SET changes it.
std::string pick_update(const std::string& docs, const std::string& chosen) {
    return "UPDATE " + docs + " AS d SET status = " + status_sql::active +
           ", next_iteration = now() + $3,"
           " attempts = fetchq.doc_pick_position(d.priority, d.next_iteration, d.attempts),"
           " lock_session = $4"
           " WHERE d.ctid = ANY (ARRAY(" +
           chosen +
           "))"
           " RETURNING d.subject, d.payload, d.version, d.priority, d.attempts,"
           " d.iterations, d.created_at, d.last_iteration, d.next_iteration,"
           " d.lock_upgrade";
}

std::string chosen_where(const std::string& docs, const std::string& where,
                         const std::string& order) {
    return "SELECT ctid FROM " + docs + " WHERE " + status_sql::ready + " AND version = $1" +
           where + " ORDER BY " + order + " LIMIT $2 FOR UPDATE SKIP LOCKED";
}

// From the beginning of the pick index.
SPIPlanPtr pick_plan(const std::string& queue) {
    return queue_plan(queue, "pick",
                      [&] {
                          const std::string docs = docs_rel(queue);
                          return pick_update(
                              docs,
                              chosen_where(docs, "", "priority DESC, next_iteration, attempts"));
                      },
                      {INT4OID, INT4OID, INTERVALOID, INT8OID});
}

// From the start ($5 priority, $6 next_iteration, $7 attempts): the rest of
// the start's priority, then the lower ones. A row comparison needs columns
// sorted one way, so the priority (descending) is matched apart.
SPIPlanPtr pick_from_plan(const std::string& queue) {
    return queue_plan(
        queue, "pick_from",
        [&] {
            const std::string docs = docs_rel(queue);
            // Each part locks in a subquery: FOR UPDATE is not allowed
            // on a UNION's parts themselves.
            return pick_update(
                docs, "SELECT ctid FROM (" +
                          chosen_where(docs,
                                       " AND priority = $5 AND (next_iteration, attempts) >= "
                                       "($6, $7)",
                                       "next_iteration, attempts") +
                          ") AS from_start UNION ALL SELECT ctid FROM (" +
                          chosen_where(docs, " AND priority < $5",
                                       "priority DESC, next_iteration, attempts") +
                          ") AS lower_priorities LIMIT $2");
        },
        {INT4OID, INT4OID, INTERVALOID, INT8OID, INT4OID, TIMESTAMPTZOID, INT4OID});
}

uint64_t execute_pick(const std::string& queue, const std::optional<core::PickKey>& start,
                      int32_t version, int32_t limit, Interval* lock, bool session_bound) {
    Datum values[7] = {Int32GetDatum(version), Int32GetDatum(limit), IntervalPGetDatum(lock),
                       Int64GetDatum(session_bound ? session_key() : 0)};
    const char nulls[7] = {' ', ' ', ' ', session_bound ? ' ' : 'n', ' ', ' ', ' '};
    if (!start) return queue_execute(queue, pick_plan(queue), values, nulls);
    values[4] = Int32GetDatum(start->priority);
    values[5] = TimestampTzGetDatum(start->next_iteration);
    values[6] = Int32GetDatum(start->attempts);
    return queue_execute(queue, pick_from_plan(queue), values, nulls);
}

}  // namespace

void note_pick_position(bool known, const core::PickKey& key) {
    if (!known) {
        g_taken.unknown = true;
    } else if (!g_taken.any || core::picked_before(key, g_taken.first)) {
        g_taken.first = key;
    }
    g_taken.any = true;
}

uint64_t pick(const std::string& queue, int32_t version, int32_t limit, Interval* lock,
              bool session_bound) {
    if (session_bound) watch_session_end();
    PickStartReading reading(queue, version);
    // Before the statement: one that fails may have locked some documents.
    note_pending_locked(queue);
    // Kept aside: a pick run by a trigger of this pick's table has its own.
    const Taken outer = g_taken;
    g_taken = Taken{};
    const uint64_t n = execute_pick(queue, reading.start(), version, limit, lock, session_bound);
    const Taken taken = g_taken;
    g_taken = outer;
    reading.finish(n > 0 && taken.any && !taken.unknown ? &taken.first : nullptr);
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
