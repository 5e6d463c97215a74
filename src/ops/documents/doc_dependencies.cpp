#include "ops/documents/doc_dependencies.hpp"

#include <set>
#include <utility>

#include "core/error.hpp"
#include "core/queue_name.hpp"
#include "ops/catalog/catalog_cache.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "ops/documents/doc_moves.hpp"
#include "ops/documents/doc_push.hpp"
#include "ops/documents/doc_reply.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_log.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/shared_memory/wake.hpp"
#include "pg/as_user.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "utils/inval.h"
#include "utils/json.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;
using core::DocStatus;

namespace {

// A waiting document: planned, due never, until its dependencies are done.
const std::string kWaiting =
    "status = " + status_sql::planned + " AND next_iteration = 'infinity'::timestamptz";

std::string named(const DocRef& ref) {
    return "document \"" + ref.subject + "\" of queue \"" + ref.queue + "\"";
}

[[noreturn]] void refuse_missing(const DocRef& ref, const std::string& why) {
    throw core::Error("23503", "dependency " + named(ref) + " does not exist", why,
                      "A document may depend only on documents that exist when it is sent; "
                      "nothing was sent.");
}

CatalogCache<bool>& awaited_cache() {
    static CatalogCache<bool> cache;
    return cache;
}

// Text arrays of the queues and subjects of `refs`.
std::pair<Datum, Datum> ref_arrays(const std::vector<DocRef>& refs) {
    std::vector<Datum> queues, subjects;
    for (const DocRef& r : refs) {
        queues.push_back(to_text(r.queue));
        subjects.push_back(to_text(r.subject));
    }
    return pg_call([&] {
        const int n = static_cast<int>(refs.size());
        return std::make_pair(
            PointerGetDatum(construct_array(queues.data(), n, TEXTOID, -1, false, TYPALIGN_INT)),
            PointerGetDatum(construct_array(subjects.data(), n, TEXTOID, -1, false, TYPALIGN_INT)));
    });
}

}  // namespace

void mark_awaited(const std::string& queue) {
    if (queue_awaited(queue)) return;
    SPIPlanPtr plan = cached_plan("", "awaited_mark",
                                  [] {
                                      return std::string(
                                          "INSERT INTO fetchq.awaited_queues (queue_id)"
                                          " SELECT id FROM fetchq.queues WHERE name = $1"
                                          " ON CONFLICT (queue_id) DO NOTHING");
                                  },
                                  {TEXTOID});
    Datum arg = to_text(queue);
    as_catalog_owner([&] { spi_execute(plan, &arg, nullptr, false); });
}

namespace {

// The rows of fetchq.doc_dependencies on `ref`, deleted; returns the queue
// ids and subjects of their dependents (SPI_tuptable: queue_id, subject).
const char* kDeleteEdgesOn =
    "DELETE FROM fetchq.doc_dependencies AS e USING fetchq.queues AS q"
    " WHERE q.name = $1 AND e.dependency_queue_id = q.id AND e.dependency_subject = $2"
    " RETURNING e.queue_id, e.subject";

// {"queue": ..., "subject": ...} of the killed document, for the log.
Datum cause_details(const DocRef& cause) {
    return pg_call([&] {
        StringInfoData buf;
        initStringInfo(&buf);
        appendStringInfoString(&buf, "{\"queue\": ");
        escape_json(&buf, cause.queue.c_str());
        appendStringInfoString(&buf, ", \"subject\": ");
        escape_json(&buf, cause.subject.c_str());
        appendStringInfoChar(&buf, '}');
        return DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data));
    });
}

struct Dependent {
    std::string queue;
    std::string subject;
    TimestampTz next_iteration = 0;
};

}  // namespace

