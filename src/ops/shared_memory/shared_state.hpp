// Shared memory of the fetchq workers: the launcher's latch and one slot per
// database scheduler with its state and the last run of each task, read by
// fetchq.worker_status() and written by the scheduler.
#pragma once

#include "pg/postgres.hpp"

extern "C" {
#include "port/atomics.h"
}

namespace fetchq::ops {

enum Task : int {
    kTaskPromote = 0,  // planned -> pending when due
    kTaskOrphans,      // expired locks -> pending, or killed after max_attempts
    kTaskRetention,    // old logs and metric snapshots
    kTaskSnapshot,     // metric snapshots into <queue>__metrics
    kTaskExpire,       // planned or pending documents past their expiry
    kTaskSessions,     // session-bound picks and temporary queues of ended sessions
    kTaskVacuum,       // VACUUM of queue tables past fetchq.vacuum_threshold
    kTaskPurge,        // completed and killed documents past the queue's retention
    kTaskStreams,      // stream messages every group committed
    kTaskSchedules,    // periodic schedules' ticks
    kTaskOrigins,      // origin rows (fetchq.doc_origins) whose document is gone
    kTaskCount
};
const char* task_name(int task);

enum SlotState : int {
    kSlotFree = 0,
    kSlotStarting,     // registered, not yet attached
    kSlotRunning,      // scheduler attached and looping
    kSlotNoExtension,  // database has no fetchq: not restarted until woken
    kSlotBackoff,      // exited abnormally: restarted at retry_at
    kSlotPaused,       // asked to leave (DROP/RENAME DATABASE): until retry_at
};
const char* slot_state_name(int state);

struct TaskStats {
    TimestampTz last_run;
    TimestampTz next_due;
    int64 runs;
    int64 rows_last;
    int64 rows_total;
    int64 errors;
    double last_ms;
    char last_error[256];
    TimestampTz last_error_at;  // when last_error was recorded (0: never)
    // When the task ran clean again after last_error: no unit of it (a
    // queue, a job) still failing (0: not yet, or it never failed).
    TimestampTz recovered_at;
};

struct DbSlot {
    Oid dboid;
    int state;
    pid_t pid;
    Latch* latch;                // the scheduler's process latch, while attached
    pg_atomic_uint64 next_wake;  // when the scheduler plans to wake up (TimestampTz)
    // The earliest moment commits made due since the scheduler last took it
    // (TimestampTz): folded into its next wake-up, so that a commit during a
    // round need not wake it at once (ops/shared_memory/wake.cpp).
    pg_atomic_uint64 noted_due;       // see note_due_in
    pg_atomic_uint32 sessions_ended;  // a session owning documents or queues exited
    // Keys of the sessions that exited last: they may still be listed as live
    // while their exit callbacks run, so the scheduler counts them as gone.
    pg_atomic_uint64 ended_keys[16];
    pg_atomic_uint32 ended_next;
    TimestampTz retry_at;  // for kSlotBackoff / kSlotPaused
    int failures;          // consecutive abnormal exits
    char paused_for[32];   // for kSlotPaused: the command that asked (DROP DATABASE, ...)
    // The server log said once that the database has no extension: the
    // restarts that each CREATE EXTENSION elsewhere causes say it at DEBUG1.
    bool no_extension_logged;
    TimestampTz started_at;
    TaskStats tasks[kTaskCount];
};

struct SharedState {
    LWLock* lock;
    Latch* launcher_latch;
    pid_t launcher_pid;
    bool recheck;  // a database got the extension: retry kSlotNoExtension slots
    int nslots;
    DbSlot slots[FLEXIBLE_ARRAY_MEMBER];
};

// nullptr when the library was not preloaded.
SharedState* shared();

// Hooks for _PG_init.
void request_shared_memory();
void install_shmem_hooks();

// The slot of a database, or nullptr. Caller holds shared()->lock.
DbSlot* find_slot(Oid dboid);

// Wakes the launcher (it rescans databases), if it runs; with recheck, it
// also retries databases where it found no extension before.
void wake_launcher(bool recheck = false);

// Call when the current transaction installs the extension: the launcher
// is woken with recheck once the transaction commits.
void wake_launcher_at_commit();
// From the transaction callback.
void at_commit();
void at_abort();

// Lowers slot.noted_due to `due` unless it is earlier already (commits of
// any backend, and the scheduler putting back what it took too early).
inline void note_due_in(DbSlot& slot, TimestampTz due) {
    uint64 noted = pg_atomic_read_u64(&slot.noted_due);
    while (static_cast<uint64>(due) < noted &&
           !pg_atomic_compare_exchange_u64(&slot.noted_due, &noted, static_cast<uint64>(due))) {
    }
}

}  // namespace fetchq::ops
