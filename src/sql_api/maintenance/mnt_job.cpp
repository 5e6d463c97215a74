// Maintenance jobs (fetchq.jobs): mnt_job_pick, mnt_job_reschedule,
// mnt_job_run and mnt. A job is a task on a queue ('*' for global ones)
// that is due at next_iteration; running it locks it for a while, does the
// task and plans the next run `delay` later.
//
// Fetchq ran all due jobs in one block and turned any error into
// success = false, undoing every job of the round. Here each job runs in
// its own subtransaction: a failing job is rolled back alone, reported as
// a WARNING and left locked until its lock expires, so it is retried, at
// most 5 times in a row (mnt_job_pick skips jobs with attempts >= 5); the
// other jobs of the round still run and success tells whether all did.
#include <charconv>
#include <climits>
#include <optional>
#include <string>
#include <vector>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "core/queue_name.hpp"
#include "pg/args.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/counters/metric_log.hpp"
#include "ops/maintenance/metric_snapshot.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/maintenance/retention.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"
#include "ops/maintenance/maintenance.hpp"

extern "C" {
#include "utils/acl.h"
}

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

constexpr const char* kDefaultLock = "5m";
constexpr const char* kDefaultDelay = "5m";
constexpr int32_t kDefaultJobLimit = 1;
constexpr int32_t kDefaultTaskLimit = 100;

// The jobs are written as the catalog's owner (ops/queues/queue_access.hpp), on the
// rows the caller may write, as the row security of fetchq.jobs would let it
// write them: all of them for a role that bypasses it (a superuser, a role
// with BYPASSRLS, the catalog's owner), else those of the queues whose tables
// it owns (queue_is_own; '*' is nobody's). own_job(a, r): that condition on
// the row of fetchq.jobs named j, with parameters $a (all) and $r (the role).
struct JobRights {
    Datum all;
    Datum role;
};

JobRights job_rights() {
    const Oid owner = catalog_owner();
    JobRights rights{};
    pg_call([&] {
        const Oid me = GetUserId();
        rights.all = BoolGetDatum(has_bypassrls_privilege(me) || has_privs_of_role(me, owner));
        rights.role = ObjectIdGetDatum(me);
    });
    return rights;
}

std::string own_job(int all, int role) {
    return " AND ($" + std::to_string(all) +
           " OR (j.queue OPERATOR(pg_catalog.~) '^[a-z0-9_]{1,40}$' AND EXISTS (SELECT FROM"
           " pg_catalog.pg_class c WHERE c.relnamespace OPERATOR(pg_catalog.=)"
           " 'fetchq_data'::pg_catalog.regnamespace AND c.relname OPERATOR(pg_catalog.=)"
           " (j.queue OPERATOR(pg_catalog.||) '__docs') AND pg_catalog.pg_has_role($" +
           std::to_string(role) + ", c.relowner, 'USAGE'))))";
}

// Columns 1..9 are mnt_job_pick's result; 10..12 the settings mnt_job_run
// reads. Jobs come in id order, so a round runs them in a stable order. Due
// means strictly before now(), as in Fetchq 4: a job made in the same
// transaction (next_iteration = now()) waits for a later one.
SPIPlanPtr pick_plan() {
    return cached_plan(
        "", "mnt_job_pick",
        [] {
            return "WITH picked AS (UPDATE fetchq.jobs AS j SET next_iteration = now() + $1,"
                   " attempts = j.attempts + 1"
                   " WHERE j.id = ANY (ARRAY(SELECT id FROM fetchq.jobs AS j"
                   " WHERE attempts < 5 AND next_iteration < now()" +
                   own_job(3, 4) +
                   " ORDER BY next_iteration, attempts LIMIT $2 FOR UPDATE SKIP LOCKED))"
                   " RETURNING j.id, j.task, j.queue, j.attempts, j.iterations, j.next_iteration,"
                   " j.last_iteration, j.settings, j.payload, j.settings ->> 'limit',"
                   " j.settings ->> 'delay', j.settings ->> 'duration')"
                   " SELECT * FROM picked ORDER BY id";
        },
        {INTERVALOID, INT4OID, BOOLOID, OIDOID});
}

