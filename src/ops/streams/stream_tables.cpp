#include "ops/streams/stream_tables.hpp"

extern "C" {
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "executor/tuptable.h"
#include "parser/parse_relation.h"
#include "catalog/pg_type.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
}

namespace fetchq::ops {

Relation open_stream_table(const char* name, LOCKMODE lock) {
    const Oid relid = get_relname_relid(name, get_namespace_oid("fetchq", false));
    if (!OidIsValid(relid)) elog(ERROR, "table fetchq.%s is missing", name);
    return table_open(relid, lock);
}

void require_stream_select(Relation rel, const char* const* columns, int n) {
    const Oid relid = RelationGetRelid(rel);
    const Oid user = GetUserId();
    if (pg_class_aclcheck(relid, user, ACL_SELECT) != ACLCHECK_OK)
        for (int i = 0; i < n; ++i)
            if (pg_attribute_aclcheck(relid, attnameAttNum(rel, columns[i], false), user,
                                      ACL_SELECT) != ACLCHECK_OK)
                aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, RelationGetRelationName(rel));
    if (check_enable_rls(relid, InvalidOid, false) == RLS_ENABLED)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("row security on table \"%s\" is not supported",
                               RelationGetRelationName(rel)),
                        errhint("Disable row security on the tables of fetchq's streams.")));
}

namespace {

AttrNumber typed_column(Relation rel, const char* name, Oid type) {
    const AttrNumber n = attnameAttNum(rel, name, false);
    if (n <= 0 || TupleDescAttr(RelationGetDescr(rel), n - 1)->atttypid != type)
        return InvalidAttrNumber;
    return n;
}

}  // namespace

bool has_typed_columns(Relation rel, std::initializer_list<TypedColumn> columns) {
    for (const TypedColumn& c : columns)
        if (typed_column(rel, c.name, c.type) == InvalidAttrNumber) return false;
    return true;
}

AttrNumber require_typed_column(Relation rel, const char* name, Oid type) {
    const AttrNumber n = typed_column(rel, name, type);
    if (n == InvalidAttrNumber)
        ereport(ERROR,
                (errcode(ERRCODE_DATATYPE_MISMATCH),
                 errmsg("column \"%s\" of table fetchq.%s is missing or not of type %s", name,
                        RelationGetRelationName(rel), format_type_be(type)),
                 errhint("Keep the columns of the tables of streams as the extension made them.")));
    return n;
}

int init_stream_keys(ScanKeyData* keys, Relation index, int32 stream,
                     std::initializer_list<text*> texts) {
    ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(stream));
    AttrNumber column = 1;
    for (text* value : texts) {
        ScanKeyData* key = &keys[column];
        ++column;
        ScanKeyInit(key, column, BTEqualStrategyNumber, F_TEXTEQ, PointerGetDatum(value));
        // ScanKeyInit compares in the C collation; the index is sorted in
        // the column's.
        key->sk_collation = index->rd_indcollation[column - 1];
    }
    return column;
}

IndexScanDesc begin_key_scan(Relation rel, Relation index, Snapshot snapshot, ScanKeyData* keys,
                             int n) {
    IndexScanDesc scan = index_beginscan(rel, index, snapshot, n, 0);
    index_rescan(scan, keys, n, nullptr, 0);
    return scan;
}

HeapTuple row_by_key(Relation rel, Relation index, Snapshot snapshot, int32 stream,
                     std::initializer_list<text*> texts) {
    ScanKeyData keys[INDEX_MAX_KEYS];
    const int nkeys = init_stream_keys(keys, index, stream, texts);
    IndexScanDesc scan = begin_key_scan(rel, index, snapshot, keys, nkeys);
    TupleTableSlot* slot = table_slot_create(rel, nullptr);
    HeapTuple row = nullptr;
    if (index_getnext_slot(scan, ForwardScanDirection, slot)) {
        row = ExecCopySlotHeapTuple(slot);
        row->t_self = slot->tts_tid;
    }
    ExecDropSingleTupleTableSlot(slot);
    index_endscan(scan);
    return row;
}

bool has_table_privileges(Relation rel, AclMode privileges) {
    return pg_class_aclmask(RelationGetRelid(rel), GetUserId(), privileges, ACLMASK_ALL) ==
           privileges;
}

int64 bigint_by_key(const char* table, const char* const* columns, int n, Snapshot snapshot,
                    int32 stream, std::initializer_list<text*> texts, const char* column) {
    Relation rel = open_stream_table(table, AccessShareLock);
    require_stream_select(rel, columns, n);
    const AttrNumber value_att = require_typed_column(rel, column, INT8OID);
    Relation index = index_open(RelationGetPrimaryKeyIndex(rel), AccessShareLock);
    ScanKeyData keys[INDEX_MAX_KEYS];
    const int nkeys = init_stream_keys(keys, index, stream, texts);
    IndexScanDesc scan = begin_key_scan(rel, index, snapshot, keys, nkeys);
    TupleTableSlot* slot = table_slot_create(rel, nullptr);
    int64 value = 0;
    if (index_getnext_slot(scan, ForwardScanDirection, slot)) {
        bool isnull = true;
        const Datum d = slot_getattr(slot, value_att, &isnull);
        if (!isnull) value = DatumGetInt64(d);
    }
    ExecDropSingleTupleTableSlot(slot);
    index_endscan(scan);
    index_close(index, NoLock);
    table_close(rel, NoLock);
    return value;
}

}  // namespace fetchq::ops
