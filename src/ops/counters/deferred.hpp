// Deferred counters (queue_set_counters(queue, 'deferred')): a committed
// transaction's changes to a deferred queue's standard counters go into a
// table in shared memory instead of its counter row, and the scheduler folds
// them into fetchq.counters (slot kFoldSlot) every
// fetchq.counters_fold_interval.
//
// Each entry of the table is one queue of one database: `pending`, the
// changes committed since the last fold, and `folded`, the changes a fold
// transaction moved into fetchq.counters, tagged with that transaction's id.
// A reader (the view fetchq.metrics, through fetchq.counter_deltas()) adds
// `pending`, and `folded` unless its snapshot sees the fold's commit (then
// the rows it reads hold them already): so every committed change is counted
// once, whatever the fold does meanwhile. A fold drops `folded` once every
// snapshot sees its commit, or puts it back into `pending` when it aborted.
//
// A transaction reserves its entries before it commits (a full table makes
// it write its counter row as exact mode does) and adds to them once it has
// committed; nothing when it rolls back. The table is lost with shared
// memory (a crash): the scheduler then recounts the status counters of the
// deferred queues (ops/maintenance/counters_recount.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/counter_columns.hpp"
#include "pg/postgres.hpp"

namespace fetchq::ops {

// The stripe of fetchq.counters that folds write (backends write 0..63).
inline constexpr int16 kFoldSlot = 64;

// Shared memory, from shared_state's hooks (0 bytes with no slot).
Size deferred_shmem_size();
void deferred_shmem_request();
void deferred_shmem_init();
bool deferred_available();

// Reserves the entry of `queue` (of this database) for a commit under way;
// false when the table is full or missing: write the counter row instead.
bool deferred_reserve(std::string_view queue);
// After the commit: adds each row's changes to its reserved entry.
void deferred_add(const std::vector<core::CounterRow>& rows);
// After an abort: releases the reservations of `rows`.
void deferred_release(const std::vector<core::CounterRow>& rows);

// A queue's changes not yet in the rows of fetchq.counters that `snapshot`
// sees (one per queue of this database with any).
struct UnfoldedRow {
    std::string queue;
    std::array<int64_t, core::kCounterColumns.size()> values{};
    uint32_t mask = 0;  // bit i: column i was changed
    TimestampTz updated_at = 0;
};
std::vector<UnfoldedRow> deferred_unfolded(Snapshot snapshot,
                                           const std::optional<std::string>& queue);

// Queues of this database with an entry.
std::vector<std::string> deferred_queues();

// Moves the pending changes of `queues` to `folded`, tagged with the current
// transaction's id, and returns them: the caller writes them into
// fetchq.counters in this transaction. Entries whose last fold is not yet
// seen by every snapshot are left for a later fold.
std::vector<core::CounterRow> deferred_take(const std::vector<std::string>& queues);
// Drops the entry of a queue that no longer exists (unless a commit holds it).
void deferred_discard(std::string_view queue);
// Drops every entry of this database (CREATE EXTENSION).
void deferred_discard_database();

// Whether this database's deferred queues still need the recount of their
// status counters since shared memory was set up, and marking it done.
bool deferred_recount_needed();
void deferred_recount_done();

// Bytes, for fetchq.worker_status and tests: entries in use, and capacity.
int deferred_entries_used();

}  // namespace fetchq::ops