uint64_t pick(Interval* lock, int32_t limit, const JobRights& rights) {
    Datum values[4] = {IntervalPGetDatum(lock), Int32GetDatum(limit), rights.all, rights.role};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(pick_plan(), values, nullptr, false); });
    return n;
}

// Next run `delay` from now; false when there is no such job.
bool reschedule(int32_t id, Interval* delay, const JobRights& rights) {
    SPIPlanPtr plan = cached_plan(
        "", "mnt_job_reschedule",
        [] {
            return "UPDATE fetchq.jobs AS j SET next_iteration = now() + $2,"
                   " last_iteration = now(), iterations = j.iterations + 1, attempts = 0"
                   " WHERE j.id = $1" +
                   own_job(3, 4);
        },
        {INT4OID, INTERVALOID, BOOLOID, OIDOID});
    Datum values[4] = {Int32GetDatum(id), IntervalPGetDatum(delay), rights.all, rights.role};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, false); });
    return n == 1;
}

// Keeps a running job locked for `duration` instead of the picker's lock.
void extend_lock(int32_t id, Interval* duration, const JobRights& rights) {
    SPIPlanPtr plan = cached_plan(
        "", "mnt_job_lock",
        [] {
            return "UPDATE fetchq.jobs AS j SET next_iteration = now() + $2 WHERE j.id = $1" +
                   own_job(3, 4);
        },
        {INT4OID, INTERVALOID, BOOLOID, OIDOID});
    Datum values[4] = {Int32GetDatum(id), IntervalPGetDatum(duration), rights.all, rights.role};
    as_catalog_owner([&] { spi_execute(plan, values, nullptr, false); });
}

struct Job {
    int32_t id = 0;
    std::string task;
    std::string queue;
    std::optional<std::string> limit, delay, duration;  // from settings
};

std::optional<std::string> optional_text(uint64_t row, int col) {
    const char* s = spi_text(row, col);
    return s ? std::optional<std::string>(s) : std::nullopt;
}

std::vector<Job> picked_jobs(uint64_t n) {
    std::vector<Job> jobs(n);
    for (uint64_t row = 0; row < n; ++row) {
        Job& job = jobs[row];
        job.id = static_cast<int32_t>(spi_int(row, 1));
        job.task = spi_text(row, 2);
        job.queue = spi_text(row, 3);
        job.limit = optional_text(row, 10);
        job.delay = optional_text(row, 11);
        job.duration = optional_text(row, 12);
    }
    return jobs;
}

int32_t task_limit(const Job& job) {
    if (!job.limit) return kDefaultTaskLimit;
    const std::string& s = *job.limit;
    int32_t v = -1;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v < 0)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "invalid settings.limit " + core::echo(s), {},
                          "Set settings.limit to a non-negative integer.");
    return v;
}

// Does the job's task; false for an unknown task.
bool run_task(const Job& job) {
    const std::string& t = job.task;
    if (t == "lgp") {
        pack_metric_log();
        return true;
    }
    if (t != "mnt" && t != "drp" && t != "sts" && t != "cmp") return false;
    core::check_queue_name(job.queue, "queue");
    // As the queue's owner, restricted: a superuser's mnt() never runs an
    // owner's triggers as superuser. A queue with grants of its own asks
    // for manage on it.
    with_queue_privilege(job.queue, core::QueuePrivilege::kManage, [&] {
        as_queue_owner(job.queue, [&] {
            if (t == "mnt") {
                ops::maintain_queue(job.queue, task_limit(job));
            } else if (t == "drp") {
                drop_metrics_by_setting(job.queue);
                drop_logs_by_setting(job.queue);
            } else if (t == "sts") {
                require_queue(job.queue);
                snapshot_counters(job.queue);
            }
        });
    });
    // "cmp" (compute metrics) was planned by Fetchq 4 but never did anything:
    // it stays a no-op job that is only rescheduled.
    return true;
}