bool queue_awaited(const std::string& queue) {
    // A wait committed since this transaction's last lock is seen now: a
    // completion that waited for the sender's lock on its row sees the flag.
    pg_call([] { AcceptInvalidationMessages(); });
    return awaited_cache().get(queue, [&] {
        const Oid owner = table_owner("fetchq", "awaited_queues");
        if (!OidIsValid(owner)) return false;
        SPIPlanPtr plan = cached_plan("", "awaited_read",
                                      [] {
                                          return std::string(
                                              "SELECT 1 FROM fetchq.awaited_queues AS a"
                                              " JOIN fetchq.queues AS q ON q.id = a.queue_id"
                                              " WHERE q.name = $1");
                                      },
                                      {TEXTOID});
        Datum arg = to_text(queue);
        bool awaited = false;
        as_user(owner, [&] { awaited = spi_execute_latest(plan, &arg, nullptr, 1) > 0; });
        return awaited;
    });
}

std::vector<DocRef> unfinished_dependencies(const std::vector<DocRef>& refs, Oid caller) {
    std::vector<DocRef> out;
    std::set<std::pair<std::string, std::string>> seen;
    for (const DocRef& ref : refs) {
        core::check_queue_name(ref.queue, "depends_on");
        check_subject(ref.subject);
        if (!seen.insert({ref.queue, ref.subject}).second) continue;
        const Oid owner = queue_owner_or_invalid(ref.queue);
        if (!OidIsValid(owner)) refuse_missing(ref, "Queue \"" + ref.queue + "\" does not exist.");
        // Naming a document of a queue tells whether it exists and whether
        // it is done: only a role that may read that queue's documents may.
        if (!queue_privilege_held(ref.queue, core::QueuePrivilege::kRead, caller)) {
            const char* role = pg_call([&] { return GetUserNameFromId(caller, true); });
            throw core::Error(
                core::sqlstate::kInsufficientPrivilege,
                "permission denied to depend on documents of queue \"" + ref.queue + "\"",
                "Role \"" + std::string(role ? role : "?") + "\" lacks read on queue \"" +
                    ref.queue + "\"; depends_on names only documents the sender may read.",
                "The queue's owner may grant it: SELECT fetchq.queue_grant('" + ref.queue + "', '" +
                    std::string(role ? role : "?") + "', 'read');");
        }
        // FOR SHARE, as the queue's owner: a completion under way commits
        // before (and the document is done) or waits for this transaction
        // (and then sees the wait).
        SPIPlanPtr plan = queue_plan(ref.queue, "dependency_lock",
                                     [&] {
                                         return "SELECT status FROM " + docs_rel(ref.queue) +
                                                " WHERE subject = $1 FOR SHARE";
                                     },
                                     {TEXTOID});
        Datum arg = to_text(ref.subject);
        int64_t status = 0;
        uint64_t found = 0;
        as_user(owner, [&] {
            found = queue_execute(ref.queue, plan, &arg, nullptr);
            if (found > 0) status = spi_int(0, 1);
        });
        if (found == 0) refuse_missing(ref, "Queue \"" + ref.queue + "\" has no such document.");
        if (status == core::status_code(DocStatus::kCompleted)) continue;
        if (status == core::status_code(DocStatus::kKilled))
            throw core::Error(core::sqlstate::kInvalidParameterValue,
                              "dependency " + named(ref) + " was killed",
                              "A document waiting on it would never be picked; nothing was sent.",
                              "Retry it first (fetchq.doc_retry), or send without it.");
        out.push_back(ref);
    }
    return out;
}

