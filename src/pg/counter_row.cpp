#include "pg/counter_row.hpp"

extern "C" {
#include "access/genam.h"
#include "access/heapam.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "common/int.h"
#include "nodes/makefuncs.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/relcache.h"
}

#include "pg/guard.hpp"

namespace fetchq::pg {
namespace {

constexpr int kColumns = static_cast<int>(core::kCounterColumns.size());

// The change of one column, by its attribute number; plain data, so that it
// can cross into pg_call.
struct ColumnChange {
    const char* name;
    int64 delta;
};

struct RowChange {
    text* queue;
    int16 slot;
    int count;
    ColumnChange changes[kColumns];
};

AttrNumber attnum_of(TupleDesc desc, const char* name) {
    for (int i = 0; i < desc->natts; ++i) {
        Form_pg_attribute att = TupleDescAttr(desc, i);
        if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0) return att->attnum;
    }
    elog(ERROR, "column \"%s\" of fetchq.counters is missing", name);
    return InvalidAttrNumber;
}

// The locked tuple plus the changes, with updated_at = now().
HeapTuple changed_tuple(Relation rel, HeapTuple old, const RowChange* change) {
    TupleDesc desc = RelationGetDescr(rel);
    Datum* values = static_cast<Datum*>(palloc(sizeof(Datum) * desc->natts));
    bool* nulls = static_cast<bool*>(palloc(sizeof(bool) * desc->natts));
    bool* replace = static_cast<bool*>(palloc0(sizeof(bool) * desc->natts));
    heap_deform_tuple(old, desc, values, nulls);
    for (int i = 0; i < change->count; ++i) {
        const int k = attnum_of(desc, change->changes[i].name) - 1;
        int64 sum = change->changes[i].delta;
        if (!nulls[k] && pg_add_s64_overflow(DatumGetInt64(values[k]), sum, &sum))
            ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                            errmsg("counter \"%s\" is out of range for type bigint",
                                   change->changes[i].name)));
        values[k] = Int64GetDatum(sum);
        nulls[k] = false;
        replace[k] = true;
    }
    const int at = attnum_of(desc, "updated_at") - 1;
    values[at] = TimestampTzGetDatum(GetCurrentTransactionStartTimestamp());
    nulls[at] = false;
    replace[at] = true;
    return heap_modify_tuple(old, desc, values, nulls, replace);
}

enum class Outcome { kUpdated, kMissing, kRetry };

// One attempt: find the row in a fresh snapshot, lock it, update it. A row
// updated or deleted by a transaction that committed after the snapshot
// means another attempt.
Outcome try_update(Relation rel, Oid pkey, const RowChange* change) {
    Snapshot snapshot = RegisterSnapshot(GetLatestSnapshot());
    ScanKeyData keys[2];
    ScanKeyInit(&keys[0], attnum_of(RelationGetDescr(rel), "queue"), BTEqualStrategyNumber,
                F_TEXTEQ, PointerGetDatum(change->queue));
    ScanKeyInit(&keys[1], attnum_of(RelationGetDescr(rel), "slot"), BTEqualStrategyNumber, F_INT2EQ,
                Int16GetDatum(change->slot));
    SysScanDesc scan = systable_beginscan(rel, pkey, true, snapshot, 2, keys);
    HeapTuple found = systable_getnext(scan);
    Outcome outcome = Outcome::kMissing;
    if (found) {
        HeapTupleData locked;
        locked.t_self = found->t_self;
        Buffer buffer;
        TM_FailureData failure;
        const TM_Result result =
            heap_lock_tuple(rel, &locked, GetCurrentCommandId(true), LockTupleNoKeyExclusive,
                            LockWaitBlock, false, &buffer, &failure);
        if (result == TM_Ok) {
            HeapTuple current = heap_copytuple(&locked);
            ReleaseBuffer(buffer);
            HeapTuple updated = changed_tuple(rel, current, change);
            CatalogTupleUpdate(rel, &current->t_self, updated);
            outcome = Outcome::kUpdated;
        } else {
            ReleaseBuffer(buffer);
            if (result != TM_Updated && result != TM_Deleted)
                elog(ERROR, "unexpected result %d locking a row of fetchq.counters",
                     static_cast<int>(result));
            outcome = Outcome::kRetry;
        }
    }
    systable_endscan(scan);
    UnregisterSnapshot(snapshot);
    return outcome;
}

bool update_row(const RowChange* change) {
    // Changes made earlier in this transaction (metric_set) must be seen.
    CommandCounterIncrement();
    Relation rel = table_open(RangeVarGetRelid(makeRangeVar(const_cast<char*>("fetchq"),
                                                            const_cast<char*>("counters"), -1),
                                               RowExclusiveLock, false),
                              NoLock);
    // The caller's privileges, as the UPDATE this replaces would check them.
    const AclResult acl = pg_class_aclcheck(RelationGetRelid(rel), GetUserId(), ACL_UPDATE);
    if (acl != ACLCHECK_OK) aclcheck_error(acl, OBJECT_TABLE, RelationGetRelationName(rel));
    const Oid pkey = RelationGetPrimaryKeyIndex(rel);
    if (!OidIsValid(pkey)) elog(ERROR, "fetchq.counters has no primary key");
    Outcome outcome;
    while ((outcome = try_update(rel, pkey, change)) == Outcome::kRetry) CHECK_FOR_INTERRUPTS();
    table_close(rel, NoLock);
    return outcome == Outcome::kUpdated;
}

}  // namespace

bool counter_row_add(const core::CounterRow& row, int16 slot) {
    RowChange change{};
    change.slot = slot;
    for (std::size_t i = 0; i < core::kCounterColumns.size(); ++i) {
        if (!row.deltas[i]) continue;
        change.changes[change.count++] = {core::kCounterColumns[i].data(), *row.deltas[i]};
    }
    const char* queue = row.queue.c_str();
    const int length = static_cast<int>(row.queue.size());
    return pg_call([&] {
        change.queue = cstring_to_text_with_len(queue, length);
        return update_row(&change);
    });
}

}  // namespace fetchq::pg
