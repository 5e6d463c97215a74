// Adds a transaction's changes to its counter row of fetchq.counters without
// going through the executor: a lookup and a (HOT) update, done at every
// commit that changed a queue, so its cost is the counters' whole cost on
// single-document operations. The lookup starts from the version this backend
// wrote last and follows the update chain, so that it stays short under a held
// xmin horizon, when no version can be pruned; the primary key is the
// fallback.
#pragma once

#include <cstdint>

#include "core/counter_columns.hpp"
#include "pg/postgres.hpp"

namespace fetchq::ops {

// fetchq.counters, opened once for all the rows of a flush (a push routed to
// many queues changes many rows). Plain data: on an error, the abort closes
// them.
struct CounterTable {
    Relation rel = nullptr;
    Relation index = nullptr;  // its primary key; NULL: use SQL instead
};
// check_caller: raise an error unless the caller may UPDATE the table, as
// the UPDATE this replaces would; false when every row is written on the
// caller's behalf (ops/queue_access.hpp).
CounterTable counter_table_open(bool check_caller);
void counter_table_close(CounterTable& table);

// Adds `row`'s changes to the row (row.queue, slot) of fetchq.counters and
// returns true, or returns false when that row does not exist yet (the caller
// inserts it). Waits for a concurrent writer of the row, as UPDATE would.
bool counter_row_add(const CounterTable& table, const core::CounterRow& row, int16 slot);

}  // namespace fetchq::ops
