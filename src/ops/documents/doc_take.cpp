#include "ops/documents/doc_take.hpp"

#include "core/doc_status.hpp"
#include "ops/documents/doc_moves.hpp"
#include "ops/flow/flow_limits.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/shared_memory/wake.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
using core::DocStatus;

namespace {

// Locks the row of a takeable document and returns its status: planned or
// pending, not expired. FOR UPDATE waits for another holder and then looks
// at the row as that holder left it; SKIP LOCKED does not wait.
SPIPlanPtr lock_plan(const std::string& queue, bool nowait, bool flow) {
    const char* name = flow ? (nowait ? "take_lock_flow_nowait" : "take_lock_flow")
                            : (nowait ? "take_lock_nowait" : "take_lock");
    return queue_plan(queue, name,
                      [&] {
                          return std::string("SELECT status") + (flow ? ", flow_key" : "") +
                                 " FROM " + docs_rel(queue) + " WHERE subject = $1 AND status IN " +
                                 core::sql_status_list({DocStatus::kPlanned, DocStatus::kPending}) +
                                 " AND (expires_at IS NULL OR expires_at > now()) FOR UPDATE" +
                                 (nowait ? " SKIP LOCKED" : "");
                      },
                      {TEXTOID});
}

// Whether the queue's limits let one more document (of `key`) become active;
// the locks taken are held to the end of the transaction. Waits for a
// concurrent pick of the queue or key unless `nowait`.
bool flow_admits(const std::string& queue, const FlowLimits& limits,
                 const std::optional<std::string>& key, bool nowait) {
    if (limits.max_active && queue_room(queue, *limits.max_active, !nowait).value_or(0) == 0)
        return false;
    if (!key) return true;
    KeyRate rate;
    if (key_room(queue, *key, limits, !nowait, &rate) <= 0) return false;
    note_key_picks(queue, *key, rate, 1);
    return true;
}

SPIPlanPtr activate_plan(const std::string& queue) {
    return queue_plan(
        queue, "take",
        [&] {
            return "UPDATE " + docs_rel(queue) + " AS d SET status = " + status_sql::active +
                   ", next_iteration = now() + $2, attempts = d.attempts + 1"
                   " WHERE d.subject = $1"
                   " RETURNING d.subject, d.payload, d.version, d.priority, d.attempts,"
                   " d.iterations, d.created_at, d.last_iteration, d.next_iteration,"
                   " d.lock_upgrade, d.flow_key";
        },
        {TEXTOID, INTERVALOID});
}

}  // namespace

uint64_t take(const std::string& queue, const std::string& subject, Interval* lock, bool nowait) {
    // A queue without limits takes as it always did.
    const std::shared_ptr<const FlowLimits> limits = flow_limits(queue);
    Datum name = to_text(subject);
    if (queue_execute(queue, lock_plan(queue, nowait, limits != nullptr), &name, nullptr) == 0)
        return 0;
    const std::optional<DocStatus> from = core::status_from_code(spi_int(0, 1));
    if (limits) {
        // Held back: no row, the document left as it is.
        const char* key = spi_text(0, 2);
        const std::optional<std::string> flow_key =
            key ? std::optional<std::string>(key) : std::nullopt;
        if (!flow_admits(queue, *limits, flow_key, nowait)) return 0;
    }
    Datum values[2] = {name, IntervalPGetDatum(lock)};
    const uint64_t n = queue_execute(queue, activate_plan(queue), values, nullptr);
    if (n == 0 || !from) return 0;
    // The lock expires at now + duration: the scheduler must be awake then.
    note_due(pg_call([&] {
        return DatumGetTimestampTz(DirectFunctionCall2(
            timestamptz_pl_interval, TimestampTzGetDatum(GetCurrentTransactionStartTimestamp()),
            IntervalPGetDatum(lock)));
    }));
    count_move_from(queue, core::DocMove::kTake, *from, 1);
    return n;
}

uint64_t peek(const std::string& queue, const std::string& subject) {
    SPIPlanPtr plan = queue_plan(
        queue, "peek",
        [&] {
            return "SELECT subject, payload, version, priority, status, attempts, iterations,"
                   " created_at, last_iteration, next_iteration, lock_upgrade, expires_at, "
                   "flow_key "
                   "FROM " +
                   docs_rel(queue) + " WHERE subject = $1";
        },
        {TEXTOID});
    Datum name = to_text(subject);
    return queue_execute(queue, plan, &name, nullptr, true, 1);
}

}  // namespace fetchq::ops
