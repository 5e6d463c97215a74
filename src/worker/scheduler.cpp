// The scheduler: one per database with the extension. It sleeps on its latch
// until the earliest due moment (a planned document, an expiring lock) or
// fetchq.naptime, then maintains every queue in short transactions, each run
// as the owner of the queue's tables so no user code runs as superuser.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/backoff.hpp"
#include "pg/guard.hpp"
#include "ops/counters/counters.hpp"
#include "ops/documents/doc_dependencies.hpp"
#include "ops/counters/deferred.hpp"
#include "ops/maintenance/counters_recount.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/extension_version.hpp"
#include "pg/spi.hpp"
#include "ops/shared_memory/session_end.hpp"
#include "ops/config/settings.hpp"
#include "ops/shared_memory/shared_state.hpp"
#include "ops/maintenance/maintenance.hpp"
#include "ops/maintenance/purge.hpp"
#include "ops/queues/queue_grants.hpp"
#include "ops/remote_routes/remote_routes.hpp"
#include "ops/schedules/schedule_ticks.hpp"
#include "ops/streams/stream_grants.hpp"
#include "ops/streams/stream_retention.hpp"
#include "ops/queues/queue_lifecycle.hpp"
#include "worker/known_due.hpp"
#include "worker/server_log.hpp"
#include "worker/transaction.hpp"
#include "worker/vacuum.hpp"

extern "C" {
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
}

