#include "ops/documents/doc_push.hpp"

#include <algorithm>
#include <memory>
#include <optional>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "core/queue_name.hpp"
#include "ops/documents/doc_moves.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/shared_memory/pick_start.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_defaults.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/documents/route_delivery.hpp"
#include "ops/shared_memory/wake.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
using core::DocStatus;

namespace {

DocStatus status_for(TimestampTz next_iteration) {
    return next_iteration <= GetCurrentTransactionStartTimestamp() ? DocStatus::kPending
                                                                   : DocStatus::kPlanned;
}

// `top_priority`: the highest of the pushed documents' (none: a NULL one,
// which picks take first), so that the first of them in pick order is no
// earlier than (top_priority, next_iteration, 0).
void count_pushed(const std::string& queue, int32_t version, DocStatus status, int64_t n,
                  TimestampTz next_iteration, std::optional<int32_t> top_priority) {
    if (n == 0) return;
    // A planned document: the scheduler must be awake when it becomes due.
    if (status == DocStatus::kPlanned) note_due(next_iteration);
    const core::PickKey earliest{top_priority.value_or(0), next_iteration, 0};
    count_move(queue, core::DocMove::kPush, status, n, version, top_priority ? &earliest : nullptr);
}

// The highest of a batch's priorities; none when one is NULL, or missing
// (unnest pads the shorter arrays with NULLs).
std::optional<int32_t> top_priority(Datum subjects, Datum priorities) {
    int32 top = PG_INT32_MIN;
    const bool complete = pg_call([&] {
        Datum* p = nullptr;
        bool* nulls = nullptr;
        int n = 0;
        deconstruct_array(DatumGetArrayTypeP(priorities), INT4OID, 4, true, TYPALIGN_INT, &p,
                          &nulls, &n);
        ArrayType* s = DatumGetArrayTypeP(subjects);
        for (int i = 0; i < n; ++i) {
            if (nulls[i]) return false;
            top = std::max(top, DatumGetInt32(p[i]));
        }
        return n >= ArrayGetNItems(ARR_NDIM(s), ARR_DIMS(s));
    });
    return complete ? std::optional<int32_t>(top) : std::nullopt;
}

// Expiry of pushed documents: the given one, else now() + the queue's
// default_ttl (none when the queue has none). The scheduler is told.
std::optional<TimestampTz> expiry_of(const std::string& queue, const Expiry& expiry) {
    const std::optional<TimestampTz> at = expiry.from_queue ? default_expiry(queue) : expiry.at;
    if (at) note_due(*at);
    return at;
}

}  // namespace

void require_change(const std::string& queue, const std::string& subject, Oid caller,
                    const std::string& function) {
    if (queue_privilege_held(queue, core::QueuePrivilege::kPick, caller)) return;
    const char* name = pg_call([&] { return GetUserNameFromId(caller, true); });
    const std::string who = name ? name : "?";
    const std::string what = "permission denied to change document " + core::echo(subject) +
                             " of queue \"" + queue + "\"";
    if (queue_has_grants(queue))
        throw core::Error(
            core::sqlstate::kInsufficientPrivilege, what,
            function + " changes an existing document only with the pick privilege, which role \"" +
                who + "\" lacks on queue \"" + queue + "\"; with push alone it adds new subjects.",
            "The queue's owner, or a role with manage on it, may grant it: SELECT "
            "fetchq.queue_grant(" +
                quote_literal(queue) + ", " + quote_literal(who) + ", 'pick');");
    const std::string table = "fetchq_data." + core::docs_table(queue);
    throw core::Error(core::sqlstate::kInsufficientPrivilege, what,
                      function + " changes an existing document only with UPDATE on table " +
                          table + ", which role \"" + who +
                          "\" lacks; with INSERT alone it adds new subjects.",
                      "The table's owner may grant it: GRANT UPDATE ON fetchq_data." +
                          quote_ident(core::docs_table(queue)) + " TO " + quote_ident(who) + ";");
}

