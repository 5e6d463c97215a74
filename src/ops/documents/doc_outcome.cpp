#include "ops/documents/doc_outcome.hpp"

#include <vector>

#include "ops/documents/dead_letters.hpp"
#include "ops/documents/doc_dependencies.hpp"
#include "ops/documents/doc_moves.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/queues/queue_log.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/documents/retry_policy.hpp"
#include "ops/shared_memory/wake.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
using core::DocMove;
using core::DocStatus;

namespace {

// The fence, as the last condition of a statement whose parameter `n` is the
// expected attempts (NULL: no fence).
std::string fenced(int n) {
    const std::string p = "$" + std::to_string(n);
    return " AND (" + p + "::int4 IS NULL OR attempts = " + p + ")";
}

Datum fence_value(Fence attempts) { return Int32GetDatum(attempts.value_or(0)); }
char fence_null(Fence attempts) { return attempts ? ' ' : 'n'; }

// UPDATE of one active document with `set_clause` (built once, when the
// statement is prepared); $1 subject, $2 payload (NULL keeps it), $3 fence.
template <typename SetClause>
int64_t finish_active(const std::string& queue, const char* name, SetClause&& set_clause,
                      const std::string& subject, Datum payload, bool payload_null,
                      Fence attempts) {
    SPIPlanPtr plan = queue_plan(queue, name,
                                 [&] {
                                     return "UPDATE " + docs_rel(queue) + " SET " + set_clause() +
                                            ", payload = COALESCE($2, payload), lock_session = NULL"
                                            " WHERE subject = $1 AND status = " +
                                            status_sql::active + fenced(3);
                                 },
                                 {TEXTOID, JSONBOID, INT4OID});
    Datum values[3] = {to_text(subject), payload, fence_value(attempts)};
    char nulls[3] = {' ', payload_null ? 'n' : ' ', fence_null(attempts)};
    return static_cast<int64_t>(queue_execute(queue, plan, values, nulls));
}

}  // namespace

int64_t complete(const std::string& queue, const std::string& subject, Datum payload,
                 bool payload_null, Fence attempts) {
    const int64_t n = finish_active(
        queue, "complete",
        [] {
            return "status = " + status_sql::completed +
                   ", attempts = 0, iterations = iterations + 1, last_iteration = now(),"
                   " next_iteration = '2970-01-01 00:00:00+00'";
        },
        subject, payload, payload_null, attempts);
    count_move(queue, DocMove::kComplete, DocStatus::kCompleted, n);
    if (n > 0) release_dependents(queue, subject);
    return n;
}

int64_t kill(const std::string& queue, const std::string& subject, Datum payload, bool payload_null,
             Fence attempts) {
    // With a dead-letter queue, the document as it is before the kill (its
    // attempts are reset by it), locked until the kill.
    const std::optional<DeadLetter> dead_letter = dead_letter_queue(queue);
    std::vector<KilledDoc> dead;
    if (dead_letter) {
        SPIPlanPtr plan = queue_plan(
            queue, "kill_dead_letter",
            [&] {
                return "SELECT subject, COALESCE($2, payload)::text, attempts FROM " +
                       docs_rel(queue) + " WHERE subject = $1 AND status = " + status_sql::active +
                       fenced(3) + " FOR UPDATE";
            },
            {TEXTOID, JSONBOID, INT4OID});
        Datum values[3] = {to_text(subject), payload, fence_value(attempts)};
        char nulls[3] = {' ', payload_null ? 'n' : ' ', fence_null(attempts)};
        if (queue_execute(queue, plan, values, nulls) == 1) dead = killed_rows({0}, 0, 1);
    }
    const int64_t n = finish_active(
        queue, "kill",
        [] {
            return "status = " + status_sql::killed +
                   ", attempts = 0, iterations = iterations + 1, last_iteration = now()";
        },
        subject, payload, payload_null, attempts);
    count_move(queue, DocMove::kKill, DocStatus::kKilled, n);
    if (n > 0 && dead_letter) send_to_dead_letters(queue, *dead_letter, dead, "killed");
    if (n > 0) kill_dependents(queue, subject);
    return n;
}

int64_t complete_many(const std::string& queue, Datum subjects) {
    // With documents waiting on the queue's, the statement returns the
    // subjects it completed, for their dependents.
    const bool awaited = queue_awaited(queue);
    SPIPlanPtr plan = queue_plan(
        queue, awaited ? "complete_many_returning" : "complete_many",
        [&] {
            return "UPDATE " + docs_rel(queue) + " SET status = " + status_sql::completed +
                   ", attempts = 0, iterations = iterations + 1,"
                   " last_iteration = now(), next_iteration = '2970-01-01 00:00:00+00',"
                   " lock_session = NULL WHERE subject = ANY ($1::text[]) AND status = " +
                   status_sql::active + (awaited ? " RETURNING subject" : "");
        },
        {TEXTARRAYOID});
    const auto n = static_cast<int64_t>(queue_execute(queue, plan, &subjects, nullptr));
    count_move(queue, DocMove::kComplete, DocStatus::kCompleted, n);
    if (awaited && n > 0) {
        std::vector<std::string> done;
        for (int64_t row = 0; row < n; ++row)
            done.push_back(spi_text(static_cast<uint64_t>(row), 1));
        for (const std::string& subject : done) release_dependents(queue, subject);
    }
    return n;
}