void record_wait(const std::string& queue, const std::string& subject, TimestampTz next_iteration,
                 const std::vector<DocRef>& deps) {
    SPIPlanPtr forget =
        cached_plan("", "wait_forget_old",
                    [] {
                        return std::string(
                            "DELETE FROM fetchq.doc_dependencies AS e USING fetchq.queues AS q"
                            " WHERE q.name = $1 AND e.queue_id = q.id AND e.subject = $2");
                    },
                    {TEXTOID, TEXTOID});
    SPIPlanPtr wait = cached_plan(
        "", "wait_insert",
        [] {
            return std::string(
                "INSERT INTO fetchq.doc_waits AS w (queue_id, subject, next_iteration, remaining)"
                " SELECT id, $2, $3, $4 FROM fetchq.queues WHERE name = $1"
                " ON CONFLICT (queue_id, subject) DO UPDATE"
                " SET next_iteration = EXCLUDED.next_iteration, remaining = EXCLUDED.remaining");
        },
        {TEXTOID, TEXTOID, TIMESTAMPTZOID, INT4OID});
    SPIPlanPtr edges = cached_plan(
        "", "wait_edges",
        [] {
            return std::string(
                "INSERT INTO fetchq.doc_dependencies"
                " (queue_id, subject, dependency_queue_id, dependency_subject)"
                " SELECT w.id, $2, d.id, r.subject FROM fetchq.queues AS w,"
                " ROWS FROM (pg_catalog.unnest($3::text[]), pg_catalog.unnest($4::text[]))"
                " AS r(queue, subject)"
                " JOIN fetchq.queues AS d ON d.name = r.queue WHERE w.name = $1");
        },
        {TEXTOID, TEXTOID, TEXTARRAYOID, TEXTARRAYOID});
    const std::pair<Datum, Datum> arrays = ref_arrays(deps);
    Datum keys[2] = {to_text(queue), to_text(subject)};
    Datum wait_values[4] = {keys[0], keys[1], TimestampTzGetDatum(next_iteration),
                            Int32GetDatum(static_cast<int32_t>(deps.size()))};
    Datum edge_values[4] = {keys[0], keys[1], arrays.first, arrays.second};
    as_catalog_owner([&] {
        spi_execute(forget, keys, nullptr, false);
        spi_execute(wait, wait_values, nullptr, false);
        spi_execute(edges, edge_values, nullptr, false);
    });
    std::set<std::string> queues;
    for (const DocRef& d : deps) queues.insert(d.queue);
    for (const std::string& q : queues) mark_awaited(q);
}

void forget_wait(const std::string& queue, const std::string& subject) {
    SPIPlanPtr forget =
        cached_plan("", "wait_forget_old",
                    [] {
                        return std::string(
                            "DELETE FROM fetchq.doc_dependencies AS e USING fetchq.queues AS q"
                            " WHERE q.name = $1 AND e.queue_id = q.id AND e.subject = $2");
                    },
                    {TEXTOID, TEXTOID});
    SPIPlanPtr unwait =
        cached_plan("", "wait_forget",
                    [] {
                        return std::string(
                            "DELETE FROM fetchq.doc_waits AS w USING fetchq.queues AS q"
                            " WHERE q.name = $1 AND w.queue_id = q.id AND w.subject = $2");
                    },
                    {TEXTOID, TEXTOID});
    Datum keys[2] = {to_text(queue), to_text(subject)};
    as_catalog_owner([&] {
        spi_execute(forget, keys, nullptr, false);
        spi_execute(unwait, keys, nullptr, false);
    });
}