namespace fetchq::worker {

using namespace fetchq::ops;
namespace {

struct Queue {
    std::string name;
    Oid owner;
    bool deferred;  // counters_mode 'deferred'
};

DbSlot* g_slot = nullptr;
bool g_started = false;      // "started" was logged: a stop is logged too
bool g_fold_at_exit = true;  // a stop folds the deferred counters first

// --- transactions ----------------------------------------------------------

// in_transaction (worker/transaction.hpp) with an SPI connection around f.
template <typename F>
bool in_spi_transaction(Oid user, F&& f, std::string* error) {
    return in_transaction(
        user,
        [&] {
            pg::spi_connect();
            f();
            pg::spi_finish();
        },
        error);
}

// --- catalog ---------------------------------------------------------------

// The version of the extension's SQL in our database (none: not installed).
// Reads the database's name for the log too, the first time. A failed check
// is an error (the launcher restarts us), not "no extension", which would
// keep the database without a scheduler until a CREATE EXTENSION.
std::optional<std::string> extension_version() {
    std::optional<std::string> version;
    std::string error;
    if (!in_spi_transaction(
            InvalidOid,
            [&] {
                pg::pg_call([] {
                    if (log_database()[0] == '\0')
                        if (const char* name = get_database_name(MyDatabaseId))
                            set_log_database(name);
                });
                version = pg::installed_version();
            },
            &error))
        throw std::runtime_error("fetchq: could not look for extension \"fetchq\": " + error);
    return version;
}

std::vector<Queue> list_queues(std::string* error) {
    std::vector<Queue> queues;
    in_spi_transaction(
        InvalidOid,
        [&] {
            SPIPlanPtr plan = pg::cached_plan(
                "", "scheduler_queues",
                [] {
                    // A restore (pg_restore, or psql on a plain dump) adds
                    // the primary keys after every table's rows and sequence
                    // values: a queue without one is still being restored
                    // and is left alone, since writing into it could take
                    // ids or subjects the restore is still to load.
                    return std::string(
                        "SELECT q.name::text, c.relowner, q.counters_mode = 'deferred' "
                        "FROM fetchq.queues q "
                        "JOIN pg_class c ON c.oid = to_regclass('fetchq_data.' || "
                        "quote_ident(q.name || '__docs')) WHERE EXISTS (SELECT "
                        "FROM pg_index i WHERE i.indrelid = c.oid AND "
                        "i.indisprimary) ORDER BY q.name");
                },
                {});
            const uint64_t n = pg::spi_execute(plan, nullptr, nullptr, true);
            for (uint64_t row = 0; row < n; ++row) {
                bool isnull = false;
                Oid owner = DatumGetObjectId(pg::spi_value(row, 2, &isnull));
                const bool deferred = DatumGetBool(pg::spi_value(row, 3, &isnull));
                queues.push_back({pg::spi_text(row, 1), owner, !isnull && deferred});
            }
        },
        error);
    return queues;
}

// Earliest planned document, lock expiry, document expiry or end of
// retention of a queue (DT_NOEND if none): one statement of partial-index
// probes; those of finished documents only when their retention is set.
// Planned for this call only unless the queue's plans are kept: an idle
// queue read again now and then must not push busy queues' plans out.
TimestampTz next_due(const std::string& queue) {
    const auto text = [&] {
        using namespace ops::status_sql;
        const std::string docs = ops::docs_rel(queue);
        const auto oldest = [&](const std::string& status, const char* retention) {
            return "(SELECT min(last_iteration) FROM " + docs + " WHERE status = " + status +
                   " AND q." + retention + " IS NOT NULL) + q." + retention;
        };
        return "SELECT LEAST((SELECT min(next_iteration) FROM " + docs +
               " WHERE status = " + planned +
               " AND lock_upgrade IS NULL), (SELECT min(next_iteration) FROM " + docs +
               " WHERE status = " + active +
               " AND lock_upgrade IS NULL), (SELECT min(expires_at) FROM " + docs +
               " WHERE expires_at IS NOT NULL AND status IN " + waiting + "), " +
               oldest(completed, "completed_retention") + ", " +
               oldest(killed, "killed_retention") + ") FROM fetchq.queues q WHERE q.name = $1";
    };
    Datum name = pg::to_text(queue);
    const uint64_t rows =
        pg::has_plans(queue)
            ? ops::queue_execute(queue, ops::queue_plan(queue, "next_due", text, {TEXTOID}), &name,
                                 nullptr, true, 1)
            : ops::queue_execute_once(queue, text(), {TEXTOID}, &name, nullptr, true, 1);
    bool isnull = true;
    const Datum d = rows == 0 ? (Datum)0 : pg::spi_value(0, 1, &isnull);
    // What planning it put in the relcache goes too (ops/queues/queue_sql.hpp).
    if (!pg::has_plans(queue)) ops::release_queue_relcache(queue);
    return isnull ? DT_NOEND : DatumGetTimestampTz(d);
}

// --- bookkeeping in shared memory -----------------------------------------

// The units of work of each task (a queue, a periodic job, a listing) that
// failed on their last try and have not succeeded since. A task has
// recovered once none is left: a queue that waits out its backoff after a
// failure is still failing, though the rounds meanwhile report no error.
struct FailingUnit {
    int task;
    std::string queue;  // empty: of no queue
    std::string unit;
    bool operator<(const FailingUnit& o) const {
        return std::tie(task, queue, unit) < std::tie(o.task, o.queue, o.unit);
    }
};
std::set<FailingUnit> g_failing;

void unit_failed(int task, const std::string& queue, const char* unit) {
    g_failing.insert({task, queue, unit});
}

void unit_succeeded(int task, const std::string& queue, const char* unit) {
    if (!g_failing.empty()) g_failing.erase({task, queue, unit});
}

bool task_failing(int task) {
    for (const FailingUnit& f : g_failing)
        if (f.task == task) return true;
    return false;
}

// One run of `task`: `errors` failed units in it (counted once each), the
// last one's text in `error` (nullptr: none failed). A run without error
// while no unit of the task is failing any more marks the recovery.
void record(int task, int64_t rows, double ms, const std::string* error, TimestampTz next,
            int64_t errors = 1) {
    const bool failing = task_failing(task);
    const TimestampTz now = GetCurrentTimestamp();
    SharedState* s = shared();
    pg::pg_call([&] { LWLockAcquire(s->lock, LW_EXCLUSIVE); });
    TaskStats& t = g_slot->tasks[task];
    t.last_run = now;
    t.runs++;
    t.rows_last = rows;
    t.rows_total += rows;
    t.last_ms = ms;
    t.next_due = next;
    if (error != nullptr) {
        t.errors += errors;
        strlcpy(t.last_error, error->c_str(), sizeof(t.last_error));
        t.last_error_at = now;
        t.recovered_at = 0;
    } else if (t.last_error_at != 0 && t.recovered_at == 0 && !failing) {
        t.recovered_at = now;
    }
    pg::pg_call([&] { LWLockRelease(s->lock); });
}

double ms_since(TimestampTz start) {
    return static_cast<double>(GetCurrentTimestamp() - start) / 1000.0;
}

// --- the round -------------------------------------------------------------

// The four tasks of a queue's round, each a step of one transaction per batch,
// in this order: orphans (dead documents, then expired locks), promote,
// expire, purge.
constexpr int kQueueTasks[] = {kTaskOrphans, kTaskPromote, kTaskExpire, kTaskPurge};

struct RoundTotals {
    int64_t rows[kTaskCount] = {};  // promoted, orphans (rescheduled + killed), ...
    // A queue whose batch failed counts once, under the task of the step that
    // failed (the transaction stops there): one cause, one error.
    int64_t errors[kTaskCount] = {};
    std::string error[kTaskCount];
    int failures = 0;
};

// Queues whose maintenance failed (an owner's trigger that raised, or ran past
// fetchq.task_timeout) wait before their next try, longer after each failure
// in a row, so that one queue cannot take every round's time. The same for a
// queue's periodic jobs and for the release of its session-bound documents.
// The failure log keeps the series of each unit, and so its next try.
bool waiting(const std::string& queue, const std::string& what, TimestampTz now) {
    return failure_log().retry_at(queue, what) > now;
}

std::string maintenance_of(const std::string& queue) {
    return "maintenance of queue \"" + queue + "\"";
}

// Whether the queue was dropped (its tables are gone, on the latest state).
bool queue_dropped(const std::string& queue) {
    bool gone = false;
    std::string error;
    return in_spi_transaction(
               InvalidOid, [&] { gone = !OidIsValid(ops::queue_owner_or_invalid(queue)); },
               &error) &&
           gone;
}

// Maintains one queue in batches; returns its next due moment.
TimestampTz maintain(const Queue& q, RoundTotals* totals, TimestampTz now) {
    if (const TimestampTz retry = failure_log().retry_at(q.name, maintenance_of(q.name));
        retry > now)
        return retry;
    TimestampTz due = DT_NOEND;
    // An idle queue costs nothing while its due moment holds
    // (worker/known_due.hpp), else one statement (next_due): its tasks run
    // only when something in it is due.
    if (known_due(q.name, GetCurrentTimestamp(), &due)) return due;
    std::string error;
    DueReading reading = begin_due_reading();
    const bool read = in_spi_transaction(
        q.owner, [&] { due = next_due(q.name); }, &error);
    if (read)
        remember_due(q.name, reading, due);
    else
        forget_due_of(q.name);
    if (read && due > GetCurrentTimestamp()) return due;
    const int32_t limit = settings.batch_size;
    for (int batch = 0; batch < 1000; ++batch) {
        // A cancel between two units is dropped, as in the main loop: it
        // must not end the scheduler.
        pg::pg_call([] {
            QueryCancelPending = false;
            CHECK_FOR_INTERRUPTS();
        });
        MaintenanceCounts counts;
        int64_t expired = 0, purged = 0;
        error.clear();
        reading = begin_due_reading();
        // The step under way: the task a failure is counted under.
        int step = kTaskOrphans;
        bool ok = in_spi_transaction(
            q.owner,
            [&] {
                // maintain_queue's steps, in its order, one at a time.
                step = kTaskOrphans;
                counts.killed = mark_dead(q.name, limit);
                counts.rescheduled = reschedule_orphans(q.name, limit);
                step = kTaskPromote;
                counts.activated = promote_planned(q.name, limit);
                step = kTaskExpire;
                expired = expire_documents(q.name, limit);
                step = kTaskPurge;
                purged = purge_finished(q.name, limit);
                // When the next promotion (or lock expiry...) is due.
                step = kTaskPromote;
                due = next_due(q.name);
            },
            &error);
        if (!ok) {
            forget_due_of(q.name);
            // Dropped while we worked on it (queue_drop, a temporary queue's
            // end): nothing failed, and nothing is left to maintain.
            if (queue_dropped(q.name)) return DT_NOEND;
            totals->failures++;
            totals->errors[step]++;
            totals->error[step] = "queue " + q.name + ": " + error;
            unit_failed(step, q.name, "maintenance");
            log_failure(q.name, maintenance_of(q.name), error);
            return failure_log().retry_at(q.name, maintenance_of(q.name));
        }
        totals->rows[kTaskPromote] += counts.activated;
        totals->rows[kTaskOrphans] += counts.rescheduled + counts.killed;
        totals->rows[kTaskExpire] += expired;
        totals->rows[kTaskPurge] += purged;
        for (int task : kQueueTasks) unit_succeeded(task, q.name, "maintenance");
        if (!failure_log().empty()) log_recovery(q.name, maintenance_of(q.name));
        const bool more = counts.activated == limit || counts.rescheduled == limit ||
                          counts.killed == limit || expired == limit || purged >= limit;
        remember_due(q.name, reading, due);
        if (!more) break;
    }
    return due;
}

std::string release_of(const std::string& queue) {
    return "release of session-bound documents of queue \"" + queue + "\"";
}

// Drops a temporary queue as its owner: DROP TABLE runs no user code as
// superuser.
void drop_temporary(const Queue& q, std::string* error) {
    std::string failed;
    if (!in_spi_transaction(
            q.owner,
            [&] {
                ops::forget_queue_documents(q.name, "dropped with its queue");
                drop_queue(q.name);
            },
            &failed)) {
        *error = "drop of temporary queue " + q.name + ": " + failed;
        unit_failed(kTaskSessions, q.name, "drop");
        log_failure(q.name, "drop of temporary queue \"" + q.name + "\"", failed);
    } else {
        unit_succeeded(kTaskSessions, q.name, "drop");
        if (!failure_log().empty())
            log_recovery(q.name, "drop of temporary queue \"" + q.name + "\"");
    }
}

// Temporary queues left idle past their idle_timeout (a pooled connection
// keeps its session, and so its temporary queues, after the client left).
// Looked for every 5 s: one small query.
constexpr int64 kIdleCheckUsecs = 5 * USECS_PER_SEC;

std::vector<std::string> drop_idle_temporary_queues(const std::vector<Queue>& queues) {
    static TimestampTz last_check = 0;
    const TimestampTz start = GetCurrentTimestamp();
    if (start - last_check < kIdleCheckUsecs) return {};
    last_check = start;
    std::vector<std::string> idle;
    std::string error;
    if (!in_spi_transaction(
            InvalidOid, [&] { idle = idle_temporary_queues(start); }, &error)) {
        unit_failed(kTaskSessions, {}, "idle temporary queues");
        record(kTaskSessions, 0, ms_since(start), &error, 0);
        return {};
    }
    unit_succeeded(kTaskSessions, {}, "idle temporary queues");
    std::vector<std::string> dropped;
    for (const Queue& q : queues) {
        if (std::find(idle.begin(), idle.end(), q.name) == idle.end()) continue;
        drop_temporary(q, &error);
        dropped.push_back(q.name);
    }
    if (!dropped.empty())
        record(kTaskSessions, static_cast<int64_t>(dropped.size()), ms_since(start),
               error.empty() ? nullptr : &error, 0);
    return dropped;
}

// The grants of roles that were dropped (DROP ROLE cannot see them: they
// are rows of fetchq.queue_grants and fetchq.stream_grants), removed with the
// same cadence; until then they apply to nobody (ops/queues/queue_access.hpp,
// ops/streams/stream_access.hpp).
void forget_dropped_roles() {
    static TimestampTz last_check = 0;
    const TimestampTz start = GetCurrentTimestamp();
    if (start - last_check < kIdleCheckUsecs) return;
    last_check = start;
    int64_t removed = 0;
    std::string error;
    if (!in_spi_transaction(
            InvalidOid,
            [&] {
                removed = ops::remove_grants_of_dropped_roles() +
                          ops::remove_stream_grants_of_dropped_roles();
            },
            &error)) {
        unit_failed(kTaskSessions, {}, "dropped roles");
        record(kTaskSessions, 0, ms_since(start), &error, 0);
        return;
    }
    unit_succeeded(kTaskSessions, {}, "dropped roles");
    if (removed > 0) record(kTaskSessions, removed, ms_since(start), nullptr, 0);
}

// Stream messages every group committed, fetchq.batch_size per stream and
// run, at most once a second, after the groups idle for longer than their
// stream's group_max_idle went; once a minute, the rows of dropped streams.
void retain_stream_messages() {
    static TimestampTz last_run = 0;
    const TimestampTz start = GetCurrentTimestamp();
    if (start - last_run < USECS_PER_SEC) return;
    last_run = start;
    int64_t removed = 0;
    std::string error;
    static TimestampTz last_orphans = 0;
    const bool orphans = start - last_orphans >= 60 * USECS_PER_SEC;
    if (orphans) last_orphans = start;
    const bool ok = in_spi_transaction(
        InvalidOid,
        [&] {
            removed = ops::expire_idle_groups() + ops::retain_streams(settings.batch_size);
            if (orphans) removed += ops::remove_stream_orphans();
        },
        &error);
    if (ok)
        unit_succeeded(kTaskStreams, {}, "retention");
    else
        unit_failed(kTaskStreams, {}, "retention");
    record(kTaskStreams, removed, ms_since(start), ok ? nullptr : &error, 0);
}

// The origin rows of documents a remote route delivered (fetchq.doc_origins)
// whose document is gone (completed and purged, dropped, expired, deleted
// by hand) or is no longer the delivered one (pushed again here): every 5 s,
// after the round's queues and schedules, batches of fetchq.batch_size rows
// of each queue that has some, each in a transaction of its own, at most
// kOriginBatches per run; the next run goes on where this one stopped (the
// queue, and in each queue the last subject checked), so a large table is
// walked over several runs. Deleting in each path that deletes documents
// would cost every deletion a probe, in queues without origins too, and miss
// a DELETE made by hand; while no queue has origin rows, a run is one
// statement (a probe per queue).
constexpr int kOriginBatches = 50;
std::map<std::string, std::string> g_origin_cursor;  // queue -> last subject checked
std::string g_origin_next;                           // the queue the next run starts with

void sweep_doc_origins() {
    static TimestampTz last_run = 0;
    const TimestampTz start = GetCurrentTimestamp();
    if (start - last_run < kIdleCheckUsecs) return;
    last_run = start;
    std::vector<std::string> queues;
    std::string error;
    if (!in_spi_transaction(
            InvalidOid, [&] { queues = ops::queues_with_origins(); }, &error)) {
        unit_failed(kTaskOrigins, {}, "list");
        log_failure(std::string(), "sweep of fetchq.doc_origins", error);
        record(kTaskOrigins, 0, ms_since(start), &error, 0);
        return;
    }
    unit_succeeded(kTaskOrigins, {}, "list");
    // Cursors and failures of queues without origin rows any more go.
    std::map<std::string, std::string> cursors;
    for (const std::string& q : queues) cursors[q] = g_origin_cursor[q];
    g_origin_cursor.swap(cursors);
    for (auto it = g_failing.begin(); it != g_failing.end();)
        it = it->task != kTaskOrigins || it->queue.empty() || g_origin_cursor.count(it->queue)
                 ? std::next(it)
                 : g_failing.erase(it);
    // From the queue the last run stopped in, round the list once (in this
    // process's order of names, not the database's collation).
    std::sort(queues.begin(), queues.end());
    std::rotate(queues.begin(), std::lower_bound(queues.begin(), queues.end(), g_origin_next),
                queues.end());
    g_origin_next.clear();
    int64_t removed = 0, errors = 0;
    int batches = 0;
    for (const std::string& q : queues) {
        if (batches == kOriginBatches) {
            g_origin_next = q;
            break;
        }
        const std::string what = "sweep of the origins of queue \"" + q + "\"";
        if (waiting(q, what, start)) continue;
        std::string& cursor = g_origin_cursor[q];
        bool failed = false, done = false;
        while (!done && batches < kOriginBatches) {
            pg::pg_call([] {
                QueryCancelPending = false;
                CHECK_FOR_INTERRUPTS();
            });
            ++batches;
            ops::OriginSweep r;
            std::string e;
            if (!in_spi_transaction(
                    InvalidOid, [&] { r = ops::sweep_origins(q, cursor, settings.batch_size); },
                    &e)) {
                unit_failed(kTaskOrigins, q, "sweep");
                log_failure(q, what, e);
                error = "queue " + q + ": " + e;
                errors++;
                failed = true;
                break;
            }
            removed += r.removed;
            done = r.at_end;
            cursor = done ? std::string() : r.last;
        }
        if (!failed) {
            unit_succeeded(kTaskOrigins, q, "sweep");
            if (!failure_log().empty()) log_recovery(q, what);
        }
        if (!failed && !done) {  // out of batches in the middle of this queue
            g_origin_next = q;
            break;
        }
    }
    record(kTaskOrigins, removed, ms_since(start), errors > 0 ? &error : nullptr, 0, errors);
}

// Session-owned documents and temporary queues of sessions that ended.
// Runs when a session exit flagged it, on the first round (after a crash
// nobody flags), and every minute as a safety net.
// Returns the temporary queues it dropped.
std::vector<std::string> release_ended_sessions(const std::vector<Queue>& queues, bool forced) {
    static TimestampTz last_run = 0;
    const TimestampTz start = GetCurrentTimestamp();
    const bool flagged = pg_atomic_exchange_u32(&g_slot->sessions_ended, 0) != 0;
    if (!flagged && !forced && start - last_run < 60 * USECS_PER_SEC) return {};
    last_run = start;
    int64_t released = 0;
    std::string error, failed;
    std::vector<int64_t> live;
    std::vector<std::string> ended;
    if (!in_spi_transaction(
            InvalidOid,
            [&] {
                live = live_session_keys();
                ended = ended_temporary_queues(live);
            },
            &error)) {
        // Without the list of live sessions every session-bound document
        // would look orphaned: try again later rather than guess.
        pg_atomic_write_u32(&g_slot->sessions_ended, 1);
        unit_failed(kTaskSessions, {}, "live sessions");
        record(kTaskSessions, 0, ms_since(start), &error, 0);
        return {};
    }
    unit_succeeded(kTaskSessions, {}, "live sessions");
    for (const Queue& q : queues) {
        bool is_ended = false;
        for (const std::string& e : ended) is_ended = is_ended || e == q.name;
        if (is_ended) {
            drop_temporary(q, &error);
            continue;
        }
        if (waiting(q.name, release_of(q.name), start)) {
            // Tried again on a later run; the safety net runs every minute.
            pg_atomic_write_u32(&g_slot->sessions_ended, 1);
            continue;
        }
        if (!in_spi_transaction(
                q.owner,
                [&] { released += release_session_locks(q.name, live, settings.batch_size); },
                &failed)) {
            error = "queue " + q.name + ": " + failed;
            unit_failed(kTaskSessions, q.name, "release");
            log_failure(q.name, release_of(q.name), failed);
        } else {
            unit_succeeded(kTaskSessions, q.name, "release");
            if (!failure_log().empty()) log_recovery(q.name, release_of(q.name));
        }
    }
    record(kTaskSessions, released + static_cast<int64_t>(ended.size()), ms_since(start),
           error.empty() ? nullptr : &error, 0);
    return ended;
}

std::string job_of(const PeriodicJob& job) {
    if (job.task == "lgp") return "job lgp";
    return "job " + job.task + " of queue \"" + job.queue + "\"";
}

// The due periodic jobs ('sts' snapshots, 'drp' retention, 'lgp' pack):
// claimed as superuser, each run in its own transaction as the queue's owner.
// Returns when the next one is due.
TimestampTz run_periodic_jobs() {
    const TimestampTz start = GetCurrentTimestamp();
    std::vector<PeriodicJob> jobs;
    TimestampTz next = DT_NOEND;
    std::string error;
    in_spi_transaction(
        InvalidOid, [&] { jobs = claim_due_jobs(100); }, &error);
    std::vector<Queue> queues;
    if (!jobs.empty()) queues = list_queues(&error);
    int64_t snapshots = 0, retentions = 0;
    std::string snap_error, drop_error;
    for (const PeriodicJob& job : jobs) {
        Oid owner = InvalidOid;
        bool known = job.task == "lgp";
        for (const Queue& q : queues)
            if (q.name == job.queue) {
                owner = q.owner;
                known = true;
            }
        if (!known) continue;  // a job row of a queue without tables
        // 'lgp' is of no queue ('*').
        const std::string queue = job.task == "lgp" ? std::string() : job.queue;
        if (!queue.empty() && waiting(queue, job_of(job), start)) continue;
        std::string failed;
        const bool ok = in_spi_transaction(
            owner, [&] { run_periodic_job(job); }, &failed);
        const bool is_snapshot = job.task == "sts";
        const int task = is_snapshot ? kTaskSnapshot : kTaskRetention;
        if (ok) {
            (is_snapshot ? snapshots : retentions)++;
            unit_succeeded(task, queue, job.task.c_str());
            if (!failure_log().empty()) log_recovery(queue, job_of(job));
        } else {
            (is_snapshot ? snap_error : drop_error) = job.task + " " + job.queue + ": " + failed;
            unit_failed(task, queue, job.task.c_str());
            log_failure(queue, job_of(job), failed);
        }
    }
    // A failed look at fetchq.jobs (a role holding a lock on it, say) must
    // not leave the jobs without a next run: try again after a naptime.
    if (!in_spi_transaction(
            InvalidOid, [&] { next = next_job_due(); }, &error))
        next = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), settings.naptime_ms);
    if (!jobs.empty()) {
        const double ms = ms_since(start);
        record(kTaskSnapshot, snapshots, ms, snap_error.empty() ? nullptr : &snap_error, next);
        record(kTaskRetention, retentions, ms, drop_error.empty() ? nullptr : &drop_error, next);
    }
    return next;
}

