#include "ops/counters/counter_row.hpp"

extern "C" {
#include "access/genam.h"
#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "common/int.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/relcache.h"
}

#include <string>
#include <unordered_map>

#include "pg/guard.hpp"
#include "pg/row_in_place.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
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
    ItemPointerData known;    // a version of the row this backend wrote, or invalid
    ItemPointerData written;  // out: the version this change wrote
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

// The row's version visible to `snapshot`, found from change->known
// (pg/row_in_place.hpp). False when the address no longer leads to the row
// (vacuumed, reused, the table rewritten); the index lookup then finds it.
bool fetch_from_known(Relation rel, Snapshot snapshot, const RowChange* change, HeapTuple tuple,
                      Buffer* buffer) {
    if (!fetch_from_address(rel, snapshot, change->known, tuple, buffer)) return false;
    TupleDesc desc = RelationGetDescr(rel);
    bool null_queue = false, null_slot = false;
    const Datum queue = heap_getattr(tuple, attnum_of(desc, "queue"), desc, &null_queue);
    const Datum slot = heap_getattr(tuple, attnum_of(desc, "slot"), desc, &null_slot);
    // The column's collation is deterministic: equal means equal bytes.
    if (!null_queue && !null_slot && DatumGetInt16(slot) == change->slot &&
        DatumGetBool(DirectFunctionCall2(byteaeq, queue, PointerGetDatum(change->queue))))
        return true;
    ReleaseBuffer(*buffer);
    return false;
}

// The row by its primary key; the returned copy is the caller's.
HeapTuple fetch_by_key(Relation rel, Relation index, Snapshot snapshot, const RowChange* change) {
    TupleDesc desc = RelationGetDescr(rel);
    ScanKeyData keys[2];
    const AttrNumber queue_att = attnum_of(desc, "queue");
    ScanKeyInit(&keys[0], queue_att, BTEqualStrategyNumber, F_TEXTEQ,
                PointerGetDatum(change->queue));
    // ScanKeyInit compares in the C collation; the index is sorted in the
    // column's.
    keys[0].sk_collation = TupleDescAttr(desc, queue_att - 1)->attcollation;
    ScanKeyInit(&keys[1], attnum_of(desc, "slot"), BTEqualStrategyNumber, F_INT2EQ,
                Int16GetDatum(change->slot));
    SysScanDesc scan = systable_beginscan(rel, RelationGetRelid(index), true, snapshot, 2, keys);
    HeapTuple found = systable_getnext(scan);
    if (found) found = heap_copytuple(found);
    systable_endscan(scan);
    return found;
}

// One attempt: find the row in a fresh snapshot and update it, waiting for
// a transaction that holds it, as UPDATE does. TM_Ok means the version read
// was the newest, so the sums are right; a row updated or deleted by a
// transaction that committed after the snapshot means another attempt.
Outcome try_update(Relation rel, Relation index, RowChange* change) {
    Snapshot snapshot = RegisterSnapshot(GetLatestSnapshot());
    HeapTupleData known;
    Buffer buffer = InvalidBuffer;
    HeapTuple updated = nullptr;
    ItemPointerData old_tid;
    if (fetch_from_known(rel, snapshot, change, &known, &buffer)) {
        old_tid = known.t_self;
        updated = changed_tuple(rel, &known, change);
        ReleaseBuffer(buffer);
    } else if (HeapTuple found = fetch_by_key(rel, index, snapshot, change)) {
        old_tid = found->t_self;
        updated = changed_tuple(rel, found, change);
    }
    Outcome outcome = Outcome::kMissing;
    if (updated) {
        if (update_in_place(rel, index, old_tid, updated)) {
            change->written = updated->t_self;
            outcome = Outcome::kUpdated;
        } else {
            outcome = Outcome::kRetry;
        }
    }
    UnregisterSnapshot(snapshot);
    return outcome;
}

// Opens fetchq.counters for the rows of one flush, as fetchq's own write:
// no privilege of the caller is needed (counter_row.hpp); a publication's
// demand for a replica identity is checked. index stays NULL when the table
// is not a plain_keyed_table().
void open_counters(CounterTable* t) {
    // Changes made earlier in this transaction (metric_set) must be seen.
    CommandCounterIncrement();
    t->rel = table_open(RangeVarGetRelid(makeRangeVar(const_cast<char*>("fetchq"),
                                                      const_cast<char*>("counters"), -1),
                                         RowExclusiveLock, false),
                        NoLock);
    CheckCmdReplicaIdentity(t->rel, CMD_UPDATE);
    t->index = nullptr;
    if (!plain_keyed_table(t->rel, &t->index)) t->index = nullptr;
}

// Outcome::kMissing also when the table is not a plain_keyed_table(): the caller's
// INSERT ... ON CONFLICT DO UPDATE then adds the changes.
bool update_row(const CounterTable* t, RowChange* change) {
    if (t->index == nullptr) return false;
    Outcome outcome;
    while ((outcome = try_update(t->rel, t->index, change)) == Outcome::kRetry)
        CHECK_FOR_INTERRUPTS();
    return outcome == Outcome::kUpdated;
}

// Per queue, where this backend last wrote its counter row (and in which
// slot): the start of the next update's search (fetch_from_known). Only a
// hint, checked before use.
struct KnownRow {
    int16 slot;
    ItemPointerData tid;
};
std::unordered_map<std::string, KnownRow> g_known_rows;

}  // namespace

CounterTable counter_table_open() {
    CounterTable t;
    pg_call([&] { open_counters(&t); });
    return t;
}

void counter_table_close(CounterTable& t) {
    pg_call([&] {
        if (t.index) index_close(t.index, RowExclusiveLock);
        table_close(t.rel, NoLock);
    });
    t = CounterTable{};
}

bool counter_row_add(const CounterTable& t, const core::CounterRow& row, int16 slot) {
    RowChange change{};
    change.slot = slot;
    for (std::size_t i = 0; i < core::kCounterColumns.size(); ++i) {
        if (!row.deltas[i]) continue;
        change.changes[change.count++] = {core::kCounterColumns[i].data(), *row.deltas[i]};
    }
    KnownRow& known = g_known_rows[row.queue];
    if (known.slot == slot) change.known = known.tid;
    const char* queue = row.queue.c_str();
    const int length = static_cast<int>(row.queue.size());
    const bool updated = pg_call([&] {
        change.queue = cstring_to_text_with_len(queue, length);
        return update_row(&t, &change);
    });
    known = {slot, change.written};
    return updated;
}

}  // namespace fetchq::ops