void warn(const char* message, const char* detail, const char* hint) {
    pg_call([&] {
        ereport(WARNING,
                (errmsg_internal("%s", message), detail ? errdetail_internal("%s", detail) : 0,
                 hint ? errhint("%s", hint) : 0));
    });
}

// (task, queue) is unique in fetchq.jobs; ids vary from one database to another.
std::string describe(const Job& job) {
    return "fetchq: maintenance job \"" + job.task + "\" of queue \"" + job.queue + "\"";
}

enum class Outcome { kDone, kUnknownTask, kFailed };

// Runs the job in a subtransaction, as PL/pgSQL runs an EXCEPTION block. A
// failure rolls back the job's work and counters only; a query cancel is
// not a job failure and goes on up.
Outcome run_isolated(const Job& job) {
    MemoryContext cxt = CurrentMemoryContext;
    ResourceOwner owner = CurrentResourceOwner;
    pg_call([&] {
        BeginInternalSubTransaction(nullptr);
        MemoryContextSwitchTo(cxt);
    });
    auto finish = [&](bool commit) {
        pg_call([&] {
            if (commit)
                ReleaseCurrentSubTransaction();
            else
                RollbackAndReleaseCurrentSubTransaction();
            MemoryContextSwitchTo(cxt);
            CurrentResourceOwner = owner;
        });
    };
    std::string error;
    try {
        const bool known = run_task(job);
        finish(true);
        return known ? Outcome::kDone : Outcome::kUnknownTask;
    } catch (const PgError& e) {
        if (e.sqlerrcode() == ERRCODE_QUERY_CANCELED) {
            finish(false);
            throw;
        }
        error = e.what();
    } catch (const core::Error& e) {
        error = e.what();
    } catch (...) {
        finish(false);
        throw;
    }
    finish(false);
    warn((describe(job) + " failed").c_str(), error.c_str(),
         "The job is retried when its lock expires; after 5 failed runs in a row it is "
         "left alone until fetchq.mnt_job_reschedule() resets it.");
    return Outcome::kFailed;
}

struct RunResult {
    bool success = true;
    int32_t processed = 0;
};

// One job: its settings, its lock, its task, its next run.
bool run_job(const Job& job, const JobRights& rights) {
    Interval* delay = nullptr;
    try {
        delay =
            parse_positive_duration_or_throw(job.delay.value_or(kDefaultDelay), "settings.delay");
        if (job.duration)
            extend_lock(job.id,
                        parse_positive_duration_or_throw(*job.duration, "settings.duration"),
                        rights);
        if (job.task == "mnt") task_limit(job);
    } catch (const core::Error& e) {
        warn((describe(job) + " has invalid settings").c_str(), e.what(),
             "Fix the job's settings in fetchq.jobs.");
        return false;
    }
    const Outcome outcome = run_isolated(job);
    if (outcome == Outcome::kFailed) return false;
    if (outcome == Outcome::kUnknownTask)
        warn((describe(job) + " has an unknown task").c_str(), nullptr,
             "Known tasks are lgp, mnt, drp, sts and cmp; the job is only rescheduled.");
    reschedule(job.id, delay, rights);
    return true;
}

RunResult run_due_jobs(Interval* lock, int32_t limit) {
    RunResult result;
    if (limit == 0) return result;
    const JobRights rights = job_rights();
    const std::vector<Job> jobs = picked_jobs(pick(lock, limit, rights));
    for (const Job& job : jobs) {
        if (run_job(job, rights))
            ++result.processed;
        else
            result.success = false;
    }
    return result;
}