// A queue made again under a dropped one's name starts with no backoff and
// no series of failures.
void forget_dropped_queues(const std::vector<Queue>& queues) {
    auto listed = [&](const std::string& name) {
        for (const Queue& q : queues)
            if (q.name == name) return true;
        return false;
    };
    failure_log().retain(listed);
    for (auto it = g_failing.begin(); it != g_failing.end();)
        it = it->queue.empty() || listed(it->queue) ? std::next(it) : g_failing.erase(it);
}

// A failing schedule stays due: one no longer due was paused or dropped, and
// fails no more.
void forget_schedules_not_due(const std::vector<ops::DueSchedule>& due) {
    auto listed = [&](const FailingUnit& f) {
        for (const ops::DueSchedule& s : due)
            if (s.queue == f.queue && s.name == f.unit) return true;
        return f.queue.empty();  // the list itself
    };
    for (auto it = g_failing.begin(); it != g_failing.end();)
        it = it->task != kTaskSchedules || listed(*it) ? std::next(it) : g_failing.erase(it);
}

// Periodic schedules: each due one in a transaction of its own, its ticks
// pushed as its owner and its next tick moved (ops/schedules/schedule_ticks.hpp).
// One that fails (its owner lost the right to push) stays due, is logged at
// WARNING once a minute and waits as a failing queue does; worker_status
// shows it under task `schedules`. Returns the earliest next tick.
constexpr int32_t kSchedulesPerRound = 100;
TimestampTz run_schedules(TimestampTz start) {
    std::vector<ops::DueSchedule> due;
    TimestampTz next = DT_NOEND;
    std::string error;
    if (!in_spi_transaction(
            InvalidOid, [&] { due = ops::due_schedules(start, kSchedulesPerRound, &next); },
            &error)) {
        unit_failed(kTaskSchedules, {}, "list");
        log_failure(std::string(), "periodic schedules", error);
        record(kTaskSchedules, 0, ms_since(start), &error, 0);
        return next;
    }
    unit_succeeded(kTaskSchedules, {}, "list");
    forget_schedules_not_due(due);
    int64_t pushed = 0, errors = 0;
    for (const ops::DueSchedule& s : due) {
        const std::string what = "schedule \"" + s.name + "\"";
        if (waiting(s.queue, what, start)) continue;
        std::string failed;
        TimestampTz after = DT_NOEND;
        int64_t queued = 0;
        if (!in_spi_transaction(
                InvalidOid,
                [&] { queued = ops::run_schedule(s.id, GetCurrentTimestamp(), &after); },
                &failed)) {
            unit_failed(kTaskSchedules, s.queue, s.name.c_str());
            log_failure(s.queue, what, failed, true);
            error = failed;
            errors++;
            continue;
        }
        unit_succeeded(kTaskSchedules, s.queue, s.name.c_str());
        pushed += queued;
        if (!failure_log().empty()) log_recovery(s.queue, what);
        // Its next tick: the scheduler wakes for it.
        if (after < next) next = after;
    }
    // More were due than one round takes: the next round comes at once.
    if (due.size() == static_cast<std::size_t>(kSchedulesPerRound)) next = start;
    record(kTaskSchedules, pushed, ms_since(start), errors > 0 ? &error : nullptr,
           next == DT_NOEND ? 0 : next, errors);
    return next;
}