int64_t drop(const std::string& queue, const std::string& subject, Fence attempts) {
    SPIPlanPtr plan = queue_plan(queue, "drop",
                                 [&] {
                                     return "DELETE FROM " + docs_rel(queue) +
                                            " WHERE subject = $1 AND status = " +
                                            status_sql::active + fenced(2) + " RETURNING version";
                                 },
                                 {TEXTOID, INT4OID});
    Datum values[2] = {to_text(subject), fence_value(attempts)};
    char nulls[2] = {' ', fence_null(attempts)};
    const auto n = static_cast<int64_t>(queue_execute(queue, plan, values, nulls));
    const int64_t version = n > 0 ? spi_int(0, 1) : 0;
    count_move(queue, DocMove::kDrop, core::kDeleted, n, static_cast<int32_t>(version));
    // Never completed: what waited on it never will be released.
    if (n > 0) kill_dependents(queue, subject, "dropped");
    return n;
}

int64_t reschedule(const std::string& queue, const std::string& subject, TimestampTz next_iteration,
                   Datum payload, bool payload_null, Fence attempts) {
    const bool due = next_iteration <= GetCurrentTransactionStartTimestamp();
    SPIPlanPtr plan = queue_plan(queue, "reschedule",
                                 [&] {
                                     return "UPDATE " + docs_rel(queue) +
                                            " SET status = $3, next_iteration = $2, attempts = 0,"
                                            " iterations = iterations + 1, last_iteration = now(),"
                                            " payload = COALESCE($4, payload), lock_session = NULL"
                                            " WHERE subject = $1 AND status = " +
                                            status_sql::active + fenced(5);
                                 },
                                 {TEXTOID, TIMESTAMPTZOID, INT4OID, JSONBOID, INT4OID});
    const DocStatus to = due ? DocStatus::kPending : DocStatus::kPlanned;
    Datum values[5] = {to_text(subject), TimestampTzGetDatum(next_iteration),
                       Int32GetDatum(core::status_code(to)), payload, fence_value(attempts)};
    char nulls[5] = {' ', ' ', ' ', payload_null ? 'n' : ' ', fence_null(attempts)};
    const auto n = static_cast<int64_t>(queue_execute(queue, plan, values, nulls));
    if (n > 0 && !due) note_due(next_iteration);
    count_move(queue, DocMove::kReschedule, to, n);
    return n;
}

int64_t reject(const std::string& queue, const std::string& subject, const Rejection& why,
               Fence attempts) {
    SPIPlanPtr plan = queue_plan(
        queue, "reject",
        [&] {
            return "UPDATE " + docs_rel(queue) +
                   " AS d SET status = CASE WHEN d.attempts >= COALESCE("
                   "(SELECT q.max_attempts FROM fetchq.queues q WHERE q.name = $2), 5)"
                   " THEN " +
                   status_sql::killed + " ELSE " + status_sql::pending +
                   " END,"
                   " next_iteration = CASE WHEN $3::interval IS NOT NULL THEN now() + $3"
                   " ELSE COALESCE(" +
                   retry_policy_next_sql("d.attempts", "$2") +
                   ", d.next_iteration) END,"
                   " lock_upgrade = CASE WHEN d.lock_upgrade IS NULL THEN NULL ELSE now() END,"
                   " iterations = d.iterations + 1, last_iteration = now(), lock_session = NULL"
                   " WHERE d.subject = $1 AND d.status = " +
                   status_sql::active + fenced(4) +
                   " RETURNING d.status, d.subject, CASE WHEN d.status = " + status_sql::killed +
                   " THEN d.payload::text END, d.attempts";
        },
        {TEXTOID, TEXTOID, INTERVALOID, INT4OID});
    Datum values[4] = {to_text(subject), to_text(queue),
                       why.delay ? IntervalPGetDatum(why.delay) : (Datum)0, fence_value(attempts)};
    char nulls[4] = {' ', ' ', why.delay ? ' ' : 'n', fence_null(attempts)};
    const auto n = static_cast<int64_t>(queue_execute(queue, plan, values, nulls));
    const bool killed = n > 0 && spi_int(0, 1) == core::status_code(DocStatus::kKilled);
    const std::vector<KilledDoc> dead = killed ? killed_rows({0}, 1, 2) : std::vector<KilledDoc>();
    if (n > 0) insert_log(queue, subject, why.message, why.details, why.details_null, why.ref_id);
    if (killed)
        if (const std::optional<DeadLetter> dead_letter = dead_letter_queue(queue))
            send_to_dead_letters(queue, *dead_letter, dead, why.message);
    count_move(queue, DocMove::kReject, killed ? DocStatus::kKilled : DocStatus::kPending, n);
    if (killed) kill_dependents(queue, subject);
    return n;
}

