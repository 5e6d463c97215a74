#include "ops/streams/stream_read.hpp"

extern "C" {
#include "access/genam.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "executor/tuptable.h"
#include "parser/parse_relation.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
}

#include "ops/catalog/catalog_owner.hpp"
#include "ops/streams/stream_tables.hpp"
#include "ops/streams/streams.hpp"
#include "pg/guard.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

// Plain data for the one pg_call: what to read, and the rows found
// (palloc'd, grown as needed).
struct Read {
    int32 stream;
    text* group;
    text* key;
    int32 limit;
    StreamMessage* rows;
    int count;
    int capacity;
};

// The group's committed offset of the key; 0 without a row.
int64 committed_offset(const Read* r, Snapshot snapshot) {
    static const char* const kColumns[] = {"stream_id", "group_name", "key", "committed"};
    return bigint_by_key("stream_offsets", kColumns, 4, snapshot, r->stream, {r->group, r->key},
                         "committed");
}

void add(Read* r, const StreamMessage& m) {
    if (r->count == r->capacity) {
        r->capacity *= 2;
        r->rows =
            static_cast<StreamMessage*>(repalloc(r->rows, sizeof(StreamMessage) * r->capacity));
    }
    r->rows[r->count++] = m;
}

void read_after(Read* r, Snapshot snapshot, int64 committed) {
    static const char* const kColumns[] = {"stream_id", "key", "offset", "payload", "appended_at"};
    Relation rel = open_stream_table("stream_messages", AccessShareLock);
    require_stream_select(rel, kColumns, 5);
    const AttrNumber offset_att = require_typed_column(rel, "offset", INT8OID);
    const AttrNumber payload_att = require_typed_column(rel, "payload", JSONBOID);
    const AttrNumber at_att = require_typed_column(rel, "appended_at", TIMESTAMPTZOID);
    Relation index = index_open(RelationGetPrimaryKeyIndex(rel), AccessShareLock);
    ScanKeyData keys[3];
    init_stream_keys(keys, index, r->stream, {r->key});
    ScanKeyInit(&keys[2], 3, BTGreaterStrategyNumber, F_INT8GT, Int64GetDatum(committed));
    IndexScanDesc scan = begin_key_scan(rel, index, snapshot, keys, 3);
    TupleTableSlot* slot = table_slot_create(rel, nullptr);
    while (r->count < r->limit && index_getnext_slot(scan, ForwardScanDirection, slot)) {
        StreamMessage m{};
        bool isnull = true;
        m.offset = DatumGetInt64(slot_getattr(slot, offset_att, &isnull));
        const Datum payload = slot_getattr(slot, payload_att, &m.payload_null);
        // A copy, whole: the slot's buffer goes, and a toasted value must not
        // outlive the snapshot that found it.
        m.payload = m.payload_null ? (Datum)0 : PointerGetDatum(PG_DETOAST_DATUM_COPY(payload));
        m.appended_at = DatumGetTimestampTz(slot_getattr(slot, at_att, &isnull));
        add(r, m);
    }
    ExecDropSingleTupleTableSlot(slot);
    index_endscan(scan);
    index_close(index, NoLock);
    table_close(rel, NoLock);
}

void read(Read* r) {
    // What a statement run now would see: in READ COMMITTED a new snapshot,
    // in REPEATABLE READ the transaction's.
    Snapshot snapshot = RegisterSnapshot(GetTransactionSnapshot());
    read_after(r, snapshot, committed_offset(r, snapshot));
    UnregisterSnapshot(snapshot);
}

}  // namespace

std::vector<StreamMessage> read_messages(int32_t stream, const std::string& group,
                                         const std::string& key, int32_t limit) {
    ensure_group(stream, group);
    Read r{stream, nullptr, nullptr, limit, nullptr, 0, 0};
    as_catalog_owner([&] {
        pg_call([&] {
            r.group = cstring_to_text_with_len(group.data(), static_cast<int>(group.size()));
            r.key = cstring_to_text_with_len(key.data(), static_cast<int>(key.size()));
            r.capacity = limit < 16 ? (limit < 1 ? 1 : limit) : 16;
            r.rows = static_cast<StreamMessage*>(palloc(sizeof(StreamMessage) * r.capacity));
            read(&r);
        });
    });
    return std::vector<StreamMessage>(r.rows, r.rows + r.count);
}

}  // namespace fetchq::ops
