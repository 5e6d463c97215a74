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
// The counters are fetchq's own (no role but the catalog's owner writes
// them): the caller's privileges on the table are not checked, the calls
// that made the changes checked the caller's right to change the queues.
CounterTable counter_table_open();
void counter_table_close(CounterTable& table);

// Adds `row`'s changes to the row (row.queue, slot) of fetchq.counters and
// returns true, or returns false when that row does not exist yet (the caller
// inserts it). Waits for a concurrent writer of the row, as UPDATE would.
bool counter_row_add(const CounterTable& table, const core::CounterRow& row, int16 slot);

}  // namespace fetchq::ops