// --- deferred counters (ops/counters/deferred.hpp) -------------------------

// The last round listed a deferred queue: fold every counters_fold_interval.
bool g_any_deferred = false;

// Folds what shared memory holds of this database's deferred queues into
// fetchq.counters, in one transaction; a queue whose catalog row a
// queue_set_counters or metric_reset holds waits for the next fold.
void fold_counters() {
    if (ops::deferred_queues().empty()) return;
    std::string error;
    if (!in_spi_transaction(
            InvalidOid, [] { ops::counters_fold(std::nullopt); }, &error))
        log_failure(std::string(), "fold of deferred counters", error);
    else if (!failure_log().empty())
        log_recovery(std::string(), "fold of deferred counters");
}

// The first round since shared memory was set up (a start, or the restart
// after a crash, which lost the changes shared memory held): the status
// counters of every deferred queue are recounted from its documents. A queue
// that fails is tried again at the next round.
void recount_deferred(const std::vector<Queue>& queues) {
    if (!ops::deferred_recount_needed()) return;
    bool all = true;
    for (const Queue& q : queues) {
        if (!q.deferred) continue;
        std::string error;
        const std::string what = "recount of the counters of queue \"" + q.name + "\"";
        if (!in_spi_transaction(
                q.owner, [&] { ops::recount_status_counters(q.name); }, &error)) {
            log_failure(q.name, what, error);
            all = false;
        } else if (!failure_log().empty()) {
            log_recovery(q.name, what);
        }
    }
    if (all) ops::deferred_recount_done();
}

