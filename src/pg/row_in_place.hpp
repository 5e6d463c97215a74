// Updating one row of a small table of fetchq's without the executor: what
// an UPDATE of a non-key column would do, for the rows written at every
// commit (a queue's counter row, a group's committed offset). Only for a
// table as the extension creates it; anything else goes through SQL. Plain
// PostgreSQL calls: for use inside one pg_call.
#pragma once

#include <initializer_list>

#include "pg/postgres.hpp"

namespace fetchq::pg {

// False in a read-only transaction (and in parallel mode), where only the
// executor's own check may refuse the write, with its error (25006).
bool in_place_allowed();

// True, with its primary key opened in RowExclusiveLock, when `rel` is a
// plain heap table with no trigger, no rule, no row security, no CHECK constraint, no generated
// column, and no index but a primary key on plain columns: what an UPDATE of other columns would
// do besides writing the row, there is nothing of. (A rule rewrites the statement: a DO ALSO rule
// runs more statements, and PostgreSQL refuses INSERT ... ON CONFLICT on a table with an INSERT or
// UPDATE rule; through SQL, either happens as for the statement the in-place write stands for.)
bool plain_keyed_table(Relation rel, Relation* primary_key);

// The version of a row visible to `snapshot`, found from an address the row
// had by following its update chain: a few steps, where an index lookup
// walks every version of the row that no one may prune yet (under a held
// xmin horizon, or within a transaction that updates the row again and
// again, thousands). False when the address no longer leads to a visible
// version; else the caller checks that it is still the same row (the
// address may have been reused) and releases *buffer.
bool fetch_from_address(Relation rel, Snapshot snapshot, ItemPointerData address, HeapTuple tuple,
                        Buffer* buffer);

// Replaces the row version at `old` by `replacement`, as an UPDATE of
// columns outside the primary key would: its page pruned first (an index
// lookup prunes too, but gives up while another backend pins the page, and
// heap_fetch never does: without it the rows of busy keys moved page after
// page and their tables grew a hundredfold), heap_update waiting for a
// concurrent writer of the row, and the primary-key entry of a non-HOT
// version. The caller holds no pin on the page. False when another
// transaction updated or deleted the row meanwhile.
bool update_in_place(Relation rel, Relation primary_key, ItemPointerData old,
                     HeapTuple replacement);

// Under REPEATABLE READ or SERIALIZABLE, the error an UPDATE raises for a row
// that another transaction changed since the snapshot (40001).
void fail_on_transaction_snapshot();

// `old` with the columns `names` set to `values` (none NULL).
HeapTuple with_columns(Relation rel, HeapTuple old, std::initializer_list<const char*> names,
                       std::initializer_list<Datum> values);

// After a non-HOT update of a row locked by its updater: the new version's
// entry in the primary key, whose key did not change. No uniqueness to check
// (that would visit every version of the row no one may prune yet), and the
// index may delete older versions' entries bottom-up.
void insert_unchanged_key(Relation rel, Relation primary_key, HeapTuple tuple);

// After an insert: the new row's entry in the primary key, checked unique.
void insert_new_key(Relation rel, Relation primary_key, HeapTuple tuple);

}  // namespace fetchq::pg
