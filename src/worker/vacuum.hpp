// Targeted VACUUM of hot queue tables, run by the scheduler.
//
// Queue tables churn: every pick, outcome and delete leaves a dead tuple,
// and a queue that autovacuum ignores (disabled, or lagging behind a busy
// database) bloats until each pick scans dead index entries. The scheduler
// therefore vacuums the tables of its own queues that passed a threshold,
// the way a top-level VACUUM command does (VACUUM cannot run in a
// transaction block, a function or SPI):
//   VACUUM (SKIP_LOCKED, TRUNCATE false, PARALLEL 0) <table>
// - SKIP_LOCKED: a table locked by DDL or another vacuum is skipped, never
//   waited for (consumers' row locks do not conflict with VACUUM);
// - TRUNCATE false: truncating the empty tail needs an AccessExclusiveLock
//   that would stop every consumer of the queue;
// - PARALLEL 0: no extra background workers (those slots are for the
//   schedulers), as autovacuum does.
#pragma once

#include <string>

namespace fetchq::worker {

struct VacuumRound {
    int checked = 0;    // queue tables whose statistics were read
    int vacuumed = 0;   // tables actually vacuumed (their vacuum_count moved)
    std::string error;  // first error of the round, empty when none
};

// Called by the scheduler between rounds, OUTSIDE any transaction (it
// starts and commits its own). Flushes this process's pending statistics
// (its own DELETEs count too), reads the dead-tuple count and the last
// vacuum / autovacuum time of every fetchq_data.<queue>__docs, __logs and
// __metrics table from the cumulative statistics, and vacuums, one table at
// a time, those with more than fetchq.vacuum_threshold dead tuples that no
// one vacuumed in the last fetchq.vacuum_interval. VACUUM checks the
// ownership itself and runs index functions as the table owner.
// Errors are logged (throttled: worker/server_log.hpp), the transaction
// rolled back, the next table tried, and
// the first error is reported in .error; nothing is thrown. A FATAL (SIGTERM)
// ends the process as anywhere else.
VacuumRound vacuum_hot_tables();

}  // namespace fetchq::worker
