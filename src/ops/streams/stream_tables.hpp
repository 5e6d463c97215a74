// The tables of streams read and written without the executor
// (ops/streams/stream_read.cpp, ops/streams/stream_commit.cpp): opening them, the checks the
// executor would make, and lookups through their primary keys. Plain
// PostgreSQL calls: for use inside one pg_call.
#pragma once

#include <initializer_list>

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

// A column as the extension creates it.
struct TypedColumn {
    const char* name;
    Oid type;
};

// True when each of `columns` is a column of `rel` (not dropped) of its type:
// a table altered otherwise takes the SQL path.
bool has_typed_columns(Relation rel, std::initializer_list<TypedColumn> columns);

// The column's number; raises 42804 when it is missing or of another type.
AttrNumber require_typed_column(Relation rel, const char* name, Oid type);

// The equality keys of a primary key that starts (stream_id, text, ...):
// keys[0] the stream, then one per text in index column order. Returns how
// many were set.
int init_stream_keys(ScanKeyData* keys, Relation index, int32 stream,
                     std::initializer_list<text*> texts);

// An index scan of `index` with `keys` (index columns).
IndexScanDesc begin_key_scan(Relation rel, Relation index, Snapshot snapshot, ScanKeyData* keys,
                             int n);

// A copy of the row of `rel` whose primary key `index` is (stream,
// texts...), as `snapshot` sees it, with its t_self; NULL without one.
HeapTuple row_by_key(Relation rel, Relation index, Snapshot snapshot, int32 stream,
                     std::initializer_list<text*> texts);

// True when the caller has all of `privileges` on the table itself (a grant
// of columns only takes the SQL path).
bool has_table_privileges(Relation rel, AclMode privileges);

// The bigint `column` of the row of fetchq.<table> whose primary key is
// (stream, texts...), as `snapshot` sees it; 0 without a row. Checked as a
// SELECT of `columns` (require_stream_select).
int64 bigint_by_key(const char* table, const char* const* columns, int n, Snapshot snapshot,
                    int32 stream, std::initializer_list<text*> texts, const char* column);

}  // namespace fetchq::ops