namespace {

// A topic keeps nothing, so no insert checks the pusher's right to push into
// it: checked here.
void require_topic_push(const std::string& topic) { queue_owner_for(topic, ACL_INSERT, {}); }

// The rows a routed batch insert returned (subject, priority, payload).
Arrivals returned_arrivals(uint64_t rows, int32_t version, TimestampTz next_iteration,
                           std::optional<TimestampTz> expires_at) {
    Arrivals docs;
    docs.version = version;
    docs.next_iteration = next_iteration;
    docs.expires_at = expires_at;
    for (uint64_t row = 0; row < rows; ++row) {
        bool isnull = false;
        docs.subjects.push_back(spi_value(row, 1, &isnull));
        docs.priorities.push_back(spi_value(row, 2, &isnull));
        docs.payloads.push_back(spi_value(row, 3, &isnull));
        docs.payload_nulls.push_back(isnull);
    }
    return docs;
}

// The documents of a batch offered to a topic, as given.
Arrivals given_arrivals(Datum subjects, Datum priorities, Datum payloads, int32_t version,
                        TimestampTz next_iteration, std::optional<TimestampTz> expires_at) {
    Datum *s = nullptr, *p = nullptr, *j = nullptr;
    bool* j_nulls = nullptr;
    int n = 0, np = 0, nj = 0;
    pg_call([&] {
        deconstruct_array(DatumGetArrayTypeP(subjects), TEXTOID, -1, false, TYPALIGN_INT, &s,
                          nullptr, &n);
        deconstruct_array(DatumGetArrayTypeP(priorities), INT4OID, 4, true, TYPALIGN_INT, &p,
                          nullptr, &np);
        deconstruct_array(DatumGetArrayTypeP(payloads), JSONBOID, -1, false, TYPALIGN_INT, &j,
                          &j_nulls, &nj);
    });
    Arrivals docs;
    docs.version = version;
    docs.next_iteration = next_iteration;
    docs.expires_at = expires_at;
    for (int i = 0; i < n && i < np && i < nj; ++i) {
        docs.subjects.push_back(s[i]);
        docs.priorities.push_back(p[i]);
        docs.payloads.push_back(j[i]);
        docs.payload_nulls.push_back(j_nulls[i]);
    }
    return docs;
}

}  // namespace

void check_subject(const std::string& subject) {
    if (subject.empty())
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument subject must not be empty", {},
                          "Give every document a subject of 1 to 50 characters.");
    const char* s = subject.c_str();
    int len = static_cast<int>(subject.size());
    int chars = pg_call([&] { return pg_mbstrlen_with_len(s, len); });
    if (chars > 50)
        throw core::Error(core::sqlstate::kStringDataRightTruncation,
                          "The subject exceeds 50 characters limit",
                          "The subject has " + std::to_string(chars) + " characters.",
                          "Use a subject of at most 50 characters.");
}

// Every element of a text[] of subjects, as check_subject.
void check_subjects(ArrayType* subjects) {
    Datum* elems = nullptr;
    int n = 0;
    pg_call([&] {
        deconstruct_array(subjects, TEXTOID, -1, false, TYPALIGN_INT, &elems, nullptr, &n);
    });
    for (int i = 0; i < n; ++i) {
        const Datum elem = elems[i];
        const char* subject = pg_call([&] { return TextDatumGetCString(elem); });
        check_subject(subject);
    }
}

int64_t push_one(const std::string& queue, const std::string& subject, int32_t version,
                 int32_t priority, TimestampTz next_iteration, Datum payload, bool payload_null,
                 Expiry expiry, const std::optional<std::string>& flow_key) {
    check_subject(subject);
    const DocStatus status = status_for(next_iteration);
    const std::optional<TimestampTz> expires_at = expiry_of(queue, expiry);
    const std::shared_ptr<const QueueRoutes> routes = routes_from(queue);
    auto arrival = [&] {
        return Arrival{subject, version,      priority,   next_iteration,
                       payload, payload_null, expires_at, flow_key};
    };
    if (routes->is_topic) {
        require_topic_push(queue);
        return deliver(*routes, arrival());
    }
    // A document with a key has a statement of its own: a push without one
    // runs the same statement as before keys existed.
    auto insert = [&](bool keyed) {
        return "INSERT INTO " + docs_rel(queue) +
               " (subject, version, priority, status, next_iteration, payload, created_at,"
               " expires_at" +
               std::string(keyed ? ", flow_key" : "") +
               ") VALUES ($1, $2, $3, $4, $5, $6, now(), $7" + std::string(keyed ? ", $8" : "") +
               ") ON CONFLICT (subject) DO NOTHING";
    };
    SPIPlanPtr plan = flow_key ? queue_plan(queue, "push_flow", [&] { return insert(true); },
                                            {TEXTOID, INT4OID, INT4OID, INT4OID, TIMESTAMPTZOID,
                                             JSONBOID, TIMESTAMPTZOID, TEXTOID})
                               : queue_plan(queue, "push", [&] { return insert(false); },
                                            {TEXTOID, INT4OID, INT4OID, INT4OID, TIMESTAMPTZOID,
                                             JSONBOID, TIMESTAMPTZOID});
    Datum values[8] = {to_text(subject),
                       Int32GetDatum(version),
                       Int32GetDatum(priority),
                       Int32GetDatum(core::status_code(status)),
                       TimestampTzGetDatum(next_iteration),
                       payload,
                       TimestampTzGetDatum(expires_at ? *expires_at : 0),
                       flow_key ? to_text(*flow_key) : Datum(0)};
    char nulls[8] = {' ', ' ', ' ', ' ', ' ', payload_null ? 'n' : ' ', expires_at ? ' ' : 'n',
                     ' '};
    const int64_t n = static_cast<int64_t>(queue_execute(queue, plan, values, nulls));
    count_pushed(queue, version, status, n, next_iteration, priority);
    // Only a document that arrived is routed: a duplicate subject did not.
    if (n > 0 && !routes->routes.empty()) deliver(*routes, arrival());
    return n;
}

