#include "ops/streams/stream_append.hpp"

#include "pg/postgres.hpp"

extern "C" {
#include "access/heapam.h"
#include "access/table.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "nodes/primnodes.h"
#include "parser/parse_relation.h"
#include "utils/acl.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
}

#include "ops/streams/stream_tables.hpp"
#include "pg/guard.hpp"
#include "pg/row_in_place.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

// Plain data for the one pg_call.
struct Append {
    int32 stream;
    text* key;
    Datum payload;
    bool payload_null;
    bool use_sql;
    int64 offset;
    bool retry;  // the head row changed under us (READ COMMITTED): look again
};

// The head row this transaction moved last, where its next append to the
// key looks first: 100 appends to a key in one transaction made 100 versions
// of its head row, and each index lookup walked all of the earlier ones (and
// those of other transactions that no one may prune yet). Not across
// transactions: other appenders may have moved the row hundreds of versions
// on since, a chain an index lookup walks faster. Plain data.
struct KnownHead {
    TransactionId xid = InvalidTransactionId;
    int32 stream = 0;
    int key_len = -1;
    char key[256];
    ItemPointerData address;
};
KnownHead g_known;

// The two tables, with their primary keys once they passed the checks.
struct Tables {
    Relation keys = nullptr, keys_pk = nullptr;
    Relation messages = nullptr, messages_pk = nullptr;
};

// The stored form of a default found to be now(), compared as text at the
// next appends instead of parsed again. Plain data.
char g_now_default[512];

// Only appended_at has a default, and it is now(): the insert below fills in
// what the INSERT leaves out as the INSERT would.
bool plain_defaults(Relation messages) {
    const TupleConstr* constr = RelationGetDescr(messages)->constr;
    if (constr == nullptr || constr->num_defval != 1 ||
        constr->defval[0].adnum != attnameAttNum(messages, "appended_at", false))
        return false;
    const char* stored = constr->defval[0].adbin;
    if (strcmp(stored, g_now_default) == 0) return true;
    Node* expr = static_cast<Node*>(stringToNode(stored));
    const bool now = IsA(expr, FuncExpr) && castNode(FuncExpr, expr)->funcid == F_NOW;
    if (now && strlen(stored) < sizeof(g_now_default)) strcpy(g_now_default, stored);
    return now;
}

// The columns as the extension creates them (else the statement converts
// or refuses), and what the statement would need: INSERT ... ON CONFLICT DO
// UPDATE ... RETURNING on the keys, INSERT ... RETURNING on the messages.
bool open_plain_tables(Tables* t) {
    t->keys = open_stream_table("stream_keys", RowExclusiveLock);
    t->messages = open_stream_table("stream_messages", RowExclusiveLock);
    if (!has_typed_columns(t->keys,
                           {{"stream_id", INT4OID}, {"key", TEXTOID}, {"last_offset", INT8OID}}) ||
        !has_typed_columns(t->messages, {{"stream_id", INT4OID},
                                         {"key", TEXTOID},
                                         {"offset", INT8OID},
                                         {"payload", JSONBOID},
                                         {"appended_at", TIMESTAMPTZOID}}) ||
        !has_table_privileges(t->keys, ACL_SELECT | ACL_INSERT | ACL_UPDATE) ||
        !has_table_privileges(t->messages, ACL_SELECT | ACL_INSERT) ||
        !plain_defaults(t->messages) || !plain_keyed_table(t->keys, &t->keys_pk))
        return false;
    if (plain_keyed_table(t->messages, &t->messages_pk)) return true;
    index_close(t->keys_pk, NoLock);
    t->keys_pk = nullptr;
    return false;
}

void close_tables(Tables* t) {
    if (t->messages_pk) index_close(t->messages_pk, NoLock);
    if (t->keys_pk) index_close(t->keys_pk, NoLock);
    table_close(t->messages, NoLock);
    table_close(t->keys, NoLock);
}

bool is_known(const Append* a) {
    return TransactionIdIsValid(g_known.xid) && g_known.xid == GetTopTransactionIdIfAny() &&
           g_known.stream == a->stream &&
           g_known.key_len == static_cast<int>(VARSIZE_ANY_EXHDR(a->key)) &&
           memcmp(g_known.key, VARDATA_ANY(a->key), g_known.key_len) == 0;
}

void remember(const Append* a, ItemPointerData address) {
    g_known.key_len = -1;
    const int len = static_cast<int>(VARSIZE_ANY_EXHDR(a->key));
    if (len >= static_cast<int>(sizeof(g_known.key))) return;
    memcpy(g_known.key, VARDATA_ANY(a->key), len);
    g_known.key_len = len;
    g_known.xid = GetTopTransactionId();
    g_known.stream = a->stream;
    g_known.address = address;
}

