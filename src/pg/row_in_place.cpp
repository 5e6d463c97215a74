#include "pg/row_in_place.hpp"

extern "C" {
#include "access/genam.h"
#include "access/heapam.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "parser/parse_relation.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/index.h"
#include "nodes/execnodes.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
#include "utils/relcache.h"
}

namespace fetchq::pg {

bool in_place_allowed() { return !XactReadOnly && !IsInParallelMode(); }

bool plain_keyed_table(Relation rel, Relation* primary_key) {
    if (rel->rd_rel->relkind != RELKIND_RELATION || rel->rd_rel->relam != HEAP_TABLE_AM_OID ||
        rel->trigdesc || rel->rd_rel->relrowsecurity || rel->rd_rel->relhasrules)
        return false;
    const TupleConstr* constr = RelationGetDescr(rel)->constr;
    if (constr && (constr->num_check > 0 || constr->has_generated_stored)) return false;
    List* indexes = RelationGetIndexList(rel);
    const bool one = list_length(indexes) == 1 && linitial_oid(indexes) == rel->rd_pkindex;
    list_free(indexes);
    if (!one) return false;
    *primary_key = index_open(rel->rd_pkindex, RowExclusiveLock);
    Form_pg_index form = (*primary_key)->rd_index;
    if (form->indimmediate && !form->indisexclusion && form->indisready &&
        RelationGetIndexExpressions(*primary_key) == NIL &&
        RelationGetIndexPredicate(*primary_key) == NIL)
        return true;
    index_close(*primary_key, RowExclusiveLock);
    *primary_key = nullptr;
    return false;
}

namespace {

// Removes the versions no one can see any more from a page. Takes its own
// pin: pruning moves tuples, so no tuple of the page may be in use.
void prune_page(Relation rel, BlockNumber block) {
    const Buffer buffer = ReadBuffer(rel, block);
    heap_page_prune_opt(rel, buffer);
    ReleaseBuffer(buffer);
}

}  // namespace

bool fetch_from_address(Relation rel, Snapshot snapshot, ItemPointerData address, HeapTuple tuple,
                        Buffer* buffer) {
    if (!ItemPointerIsValid(&address)) return false;
    TableScanDesc scan = table_beginscan_tid(rel, snapshot);
    const bool valid = table_tuple_tid_valid(scan, &address);
    if (valid) table_tuple_get_latest_tid(scan, &address);
    table_endscan(scan);
    if (!valid) return false;
    tuple->t_self = address;
    return heap_fetch(rel, snapshot, tuple, buffer, false);
}

bool update_in_place(Relation rel, Relation primary_key, ItemPointerData old,
                     HeapTuple replacement) {
    prune_page(rel, ItemPointerGetBlockNumber(&old));
    TM_FailureData failure;
    LockTupleMode mode;
    const TM_Result result = heap_update(rel, &old, replacement, GetCurrentCommandId(true),
                                         InvalidSnapshot, true, &failure, &mode);
    if (result == TM_Ok) {
        if (!HeapTupleIsHeapOnly(replacement)) insert_unchanged_key(rel, primary_key, replacement);
        return true;
    }
    if (result != TM_Updated && result != TM_Deleted)
        elog(ERROR, "unexpected result %d updating a row of \"%s\"", static_cast<int>(result),
             RelationGetRelationName(rel));
    return false;
}

void fail_on_transaction_snapshot() {
    if (IsolationUsesXactSnapshot())
        ereport(ERROR, (errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
                        errmsg("could not serialize access due to concurrent update")));
}

HeapTuple with_columns(Relation rel, HeapTuple old, std::initializer_list<const char*> names,
                       std::initializer_list<Datum> values) {
    TupleDesc desc = RelationGetDescr(rel);
    Datum* all = static_cast<Datum*>(palloc0(sizeof(Datum) * desc->natts));
    bool* nulls = static_cast<bool*>(palloc0(sizeof(bool) * desc->natts));
    bool* replace = static_cast<bool*>(palloc0(sizeof(bool) * desc->natts));
    const Datum* value = values.begin();
    for (const char* name : names) {
        const int i = attnameAttNum(rel, name, false) - 1;
        all[i] = *value++;
        replace[i] = true;
    }
    return heap_modify_tuple(old, desc, all, nulls, replace);
}

namespace {

void insert_key(Relation rel, Relation primary_key, HeapTuple tuple, IndexUniqueCheck check,
                bool unchanged) {
    IndexInfo* info = BuildIndexInfo(primary_key);
    Datum values[INDEX_MAX_KEYS];
    bool nulls[INDEX_MAX_KEYS];
    for (int i = 0; i < info->ii_NumIndexAttrs; ++i)
        values[i] =
            heap_getattr(tuple, info->ii_IndexAttrNumbers[i], RelationGetDescr(rel), &nulls[i]);
    index_insert(primary_key, values, nulls, &tuple->t_self, rel, check, unchanged, info);
}

}  // namespace

void insert_unchanged_key(Relation rel, Relation primary_key, HeapTuple tuple) {
    insert_key(rel, primary_key, tuple, UNIQUE_CHECK_NO, true);
}

void insert_new_key(Relation rel, Relation primary_key, HeapTuple tuple) {
    insert_key(rel, primary_key, tuple, UNIQUE_CHECK_YES, false);
}

}  // namespace fetchq::pg