void release_dependents(const std::string& queue, const std::string& subject) {
    if (!queue_awaited(queue)) return;
    // A request finished without doc_reply leaves no row behind.
    forget_reply_to(queue, subject);
    // Counted down in one statement: a concurrent completion of another of
    // their dependencies updates the same rows and waits for this one.
    SPIPlanPtr count_down = cached_plan(
        "", "wait_count_down",
        [] {
            return std::string("WITH gone AS (") + kDeleteEdgesOn +
                   "), n AS (SELECT queue_id, subject, pg_catalog.count(*) AS n FROM gone"
                   " GROUP BY queue_id, subject)"
                   " UPDATE fetchq.doc_waits AS w SET remaining = w.remaining - n.n FROM n"
                   " WHERE w.queue_id = n.queue_id AND w.subject = n.subject"
                   " RETURNING w.queue_id, w.subject, w.remaining, w.next_iteration";
        },
        {TEXTOID, TEXTOID});
    SPIPlanPtr done = cached_plan("", "wait_done",
                                  [] {
                                      return std::string(
                                          "DELETE FROM fetchq.doc_waits AS w USING fetchq.queues"
                                          " AS q WHERE w.queue_id = $1 AND w.subject = $2"
                                          " AND q.id = w.queue_id RETURNING q.name");
                                  },
                                  {INT4OID, TEXTOID});
    std::vector<Dependent> ready;
    Datum keys[2] = {to_text(queue), to_text(subject)};
    as_catalog_owner([&] {
        const uint64_t n = spi_execute_current(count_down, keys, nullptr);
        std::vector<std::pair<int32_t, Dependent>> zero;
        for (uint64_t row = 0; row < n; ++row) {
            if (spi_int(row, 3) > 0) continue;
            Dependent d;
            d.subject = spi_text(row, 2);
            bool isnull = false;
            d.next_iteration = DatumGetTimestampTz(spi_value(row, 4, &isnull));
            zero.emplace_back(static_cast<int32_t>(spi_int(row, 1)), std::move(d));
        }
        for (auto& [queue_id, d] : zero) {
            Datum values[2] = {Int32GetDatum(queue_id), to_text(d.subject)};
            if (spi_execute(done, values, nullptr, false) == 0) continue;
            d.queue = spi_text(0, 1);
            ready.push_back(std::move(d));
        }
    });
    const TimestampTz now = GetCurrentTransactionStartTimestamp();
    for (const Dependent& d : ready) {
        // As the dependent's queue's owner, restricted: its triggers never
        // run with the rights of the role that completed the dependency.
        const Oid owner = queue_owner_or_invalid(d.queue);
        if (!OidIsValid(owner)) continue;
        const bool due = d.next_iteration <= now;
        SPIPlanPtr plan = queue_plan(d.queue, "wait_release",
                                     [&] {
                                         return "UPDATE " + docs_rel(d.queue) +
                                                " SET status = $3, next_iteration = $2"
                                                " WHERE subject = $1 AND " +
                                                kWaiting;
                                     },
                                     {TEXTOID, TIMESTAMPTZOID, INT4OID});
        Datum values[3] = {
            to_text(d.subject), TimestampTzGetDatum(d.next_iteration),
            Int32GetDatum(core::status_code(due ? DocStatus::kPending : DocStatus::kPlanned))};
        uint64_t n = 0;
        as_user(owner, [&] { n = queue_execute(d.queue, plan, values, nullptr); });
        if (n == 0) continue;
        if (due)
            count_move(d.queue, core::DocMove::kPromote, DocStatus::kPending,
                       static_cast<int64_t>(n));
        else
            note_due(d.next_iteration);
    }
}