// mnt_job_pick(lock_duration, limit) -> the due jobs, now locked.
Datum mnt_job_pick(FunctionCallInfo fcinfo) {
    Interval* lock = arg_positive_duration(fcinfo, 0, "lock_duration");
    const int32_t limit = arg_limit(fcinfo, 1, "limit");
    begin_rows(fcinfo);
    spi_connect();
    const uint64_t n = pick(lock, limit, job_rights());
    for (uint64_t row = 0; row < n; ++row) add_spi_row(fcinfo, row);
    spi_finish();
    return (Datum)0;
}

// mnt_job_reschedule(id, delay) -> success: false when no job has this id.
Datum mnt_job_reschedule(FunctionCallInfo fcinfo) {
    const int32_t id = arg_int(fcinfo, 0, "id");
    Interval* delay = arg_positive_duration(fcinfo, 1, "delay");
    spi_connect();
    const bool found = reschedule(id, delay, job_rights());
    spi_finish();
    PG_RETURN_BOOL(found);
}

// mnt_job_run(lock_duration, limit) / (limit) / () -> (success, processed)
Datum mnt_job_run(FunctionCallInfo fcinfo) {
    Interval* lock = nullptr;
    int32_t limit = kDefaultJobLimit;
    if (PG_NARGS() == 2) {
        lock = arg_positive_duration(fcinfo, 0, "lock_duration");
        limit = arg_limit(fcinfo, 1, "limit");
    } else {
        lock = parse_duration_or_throw(kDefaultLock, "lock_duration");
        if (PG_NARGS() == 1) limit = arg_limit(fcinfo, 0, "limit");
    }
    spi_connect();
    const RunResult result = run_due_jobs(lock, limit);
    spi_finish();
    Datum values[2] = {BoolGetDatum(result.success), Int32GetDatum(result.processed)};
    bool nulls[2] = {false, false};
    return make_record(fcinfo, values, nulls);
}

// Makes every per-queue job due.
void make_queue_jobs_due() {
    SPIPlanPtr plan = cached_plan(
        "", "mnt_jobs_due",
        [] {
            return "UPDATE fetchq.jobs SET next_iteration = now() - interval '1 millisecond'"
                   " WHERE id = ANY (ARRAY(SELECT id FROM fetchq.jobs AS j WHERE j.queue <> '*'" +
                   own_job(1, 2) + " FOR UPDATE SKIP LOCKED))";
        },
        {BOOLOID, OIDOID});
    const JobRights rights = job_rights();
    Datum values[2] = {rights.all, rights.role};
    as_catalog_owner([&] { spi_execute(plan, values, nullptr, false); });
}

// mnt(lock_duration) / mnt() -> (processed, packed): runs every per-queue
// job now, then folds the metric writes. Jobs locked by a concurrent run
// are skipped. Fetchq bounded the round by the number of per-queue jobs,
// which left one behind whenever a global job was due too; here the round
// takes every due job.
Datum mnt(FunctionCallInfo fcinfo) {
    Interval* lock = PG_NARGS() == 1 ? arg_positive_duration(fcinfo, 0, "lock_duration")
                                     : parse_duration_or_throw(kDefaultLock, "lock_duration");
    spi_connect();
    make_queue_jobs_due();
    const RunResult result = run_due_jobs(lock, INT32_MAX);
    const int64_t packed = pack_metric_log();
    spi_finish();
    Datum values[2] = {Int32GetDatum(result.processed),
                       Int32GetDatum(static_cast<int32_t>(packed))};
    bool nulls[2] = {false, false};
    return make_record(fcinfo, values, nulls);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_mnt_job_pick, fetchq::sql_api::mnt_job_pick)
FETCHQ_SQL_FUNCTION(fetchq_mnt_job_reschedule, fetchq::sql_api::mnt_job_reschedule)
FETCHQ_SQL_FUNCTION(fetchq_mnt_job_run, fetchq::sql_api::mnt_job_run)
FETCHQ_SQL_FUNCTION(fetchq_mnt, fetchq::sql_api::mnt)