void check_requeue_target(const std::string& queue) {
    if (!routes_from(queue)->is_topic) return;
    throw core::Error(core::sqlstate::kFeatureNotSupported,
                      "if_finished => 'requeue' is not supported for topic \"" + queue + "\"",
                      "A topic keeps no document to requeue; its subscriptions keep the copies.",
                      "Send into the subscriptions' queues themselves.");
}

int64_t requeue_finished(const std::string& queue, const std::string& subject, int32_t version,
                         int32_t priority, TimestampTz next_iteration, Datum payload,
                         bool payload_null, Expiry expiry,
                         const std::optional<std::string>& flow_key) {
    check_subject(subject);
    const DocStatus to = status_for(next_iteration);
    check_requeue_target(queue);
    const std::shared_ptr<const QueueRoutes> routes = routes_from(queue);
    const std::optional<TimestampTz> expires_at = expiry_of(queue, expiry);
    // The row as it was (status and version say which counters it leaves),
    // locked on its latest version: a concurrent retry or purge commits
    // first and is seen, or waits for this statement.
    SPIPlanPtr plan = queue_plan(
        queue, "requeue",
        [&] {
            return "UPDATE " + docs_rel(queue) +
                   " AS d SET status = $4, version = $2, priority = $3, next_iteration = $5,"
                   " payload = $6, expires_at = $7, attempts = 0, created_at = now(),"
                   " lock_session = NULL, flow_key = $8 FROM (SELECT subject, status, version "
                   "FROM " +
                   docs_rel(queue) + " WHERE subject = $1 AND lock_upgrade IS NULL AND status IN " +
                   core::sql_status_list({DocStatus::kCompleted, DocStatus::kKilled}) +
                   " FOR UPDATE) AS o WHERE d.subject = o.subject RETURNING o.status, o.version";
        },
        {TEXTOID, INT4OID, INT4OID, INT4OID, TIMESTAMPTZOID, JSONBOID, TIMESTAMPTZOID, TEXTOID});
    Datum values[8] = {to_text(subject),
                       Int32GetDatum(version),
                       Int32GetDatum(priority),
                       Int32GetDatum(core::status_code(to)),
                       TimestampTzGetDatum(next_iteration),
                       payload,
                       TimestampTzGetDatum(expires_at ? *expires_at : 0),
                       flow_key ? to_text(*flow_key) : Datum(0)};
    char nulls[8] = {' ',
                     ' ',
                     ' ',
                     ' ',
                     ' ',
                     payload_null ? 'n' : ' ',
                     expires_at ? ' ' : 'n',
                     flow_key ? ' ' : 'n'};
    const auto n = static_cast<int64_t>(queue_execute(queue, plan, values, nulls));
    if (n == 0) return 0;
    const DocStatus from = spi_int(0, 1) == core::status_code(DocStatus::kKilled)
                               ? DocStatus::kKilled
                               : DocStatus::kCompleted;
    const auto old_version = static_cast<int32_t>(spi_int(0, 2));
    if (to == DocStatus::kPlanned) note_due(next_iteration);
    const core::PickKey earliest{priority, next_iteration, 0};
    count_move_between(queue, core::DocMove::kRequeue, from, to, n, version,
                       to == DocStatus::kPending ? &earliest : nullptr);
    if (old_version != version) count_version_change(queue, old_version, version, n);
    if (!routes->routes.empty())
        deliver(*routes, Arrival{subject, version, priority, next_iteration, payload, payload_null,
                                 expires_at, flow_key});
    return n;
}