// Maintains every queue; returns when the queues need the next round.
TimestampTz run_round() {
    const TimestampTz start = GetCurrentTimestamp();
    // While we compute, commits only note what they make due (noted_due):
    // folded in after the round (take_noted_due), it costs no extra round.
    // Waking us for each would chain rounds back to back under load.
    pg_atomic_write_u64(&g_slot->next_wake, 0);
    TimestampTz next = TimestampTzPlusMilliseconds(start, settings.naptime_ms);
    std::string error;
    std::vector<Queue> queues = list_queues(&error);
    RoundTotals totals;
    if (!error.empty()) {
        // Not a queue's failure: counted once, under promote.
        totals.failures++;
        totals.errors[kTaskPromote]++;
        totals.error[kTaskPromote] = error;
        unit_failed(kTaskPromote, {}, "queue list");
    } else {
        unit_succeeded(kTaskPromote, {}, "queue list");
        if (!failure_log().empty() || !g_failing.empty()) forget_dropped_queues(queues);
        std::vector<std::string> names;
        g_any_deferred = false;
        for (const Queue& q : queues) {
            names.push_back(q.name);
            g_any_deferred = g_any_deferred || q.deferred;
        }
        retain_known_dues(names);
        recount_deferred(queues);
    }
    static bool first_round = true;
    std::vector<std::string> dropped = release_ended_sessions(queues, first_round);
    for (std::string& idle : drop_idle_temporary_queues(queues)) dropped.push_back(std::move(idle));
    forget_dropped_roles();
    retain_stream_messages();
    first_round = false;
    for (const Queue& q : queues) {
        bool gone = false;
        for (const std::string& name : dropped) gone = gone || name == q.name;
        if (gone) continue;
        TimestampTz due = maintain(q, &totals, start);
        if (due < next) next = due;
    }
    if (const TimestampTz ticks = run_schedules(start); ticks < next) next = ticks;
    // Once the due work of the round is done.
    sweep_doc_origins();
    const double ms = ms_since(start);
    for (int task : kQueueTasks)
        record(task, totals.rows[task], ms, totals.errors[task] ? &totals.error[task] : nullptr,
               next, totals.errors[task]);
    // The detail of each round: DEBUG1 unless fetchq.log_level says otherwise.
    const long promoted = static_cast<long>(totals.rows[kTaskPromote]);
    const long orphans = static_cast<long>(totals.rows[kTaskOrphans]);
    const long expired = static_cast<long>(totals.rows[kTaskExpire]);
    if (promoted + orphans + expired > 0) {
        pg::pg_call([&] {
            ereport(settings.log_level,
                    (errmsg("fetchq scheduler for database \"%s\": %ld documents promoted, %ld "
                            "orphans handled, %ld expired in %.1f ms",
                            log_database(), promoted, orphans, expired, ms)));
        });
    }
    pg::pg_call([] { (void)pgstat_report_stat(false); });
    if (totals.failures == 0) g_slot->failures = 0;
    return next;
}

