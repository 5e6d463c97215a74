// Updating one row of a small table of fetchq's without the executor: what
// an UPDATE of a non-key column would do, for the rows written at every
// commit (a queue's counter row, a group's committed offset). Only for a
// table as the extension creates it; anything else goes through SQL. Plain
// PostgreSQL calls: for use inside one pg_call.
#pragma once

#include "pg/postgres.hpp"

namespace fetchq::pg {

// False in a read-only transaction (and in parallel mode), where only the
// executor's own check may refuse the write, with its error (25006).
bool in_place_allowed();

// True, with its primary key opened in RowExclusiveLock, when `rel` is a
// plain heap table with no trigger, no row security, no CHECK constraint, no generated column, and
// no index but a primary key on plain columns: what an UPDATE of other columns would do besides
// writing the row, there is nothing of.
bool plain_keyed_table(Relation rel, Relation* primary_key);

// Removes the versions no one can see any more from a page, as an index
// lookup would before reading it. Takes its own pin: pruning moves tuples,
// so no tuple of the page may be in use.
void prune_page(Relation rel, BlockNumber block);

// The version of a row visible to `snapshot`, found from an address the row
// had by following its update chain: a few steps, where an index lookup
// walks every version of the row that no one may prune yet (under a held
// xmin horizon, or within a transaction that updates the row again and
// again, thousands). Its page is pruned first, as an index lookup would.
// False when the address no longer leads to a visible version; else the
// caller checks that it is still the same row (the address may have been
// reused) and releases *buffer.
bool fetch_from_address(Relation rel, Snapshot snapshot, ItemPointerData address, HeapTuple tuple,
                        Buffer* buffer);

// After a non-HOT update of a row locked by its updater: the new version's
// entry in the primary key, whose key did not change. No uniqueness to check
// (that would visit every version of the row no one may prune yet), and the
// index may delete older versions' entries bottom-up.
void insert_unchanged_key(Relation rel, Relation primary_key, HeapTuple tuple);

// After an insert: the new row's entry in the primary key, checked unique.
void insert_new_key(Relation rel, Relation primary_key, HeapTuple tuple);

}  // namespace fetchq::pg