// Many documents in one statement; duplicates (in the table or the batch)
// skipped. With routes, the statement returns what it inserted for them.
int64_t push_batch(const std::string& queue, Datum subjects, Datum priorities, Datum payloads,
                   int32_t version, TimestampTz next_iteration, Expiry expiry) {
    const DocStatus status = status_for(next_iteration);
    const std::optional<TimestampTz> expires_at = expiry_of(queue, expiry);
    const std::shared_ptr<const QueueRoutes> routes = routes_from(queue);
    if (routes->is_topic) {
        require_topic_push(queue);
        return deliver(*routes, given_arrivals(subjects, priorities, payloads, version,
                                               next_iteration, expires_at));
    }
    const bool routed = !routes->routes.empty();
    auto statement = [&] {
        return "INSERT INTO " + docs_rel(queue) +
               " (subject, version, priority, status, next_iteration, payload, created_at,"
               " expires_at)"
               " SELECT d.subject, $4, d.priority, $5, $6, d.payload, now(), $7"
               " FROM unnest($1::text[], $2::int4[], $3::jsonb[]) AS d(subject, priority, "
               "payload)"
               " ON CONFLICT (subject) DO NOTHING" +
               std::string(routed ? " RETURNING subject, priority, payload" : "");
    };
    SPIPlanPtr plan = queue_plan(queue, routed ? "push_batch_routed" : "push_batch", statement,
                                 {TEXTARRAYOID, INT4ARRAYOID, JSONBARRAYOID, INT4OID, INT4OID,
                                  TIMESTAMPTZOID, TIMESTAMPTZOID});
    Datum values[7] = {subjects,
                       priorities,
                       payloads,
                       Int32GetDatum(version),
                       Int32GetDatum(core::status_code(status)),
                       TimestampTzGetDatum(next_iteration),
                       TimestampTzGetDatum(expires_at ? *expires_at : 0)};
    const char nulls[7] = {' ', ' ', ' ', ' ', ' ', ' ', expires_at ? ' ' : 'n'};
    const int64_t n = static_cast<int64_t>(queue_execute(queue, plan, values, nulls));
    count_pushed(
        queue, version, status, n, next_iteration,
        n > 0 && status == DocStatus::kPending ? top_priority(subjects, priorities) : std::nullopt);
    if (routed && n > 0)
        deliver(*routes,
                returned_arrivals(static_cast<uint64_t>(n), version, next_iteration, expires_at));
    return n;
}

Upserted upsert_one(const std::string& queue, const std::string& subject, int32_t version,
                    int32_t priority, TimestampTz next_iteration, Datum payload, bool payload_null,
                    Oid caller) {
    Upserted out;
    out.queued = push_one(queue, subject, version, priority, next_iteration, payload, payload_null);
    // A topic keeps no document to change.
    if (out.queued > 0 || routes_from(queue)->is_topic) return out;
    require_change(queue, subject, caller, "doc_upsert");
    out.updated =
        update_not_active(queue, subject, priority, payload, payload_null, next_iteration);
    return out;
}

int64_t update_not_active(const std::string& queue, const std::string& subject, int32_t priority,
                          Datum payload, bool payload_null, TimestampTz next_iteration) {
    SPIPlanPtr plan =
        queue_plan(queue, "upsert_update",
                   [&] {
                       return "UPDATE " + docs_rel(queue) +
                              " SET priority = $2, payload = $3, next_iteration = $4"
                              " WHERE subject = $1 AND lock_upgrade IS NULL AND status <> " +
                              status_sql::active + " RETURNING status";
                   },
                   {TEXTOID, INT4OID, JSONBOID, TIMESTAMPTZOID});
    Datum values[4] = {to_text(subject), Int32GetDatum(priority), payload,
                       TimestampTzGetDatum(next_iteration)};
    char nulls[4] = {' ', ' ', payload_null ? 'n' : ' ', ' '};
    const auto updated = static_cast<int64_t>(queue_execute(queue, plan, values, nulls));
    // A planned document moved earlier: the scheduler must promote it then,
    // not at the time it was sleeping until.
    if (updated > 0 && spi_int(0, 1) == core::status_code(DocStatus::kPlanned))
        note_due(next_iteration);
    // A pending document moved in pick order, to anywhere; locked until then.
    if (updated > 0 && spi_int(0, 1) == core::status_code(DocStatus::kPending)) {
        note_pending_locked(queue);
        note_pickable_anywhere(queue);
    }
    return updated;
}

}  // namespace fetchq::ops
