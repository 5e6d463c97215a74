// Maintenance of one queue's documents: the work of the background scheduler
// and of fetchq.mnt_*. Each task changes at most `limit`
// documents in one statement, oldest first, skipping rows that a consumer
// holds locked (FOR UPDATE SKIP LOCKED), so it never waits for a consumer
// and its cost grows with the rows it changes, not with the queue's size.
//
// Calling convention (all tasks):
// - the caller is connected to SPI (pg::spi_connect) and has an active
//   snapshot; tasks never connect or finish SPI themselves, so a caller can
//   run several tasks, and its own statements, on one connection. A SQL
//   function gets the snapshot from the executor; a worker pushes one.
// - `queue` is a valid queue name (pg::arg_queue or fetchq.queues checked
//   it); a queue without tables raises "queue ... does not exist".
// - `limit` >= 0 (negative raises 22023); 0 changes nothing.
// - the counters of the change (pnd, pln, act, ...) are added with
//   ops::metric_add (ops/counters/counters.hpp), so they are written when the caller's transaction
//   commits and vanish if it rolls back.
// - errors are thrown as C++ exceptions (pg::PgError, core::Error).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// Planned documents (status 0) that are due become pending (1).
int64_t promote_planned(std::string_view queue, int32_t limit);

// Active documents (2) whose lock expired and that have attempts left
// (attempts < the queue's max_attempts) go back to pending (1).
int64_t reschedule_orphans(std::string_view queue, int32_t limit);

// Active documents (2) whose lock expired and that used up their attempts
// become killed (-1).
int64_t mark_dead(std::string_view queue, int32_t limit);

struct MaintenanceCounts {
    int64_t activated = 0;
    int64_t rescheduled = 0;
    int64_t killed = 0;
};

// The three tasks above, each with its own `limit`, in Fetchq's order:
// dead, orphans, promotion.
MaintenanceCounts maintain_queue(std::string_view queue, int32_t limit);

// Planned or pending documents past expires_at are deleted (counted in
// "exp"); active ones are left to their consumer.
int64_t expire_documents(std::string_view queue, int32_t limit);

// Active documents picked with session_bound = true by a session whose key
// is not in `live` go back to pending (or are killed after max_attempts).
int64_t release_session_locks(std::string_view queue, const std::vector<int64_t>& live,
                              int32_t limit);

// Temporary queues (fetchq.temporary_queues, which only the extension's
// owner writes) whose owning session is not in `live`.
std::vector<std::string> ended_temporary_queues(const std::vector<int64_t>& live);
// Temporary queues with an idle timeout whose documents did not move for
// that long (ops/shared_memory/queue_activity.hpp) by `now`.
std::vector<std::string> idle_temporary_queues(TimestampTz now);

// A periodic job of fetchq.jobs ('sts', 'drp' or 'lgp').
struct PeriodicJob {
    std::string task;
    std::string queue;  // '*' for 'lgp'
};
// Claims (and reschedules by their delay) the due periodic jobs.
std::vector<PeriodicJob> claim_due_jobs(int32_t limit);
// When the next periodic job is due (DT_NOEND if none).
int64_t next_job_due();
// Runs one job in C++ (ops/maintenance/metric_snapshot, ops/maintenance/retention,
// ops/counters/metric_log), as the caller's current user; nothing goes through the SQL functions.
void run_periodic_job(const PeriodicJob& job);

// Raises 22023 when limit < 0 (shared by the tasks).
void check_task_limit(int32_t limit);

}  // namespace fetchq::ops