int64_t extend(const std::string& queue, const std::string& subject, const Interval* lock,
               Fence attempts) {
    SPIPlanPtr plan =
        queue_plan(queue, "extend",
                   [&] {
                       return "UPDATE " + docs_rel(queue) +
                              " SET next_iteration = now() + $2 WHERE subject = $1 AND status = " +
                              status_sql::active + fenced(3);
                   },
                   {TEXTOID, INTERVALOID, INT4OID});
    Datum values[3] = {to_text(subject), IntervalPGetDatum(lock), fence_value(attempts)};
    char nulls[3] = {' ', ' ', fence_null(attempts)};
    return static_cast<int64_t>(queue_execute(queue, plan, values, nulls));
}

// fetchq_data.<queue>__logs.message holds up to 255 characters.
constexpr int kLogMessageLimit = 255;

int64_t cancel(const std::string& queue, const std::string& subject,
               const std::optional<std::string>& reason) {
    const std::string message = reason ? "cancelled: " + *reason : std::string("cancelled");
    check_length(message, kLogMessageLimit, "reason",
                 "The reason goes to the queue's log after \"cancelled: \": at most 244 "
                 "characters.");
    // The row as it was (its status says which counter it leaves), locked
    // on its latest version: a promotion or a pick under way commits first
    // and is seen, or waits for this statement.
    SPIPlanPtr plan = queue_plan(
        queue, "cancel",
        [&] {
            return "UPDATE " + docs_rel(queue) + " AS d SET status = " + status_sql::killed +
                   ", iterations = d.iterations + 1, last_iteration = now(), lock_session = NULL"
                   " FROM (SELECT subject, status, next_iteration FROM " +
                   docs_rel(queue) + " WHERE subject = $1 AND status IN (" + status_sql::planned +
                   ", " + status_sql::pending +
                   ") FOR UPDATE) AS o WHERE d.subject = o.subject"
                   " RETURNING o.status, o.next_iteration = 'infinity'::timestamptz";
        },
        {TEXTOID});
    Datum name = to_text(subject);
    const auto n = static_cast<int64_t>(queue_execute(queue, plan, &name, nullptr));
    if (n == 0) return 0;
    const bool was_planned = spi_int(0, 1) == core::status_code(DocStatus::kPlanned);
    bool isnull = false;
    const bool waited = was_planned && DatumGetBool(spi_value(0, 2, &isnull));
    count_move_from(queue, DocMove::kCancel,
                    was_planned ? DocStatus::kPlanned : DocStatus::kPending, n);
    insert_log(queue, subject, message, 0, true, std::nullopt);
    if (waited) forget_wait(queue, subject);
    kill_dependents(queue, subject);
    return n;
}

int64_t retry(const std::string& queue, const std::string& subject, TimestampTz next_iteration) {
    const bool due = next_iteration <= GetCurrentTransactionStartTimestamp();
    const DocStatus to = due ? DocStatus::kPending : DocStatus::kPlanned;
    SPIPlanPtr plan = queue_plan(
        queue, "retry",
        [&] {
            return "UPDATE " + docs_rel(queue) +
                   " SET status = $3, next_iteration = $2, attempts = 0, lock_session = NULL"
                   " WHERE subject = $1 AND status = " +
                   status_sql::killed;
        },
        {TEXTOID, TIMESTAMPTZOID, INT4OID});
    Datum values[3] = {to_text(subject), TimestampTzGetDatum(next_iteration),
                       Int32GetDatum(core::status_code(to))};
    const auto n = static_cast<int64_t>(queue_execute(queue, plan, values, nullptr));
    if (n > 0 && !due) note_due(next_iteration);
    count_move(queue, DocMove::kRetry, to, n);
    return n;
}

int64_t retry_many(const std::string& queue, const std::optional<std::string>& pattern) {
    // Through the partial index of killed documents: the cost grows with
    // the documents retried, not with the queue.
    SPIPlanPtr plan =
        queue_plan(queue, "retry_many",
                   [&] {
                       return "UPDATE " + docs_rel(queue) + " SET status = " + status_sql::pending +
                              ", next_iteration = now(), attempts = 0, lock_session = NULL"
                              " WHERE status = " +
                              status_sql::killed + " AND ($1::text IS NULL OR subject LIKE $1)";
                   },
                   {TEXTOID});
    Datum value = pattern ? to_text(*pattern) : (Datum)0;
    const char nulls[1] = {pattern ? ' ' : 'n'};
    const auto n = static_cast<int64_t>(queue_execute(queue, plan, &value, nulls));
    count_move(queue, DocMove::kRetry, DocStatus::kPending, n);
    return n;
}

}  // namespace fetchq::ops