// --- vacuum of hot queue tables -------------------------------------------

// The statistics of every queue table are read every quarter of
// fetchq.vacuum_interval, but not more often than every 5 s (reading them
// costs with many queues) unless the interval itself is shorter.
constexpr int kMinVacuumCheckMs = 5000;
TimestampTz g_last_vacuum_check = 0;

// Between rounds, outside any transaction: VACUUM runs its own. The period
// is computed from the settings each time, so a reload applies at once.
void maybe_vacuum() {
    const TimestampTz start = GetCurrentTimestamp();
    const int every =
        Min(settings.vacuum_interval_ms, Max(kMinVacuumCheckMs, settings.vacuum_interval_ms / 4));
    if (start < TimestampTzPlusMilliseconds(g_last_vacuum_check, every)) return;
    g_last_vacuum_check = start;
    const VacuumRound r = vacuum_hot_tables();
    if (r.error.empty())
        unit_succeeded(kTaskVacuum, {}, "vacuum");
    else
        unit_failed(kTaskVacuum, {}, "vacuum");
    record(kTaskVacuum, r.vacuumed, ms_since(start), r.error.empty() ? nullptr : &r.error,
           TimestampTzPlusMilliseconds(start, every));
}

// The earliest moment commits made due since the last call (DT_NOEND: none).
TimestampTz take_noted_due() {
    return static_cast<TimestampTz>(
        pg_atomic_exchange_u64(&g_slot->noted_due, static_cast<uint64>(DT_NOEND)));
}

