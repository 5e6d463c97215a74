// The tables of streams read and written without the executor
// (ops/stream_read.cpp, ops/stream_commit.cpp): opening them, the checks the
// executor would make, and lookups through their primary keys. Plain
// PostgreSQL calls: for use inside one pg_call.
#pragma once

#include "pg/postgres.hpp"

extern "C" {
#include "access/genam.h"
#include "access/relscan.h"
}

namespace fetchq::ops {

// fetchq.<name>, opened with `lock`.
Relation open_stream_table(const char* name, LOCKMODE lock);

// What the executor checks for a SELECT of these columns: the table's
// privilege or each column's. Row security is never enabled on the tables
// of streams; were it, a read without the executor could not apply it, so
// it is refused.
void require_stream_select(Relation rel, const char* const* columns, int n);

// A key of a text column of `index` (1-based), compared in its collation.
void init_text_key(ScanKeyData* key, Relation index, AttrNumber column, text* value);

// An index scan of `index` with `keys` (index columns).
IndexScanDesc begin_key_scan(Relation rel, Relation index, Snapshot snapshot, ScanKeyData* keys,
                             int n);

}  // namespace fetchq::ops
