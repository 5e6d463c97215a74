// Things owned by sessions that ended: documents they picked with
// session_bound = true go back to pending (or die after max_attempts, as
// orphans do), and their temporary queues are dropped.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/counters/counters.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/maintenance/maintenance.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/documents/dead_letters.hpp"
#include "ops/documents/doc_dependencies.hpp"
#include "ops/documents/doc_moves.hpp"
#include "ops/shared_memory/queue_activity.hpp"
#include "ops/shared_memory/session_end.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

int64_t release_session_locks(std::string_view queue, const std::vector<int64_t>& live,
                              int32_t limit) {
    check_task_limit(limit);
    SPIPlanPtr plan = queue_plan(
        queue, "release_sessions",
        [&] {
            const std::string docs = docs_rel(queue);
            return "UPDATE " + docs +
                   " AS d SET lock_session = NULL, next_iteration = now(), last_iteration ="
                   " CASE WHEN d.attempts >= COALESCE((SELECT q.max_attempts FROM"
                   " fetchq.queues q WHERE q.name = $3), 5) THEN now()"
                   " ELSE d.last_iteration END,"
                   " status = CASE WHEN d.attempts >= COALESCE((SELECT q.max_attempts"
                   " FROM fetchq.queues q WHERE q.name = $3), 5) THEN " +
                   status_sql::killed + " ELSE " + status_sql::pending +
                   " END WHERE d.ctid = ANY (ARRAY(SELECT ctid FROM " + docs +
                   " WHERE lock_session IS NOT NULL AND status = " + status_sql::active +
                   " AND lock_session <> ALL ($1) LIMIT $2 FOR UPDATE SKIP LOCKED))"
                   " RETURNING d.status, d.subject, CASE WHEN d.status = " +
                   status_sql::killed + " THEN d.payload::text END, d.attempts";
        },
        {INT8ARRAYOID, INT4OID, TEXTOID});
    Datum values[3] = {session_key_array(live), Int32GetDatum(limit), to_text(queue)};
    const uint64_t n = queue_execute(queue, plan, values, nullptr);
    int64_t killed = 0;
    for (uint64_t row = 0; row < n; ++row)
        killed += spi_int(row, 1) == core::status_code(core::DocStatus::kKilled) ? 1 : 0;
    if (n > 0) {
        const auto total = static_cast<int64_t>(n);
        count_move(queue, core::DocMove::kRelease, core::DocStatus::kPending, total - killed);
        count_move(queue, core::DocMove::kRelease, core::DocStatus::kKilled, killed);
    }
    if (killed > 0) {
        const std::string name(queue);
        std::vector<uint64_t> rows(n);
        for (uint64_t row = 0; row < n; ++row) rows[row] = row;
        const std::vector<KilledDoc> dead = killed_rows(rows, 1, 2);
        if (const std::optional<DeadLetter> dead_letter = dead_letter_queue(name))
            send_to_dead_letters(name, *dead_letter, dead, "session ended, no attempts left");
        // Documents waiting on them are killed too (as their queues' owners).
        for (const KilledDoc& d : dead) kill_dependents(name, d.subject);
    }
    return static_cast<int64_t>(n);
}

namespace {

// The temporary queues the scheduler may drop: listed in the registry (not
// fetchq.queues.owner_session, which a role with UPDATE on the catalog could
// point at another's queue), and only while the role that created each
// still owns its tables.
constexpr const char* kOwnedTemporaryQueues =
    " FROM fetchq.temporary_queues AS t"
    " JOIN pg_class AS c ON c.oid = to_regclass('fetchq_data.' || quote_ident(t.name || '__docs'))"
    " WHERE c.relowner = t.created_by";

}  // namespace

std::vector<std::string> ended_temporary_queues(const std::vector<int64_t>& live) {
    SPIPlanPtr plan = cached_plan("", "ended_temporary_queues",
                                  [] {
                                      return "SELECT t.name::text" +
                                             std::string(kOwnedTemporaryQueues) +
                                             " AND t.session_key <> ALL ($1) ORDER BY t.name";
                                  },
                                  {INT8ARRAYOID});
    Datum keys = session_key_array(live);
    const uint64_t n = spi_execute(plan, &keys, nullptr, true);
    std::vector<std::string> names;
    for (uint64_t row = 0; row < n; ++row) names.emplace_back(spi_text(row, 1));
    return names;
}

std::vector<std::string> idle_temporary_queues(TimestampTz now) {
    SPIPlanPtr plan = cached_plan("", "idle_temporary_queues",
                                  [] {
                                      return "SELECT t.name::text, t.created_at, t.idle_timeout" +
                                             std::string(kOwnedTemporaryQueues) +
                                             " AND t.idle_timeout IS NOT NULL ORDER BY t.name";
                                  },
                                  {});
    const uint64_t n = spi_execute(plan, nullptr, nullptr, true);
    std::vector<std::string> names;
    for (uint64_t row = 0; row < n; ++row) {
        const std::string name = spi_text(row, 1);
        bool isnull = false;
        const TimestampTz created = DatumGetTimestampTz(spi_value(row, 2, &isnull));
        const Datum timeout = spi_value(row, 3, &isnull);
        const TimestampTz since = std::max(created, last_activity(name));
        const TimestampTz until = pg_call([&] {
            return DatumGetTimestampTz(
                DirectFunctionCall2(timestamptz_pl_interval, TimestampTzGetDatum(since), timeout));
        });
        if (until <= now) names.push_back(name);
    }
    return names;
}

}  // namespace fetchq::ops