// Sleeps until `until` (at most naptime). Commits compare what they make due
// with `queues_due`, the moment the queues expect their next round, and set
// our latch when it is earlier. Returns true when woken by the latch, or at
// once when a commit noted an earlier moment just before next_wake was set.
bool sleep_until(TimestampTz until, TimestampTz queues_due) {
    pg_atomic_write_u64(&g_slot->next_wake, static_cast<uint64>(queues_due));
    pg_memory_barrier();
    const TimestampTz noted = take_noted_due();
    if (noted < queues_due) return true;
    // Later than the round: kept for the next one.
    if (noted != DT_NOEND) ops::note_due_in(*g_slot, noted);
    // Rounded up: waking a little early would only spin until the moment.
    long ms = static_cast<long>((until - GetCurrentTimestamp() + 999) / 1000);
    if (ms <= 0) return false;
    if (ms > settings.naptime_ms) ms = settings.naptime_ms;
    const int rc =
        WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, ms, PG_WAIT_EXTENSION);
    ResetLatch(MyLatch);
    return (rc & WL_LATCH_SET) != 0;
}

// --- attach / detach -------------------------------------------------------

void detach(int, Datum) {
    SharedState* s = shared();
    if (s == nullptr || g_slot == nullptr) return;
    int state = kSlotFree;
    char paused_for[sizeof(g_slot->paused_for)] = "";
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    if (g_slot->pid == MyProcPid) {
        state = g_slot->state;
        strlcpy(paused_for, g_slot->paused_for, sizeof(paused_for));
        if (g_slot->state == kSlotRunning || g_slot->state == kSlotStarting) {
            // Not a planned exit: the launcher restarts us after a backoff.
            g_slot->failures++;
            g_slot->state = kSlotBackoff;
            g_slot->retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
                                                           core::backoff_ms(g_slot->failures));
        }
        g_slot->pid = 0;
        g_slot->latch = nullptr;
    }
    LWLockRelease(s->lock);
    wake_launcher();
    // leave_without_extension said why already.
    if (!g_started || state == kSlotNoExtension) return;
    // An unplanned stop (a SIGTERM, an error) says why in the line before.
    if (state == kSlotPaused)
        ereport(LOG, (errmsg("fetchq scheduler for database \"%s\" will stop because of %s",
                             log_database(), paused_for[0] ? paused_for : "another command")));
    else
        ereport(LOG,
                (errmsg("fetchq scheduler for database \"%s\" shutting down", log_database())));
}

bool attach(Oid dboid) {
    SharedState* s = shared();
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    g_slot = find_slot(dboid);
    if (g_slot != nullptr && g_slot->pid == 0) {
        g_slot->pid = MyProcPid;
        g_slot->latch = MyLatch;
        g_slot->state = kSlotStarting;  // running once the extension is found
        g_slot->started_at = GetCurrentTimestamp();
        pg_atomic_init_u64(&g_slot->next_wake, static_cast<uint64>(DT_NOEND));
        pg_atomic_init_u64(&g_slot->noted_due, static_cast<uint64>(DT_NOEND));
        pg_atomic_init_u32(&g_slot->sessions_ended, 0);
        pg_atomic_init_u32(&g_slot->ended_next, 0);
        for (auto& k : g_slot->ended_keys) pg_atomic_init_u64(&k, 0);
    } else {
        g_slot = nullptr;
    }
    LWLockRelease(s->lock);
    return g_slot != nullptr;
}

// The extension is there: the slot runs (unless a DROP DATABASE already
// asked us to leave) and the log says so.
void start_running() {
    SharedState* s = shared();
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    if (g_slot->state == kSlotStarting) g_slot->state = kSlotRunning;
    g_slot->no_extension_logged = false;
    LWLockRelease(s->lock);
    g_started = true;
    ereport(LOG, (errmsg("fetchq scheduler for database \"%s\" started", log_database())));
}

