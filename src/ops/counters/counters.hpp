// Queue counters (cnt, pnd, pkd, ...). Each document operation adds to a
// transaction-local tally; just before commit the tally is written into this
// backend's stripe of rows (one row of fetchq.counters per queue for the
// standard counters, a row of fetchq.custom_counters per other name), so
// counters are exact for committed work, visible at once, and concurrent
// consumers do not queue up behind one counter row.
//
// A counter's value is therefore the sum of its stripes (the view
// fetchq.metrics shows them row by row) plus the current transaction's
// pending change; the counter_* functions below read and write it that way,
// and need SPI to be connected.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/counter_columns.hpp"
#include "core/metric_deltas.hpp"
#include "pg/postgres.hpp"

namespace fetchq::ops {

inline constexpr int kMetricSlots = 64;
inline constexpr int kMaxMetricNameLength = 40;

void metric_add(std::string_view queue, std::string_view metric, int64_t delta);
// The uncommitted change this transaction has made so far.
int64_t metric_pending(std::string_view queue, std::string_view metric);
// Every uncommitted non-zero change, sorted by (queue, metric).
std::vector<core::MetricDelta> metric_pending_all();
// Cancels the uncommitted change of one counter (it is being set to a value).
void metric_forget(std::string_view queue, std::string_view metric);
// The queue is being dropped or reset: its pending changes must not be written.
void metric_forget_queue(std::string_view queue);
// The queue's counter changes of this transaction come from calls that its
// queue privileges authorised (ops/queues/queue_access.hpp), or from their routed or
// dead-letter copies. Only a record now: every counter change is written at
// commit by fetchq, as the owner of its catalog (ops/queues/queue_access.hpp
// as_catalog_owner), whoever the caller; the calls that make the changes
// checked the caller's right to them.
void metric_on_behalf(std::string_view queue);
bool metric_is_on_behalf(std::string_view queue);
// Installs the transaction callbacks (from _PG_init).
void metrics_register_callbacks();

// Raises a clear error unless `metric` is a usable metric name (1..40 characters).
void check_metric_name(const std::string& metric, const char* argument = "metric");
// A metric name argument, checked.
std::string arg_metric(FunctionCallInfo fcinfo, int i, const char* name = "metric");

struct Counter {
    int64_t value = 0;
    bool exists = false;          // it has a row, or a pending change
    TimestampTz last_update = 0;  // valid when exists
};

// One counter: its rows plus the pending change.
Counter counter_read(const std::string& queue, const std::string& metric);
// Makes the counter equal `value` (drops its other stripes and its pending
// change); true when it did not exist before. Written as the catalog's
// owner (ops/queues/queue_access.hpp): the caller checked the right to it.
bool counter_set(const std::string& queue, const std::string& metric, int64_t value);
// A counter's value for an INTEGER result column; out of range is an error.
// An empty queue means the total over all queues.
int32_t counter_int(const std::string& queue, const std::string& metric, int64_t value);

// The reported counters (core::kReportedCounters) of one queue, each the sum
// of its stripes plus this transaction's pending change: 0, never NULL, for
// a counter never written.
struct QueueCounters {
    std::string queue;
    std::array<int64_t, core::kReportedCounters.size()> values{};
};

// The reported counters of `queue` (none when it is not registered), or of
// every registered queue when nullopt, in name order. read_only: read in the
// caller's snapshot, as spi_execute's read_only does.
std::vector<QueueCounters> reported_counters(const std::optional<std::string>& queue,
                                             bool read_only);

// SELECT metric, current_value, last_update: every counter of queue $1,
// given its pending changes as $2 text[] and $3 int8[] (pending_arrays).
std::string queue_counters_sql();

// The pending changes of one queue as two arrays (text[] metric, int8[] delta)
// to join with fetchq.metrics in SQL.
void pending_arrays(std::string_view queue, Datum* metrics, Datum* deltas);

// Deferred counters (ops/counters/deferred.hpp).
// Folds the changes of deferred queues (only `queue`'s when given) that
// shared memory holds into stripe kFoldSlot of fetchq.counters, in the
// current transaction; returns the queues folded. Queues whose catalog row
// another transaction locks are left for the next fold. Needs SPI.
int64_t counters_fold(const std::optional<std::string>& queue);
// The queue is dropped: its entry in shared memory goes when this commits.
void counters_discard_at_commit(std::string_view queue);
// Adds to this transaction the opposite of the queue's changes not yet
// folded (of one column of core::kCounterColumns when given), for
// metric_reset and counter_set, which recount, set or drop counters of the
// queue; the caller holds the queue's catalog row (counters_lock_queue_row),
// so no fold of the queue runs meanwhile.
void counters_cancel_unfolded(const std::string& queue,
                              std::optional<std::size_t> column = std::nullopt);
// Locks the queue's catalog row FOR NO KEY UPDATE (as the catalog's owner): folds
// lock it FOR SHARE SKIP LOCKED, before the counter rows.
void counters_lock_queue_row(const std::string& queue);

}  // namespace fetchq::ops