void kill_dependents(const std::string& queue, const std::string& subject, const char* how) {
    SPIPlanPtr unwait = cached_plan(
        "", "wait_cancel",
        [] {
            return std::string("WITH gone AS (") + kDeleteEdgesOn +
                   "), w AS (DELETE FROM fetchq.doc_waits AS w USING gone"
                   " WHERE w.queue_id = gone.queue_id AND w.subject = gone.subject"
                   " RETURNING w.queue_id, w.subject)"
                   " SELECT q.name, w.subject FROM w JOIN fetchq.queues AS q ON q.id = w.queue_id";
        },
        {TEXTOID, TEXTOID});
    SPIPlanPtr forget =
        cached_plan("", "wait_forget_old",
                    [] {
                        return std::string(
                            "DELETE FROM fetchq.doc_dependencies AS e USING fetchq.queues AS q"
                            " WHERE q.name = $1 AND e.queue_id = q.id AND e.subject = $2");
                    },
                    {TEXTOID, TEXTOID});
    // Each cause with how it went: the first as said, the next ones killed.
    std::vector<std::pair<DocRef, const char*>> todo{{{queue, subject}, how}};
    while (!todo.empty()) {
        const DocRef cause = todo.back().first;
        const char* went = todo.back().second;
        todo.pop_back();
        if (!queue_awaited(cause.queue)) continue;
        forget_reply_to(cause.queue, cause.subject);
        std::vector<DocRef> dependents;
        Datum keys[2] = {to_text(cause.queue), to_text(cause.subject)};
        as_catalog_owner([&] {
            const uint64_t n = spi_execute_current(unwait, keys, nullptr);
            for (uint64_t row = 0; row < n; ++row)
                dependents.push_back({spi_text(row, 1), spi_text(row, 2)});
            // Their other dependencies no longer count them down.
            for (const DocRef& d : dependents) {
                Datum values[2] = {to_text(d.queue), to_text(d.subject)};
                spi_execute(forget, values, nullptr, false);
            }
        });
        for (const DocRef& d : dependents) {
            const Oid owner = queue_owner_or_invalid(d.queue);
            if (!OidIsValid(owner)) continue;
            SPIPlanPtr plan = queue_plan(d.queue, "wait_kill",
                                         [&] {
                                             return "UPDATE " + docs_rel(d.queue) +
                                                    " SET status = " + status_sql::killed +
                                                    ", iterations = iterations + 1,"
                                                    " last_iteration = now()"
                                                    " WHERE subject = $1 AND " +
                                                    kWaiting;
                                         },
                                         {TEXTOID});
            Datum name = to_text(d.subject);
            const std::string message = "killed: it waited on " + named(cause) + ", " + went;
            const Datum details = cause_details(cause);
            uint64_t n = 0;
            // As the dependent's queue's owner, restricted, whoever killed.
            as_user(owner, [&] {
                n = queue_execute(d.queue, plan, &name, nullptr);
                if (n > 0) insert_log(d.queue, d.subject, message, details, false, std::nullopt);
            });
            if (n == 0) continue;
            count_move_from(d.queue, core::DocMove::kCascade, DocStatus::kPlanned, 1);
            todo.push_back({d, "killed"});
        }
    }
}

void forget_queue_documents(const std::string& queue, const char* how) {
    SPIPlanPtr waits = cached_plan(
        "", "waits_of_queue",
        [] {
            return std::string(
                "WITH q AS (SELECT id FROM fetchq.queues WHERE name = $1),"
                " e AS (DELETE FROM fetchq.doc_dependencies WHERE queue_id = (SELECT id FROM q))"
                " DELETE FROM fetchq.doc_waits WHERE queue_id = (SELECT id FROM q)");
        },
        {TEXTOID});
    Datum name = to_text(queue);
    // Its own waiting documents wait no more.
    as_catalog_owner([&] { spi_execute(waits, &name, nullptr, false); });
    if (!queue_awaited(queue)) return;
    SPIPlanPtr waited = cached_plan(
        "", "waited_in_queue",
        [] {
            return std::string(
                "SELECT DISTINCT e.dependency_subject FROM fetchq.doc_dependencies AS e"
                " JOIN fetchq.queues AS q ON q.id = e.dependency_queue_id WHERE q.name = $1");
        },
        {TEXTOID});
    std::vector<std::string> subjects;
    as_catalog_owner([&] {
        const uint64_t n = spi_execute(waited, &name, nullptr, true);
        for (uint64_t row = 0; row < n; ++row) subjects.push_back(spi_text(row, 1));
    });
    for (const std::string& subject : subjects) kill_dependents(queue, subject, how);
}

void forget_left_documents(const std::string& queue, const std::vector<LeftDocument>& left,
                           const char* how) {
    for (const LeftDocument& d : left) {
        if (d.waiting) forget_wait(queue, d.subject);
        kill_dependents(queue, d.subject, how);
    }
}

}  // namespace fetchq::ops