// The key's head row as `snapshot` sees it, from the address this backend
// moved it to last when it can, else through the primary key. A copy with
// its t_self; NULL without one.
HeapTuple find_head(const Append* a, const Tables& t, Snapshot snapshot) {
    if (is_known(a)) {
        HeapTupleData tuple;
        Buffer buffer;
        if (fetch_from_address(t.keys, snapshot, g_known.address, &tuple, &buffer)) {
            TupleDesc desc = RelationGetDescr(t.keys);
            bool null_stream = true, null_key = true;
            const Datum stream =
                heap_getattr(&tuple, attnameAttNum(t.keys, "stream_id", false), desc, &null_stream);
            const Datum key =
                heap_getattr(&tuple, attnameAttNum(t.keys, "key", false), desc, &null_key);
            // The column's collation is deterministic: equal means equal bytes.
            const bool same =
                !null_stream && !null_key && DatumGetInt32(stream) == a->stream &&
                DatumGetBool(DirectFunctionCall2(byteaeq, key, PointerGetDatum(a->key)));
            HeapTuple head = same ? heap_copytuple(&tuple) : nullptr;
            ReleaseBuffer(buffer);
            if (head != nullptr) return head;
        }
    }
    return row_by_key(t.keys, t.keys_pk, snapshot, a->stream, {a->key});
}

// The message's columns as the INSERT would write them, its offset still to
// be set.
struct MessageColumns {
    Datum* values;
    bool* nulls;
    int offset;  // index of the offset column
};

// NULL-free where the table wants it, else false (a NOT NULL added to the
// table: SQL then says so).
bool message_columns(const Append* a, Relation messages, MessageColumns* m) {
    TupleDesc desc = RelationGetDescr(messages);
    m->values = static_cast<Datum*>(palloc0(sizeof(Datum) * desc->natts));
    m->nulls = static_cast<bool*>(palloc(sizeof(bool) * desc->natts));
    for (int i = 0; i < desc->natts; ++i) m->nulls[i] = true;
    auto set = [&](const char* column, Datum value, bool isnull) {
        const int i = attnameAttNum(messages, column, false) - 1;
        m->values[i] = value;
        m->nulls[i] = isnull;
        return i;
    };
    set("stream_id", Int32GetDatum(a->stream), false);
    set("key", PointerGetDatum(a->key), false);
    m->offset = set("offset", Int64GetDatum(0), false);
    set("payload", a->payload, a->payload_null);
    set("appended_at", TimestampTzGetDatum(GetCurrentTransactionStartTimestamp()), false);
    for (int i = 0; i < desc->natts; ++i) {
        const Form_pg_attribute attr = TupleDescAttr(desc, i);
        if (m->nulls[i] && attr->attnotnull && !attr->attisdropped) return false;
    }
    return true;
}

// The head row with the next offset; sets a->offset, or a->retry.
bool move_head(Append* a, const Tables& t, HeapTuple head) {
    bool isnull = true;
    a->offset = DatumGetInt64(heap_getattr(head, attnameAttNum(t.keys, "last_offset", false),
                                           RelationGetDescr(t.keys), &isnull)) +
                1;
    HeapTuple moved = with_columns(t.keys, head, {"last_offset"}, {Int64GetDatum(a->offset)});
    if (update_in_place(t.keys, t.keys_pk, head->t_self, moved)) {
        remember(a, moved->t_self);
        return true;
    }
    fail_on_transaction_snapshot();
    a->retry = true;
    return false;
}

// One attempt, on a snapshot taken now as a statement would (in REPEATABLE
// READ the transaction's).
void try_append(Append* a) {
    a->retry = false;
    a->use_sql = true;
    Tables t;
    if (open_plain_tables(&t)) {
        CheckCmdReplicaIdentity(t.keys, CMD_UPDATE);
        Snapshot snapshot = RegisterSnapshot(GetTransactionSnapshot());
        HeapTuple head = find_head(a, t, snapshot);
        UnregisterSnapshot(snapshot);
        MessageColumns m;
        if (head != nullptr && message_columns(a, t.messages, &m) && move_head(a, t, head)) {
            m.values[m.offset] = Int64GetDatum(a->offset);
            HeapTuple message = heap_form_tuple(RelationGetDescr(t.messages), m.values, m.nulls);
            heap_insert(t.messages, message, GetCurrentCommandId(true), 0, nullptr);
            insert_new_key(t.messages, t.messages_pk, message);
            a->use_sql = false;
        }
    }
    close_tables(&t);
}

}  // namespace

std::optional<int64_t> append_in_place(int32_t stream, const std::string& key, Datum payload,
                                       bool payload_null) {
    if (!pg_call([] { return in_place_allowed(); })) return std::nullopt;
    Append a{};
    a.stream = stream;
    a.payload = payload;
    a.payload_null = payload_null;
    pg_call([&] {
        // What an append allocates (the message's row with its payload
        // among it) goes with it: a stream_set of many appends would keep
        // all of it until the call ends. Only plain data leaves.
        MemoryContext work = AllocSetContextCreate(CurrentMemoryContext, "fetchq stream append",
                                                   ALLOCSET_DEFAULT_SIZES);
        MemoryContext caller = MemoryContextSwitchTo(work);
        a.key = cstring_to_text_with_len(key.data(), static_cast<int>(key.size()));
        // This transaction's earlier appends are to be seen.
        CommandCounterIncrement();
        do {
            CHECK_FOR_INTERRUPTS();
            try_append(&a);
        } while (a.retry);
        MemoryContextSwitchTo(caller);
        MemoryContextDelete(work);
    });
    if (a.use_sql) return std::nullopt;
    return a.offset;
}

}  // namespace fetchq::ops