// A planned stop for want of the extension: the launcher starts us again
// after a CREATE EXTENSION. `dropped`: it was there when we started.
[[noreturn]] void leave_without_extension(bool dropped) {
    // Nothing to fold into: the catalog is gone (install_check drops the
    // database's entries at the next CREATE EXTENSION).
    g_fold_at_exit = false;
    SharedState* s = shared();
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    const bool said = g_slot->no_extension_logged;
    g_slot->no_extension_logged = true;
    g_slot->state = kSlotNoExtension;
    LWLockRelease(s->lock);
    if (dropped)
        ereport(LOG, (errmsg("fetchq scheduler for database \"%s\" will stop because extension "
                             "\"fetchq\" was dropped",
                             log_database()),
                      errdetail("CREATE EXTENSION fetchq in the database starts it again.")));
    else
        ereport(said ? DEBUG1 : LOG,
                (errmsg("fetchq scheduler for database \"%s\" will stop because extension "
                        "\"fetchq\" is not installed",
                        log_database()),
                 errdetail("CREATE EXTENSION fetchq in the database starts it again.")));
    proc_exit(0);
}

void apply_lock_timeout() {
    char value[32];
    snprintf(value, sizeof(value), "%d", settings.lock_timeout_ms);
    SetConfigOption("lock_timeout", value, PGC_SUSET, PGC_S_OVERRIDE);
}

void detach_guarded(int code, Datum arg) {
    pg::callback_entry(LOG, "scheduler_exit", [&] { detach(code, arg); });
}

// A stop (a clean shutdown sends SIGTERM): what shared memory holds of this
// database's deferred counters is folded first, in a transaction of its
// own, since a stop of the server loses it.
void fold_at_exit(int, Datum) {
    pg::callback_entry(LOG, "counters_fold_at_exit", [] {
        if (!g_started || !g_fold_at_exit || ops::deferred_queues().empty()) return;
        pg::pg_call([] { AbortOutOfAnyTransaction(); });
        fold_counters();
    });
}

// A SIGHUP: the configuration file again.
void reload_if_asked() {
    if (!ConfigReloadPending) return;
    ConfigReloadPending = false;
    ProcessConfigFile(PGC_SIGHUP);
    apply_lock_timeout();
}

// The library was upgraded and ALTER EXTENSION fetchq UPDATE has not run
// yet: the SQL API refuses every call (pg/extension_version.hpp), and so
// would the queue tasks. Says so once, then looks again every naptime.
void wait_for_update(const std::string& installed) {
    ereport(LOG, (errmsg("fetchq scheduler for database \"%s\" waits for the extension's update",
                         log_database()),
                  errdetail("The extension's SQL in the database is version %s, the library is "
                            "version %s.",
                            installed.c_str(), pg::library_version()),
                  errhint("Run ALTER EXTENSION fetchq UPDATE in the database.")));
    while (true) {
        WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, settings.naptime_ms,
                  PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
        reload_if_asked();
        const std::optional<std::string> version = extension_version();
        if (!version) leave_without_extension(true);
        if (*version == pg::library_version()) return;
    }
}

// The loop of a connected scheduler; returns only by proc_exit.
void scheduler_loop() {
    pgstat_report_appname("fetchq scheduler");
    apply_lock_timeout();
    const std::optional<std::string> version = extension_version();
    if (!version) leave_without_extension(false);
    if (*version != pg::library_version()) wait_for_update(*version);
    start_running();
    bool woken = true;
    TimestampTz queues_due = 0, jobs_due = 0, fold_due = 0, last_fold = 0;
    while (true) {
        // A cancel (pg_cancel_backend) stops the statement a task runs, which
        // that task survives; between tasks there is nothing to cancel.
        QueryCancelPending = false;
        CHECK_FOR_INTERRUPTS();
        reload_if_asked();
        if (!settings.enabled) {
            const TimestampTz later =
                TimestampTzPlusMilliseconds(GetCurrentTimestamp(), settings.naptime_ms);
            woken = sleep_until(later, later) || woken;
            continue;
        }
        // Queue rounds when due or woken (a commit, a session exit, a
        // reload); periodic jobs on their own schedule, without a queue round.
        const TimestampTz now = GetCurrentTimestamp();
        if (woken || now >= queues_due) queues_due = run_round();
        if (now >= jobs_due) jobs_due = run_periodic_jobs();
        if (!extension_version()) leave_without_extension(true);
        // Every counters_fold_interval (read again after a reload) while
        // the database has deferred queues, or changes of one that became
        // exact; else with the rounds.
        const bool folding = g_any_deferred || !ops::deferred_queues().empty();
        fold_due = folding
                       ? TimestampTzPlusMilliseconds(last_fold, settings.counters_fold_interval_ms)
                       : queues_due;
        if (GetCurrentTimestamp() >= fold_due) {
            last_fold = GetCurrentTimestamp();
            fold_counters();
            fold_due =
                folding ? TimestampTzPlusMilliseconds(last_fold, settings.counters_fold_interval_ms)
                        : queues_due;
        }
        maybe_vacuum();
        const TimestampTz noted = take_noted_due();
        if (noted < queues_due) queues_due = noted;
        TimestampTz until = queues_due < jobs_due ? queues_due : jobs_due;
        if (fold_due < until) until = fold_due;
        woken = sleep_until(until, queues_due);
    }
}

}  // namespace
}  // namespace fetchq::worker

extern "C" PGDLLEXPORT void fetchq_scheduler_main(Datum arg) {
    using namespace fetchq::worker;
    const Oid dboid = DatumGetObjectId(arg);
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGTERM, die);
    BackgroundWorkerUnblockSignals();
    if (!attach(dboid)) proc_exit(0);  // slot taken or gone: nothing to do
    before_shmem_exit(detach_guarded, 0);
    BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
    // Runs before the exit callbacks of the connection, which it needs.
    before_shmem_exit(fold_at_exit, 0);
    // An exception that escapes the loop is reported as an ERROR; the worker
    // then exits with code 1 and the launcher restarts it after a backoff.
    fetchq::pg::callback_entry(ERROR, "scheduler_main", scheduler_loop);
}
