#include "ops/streams/stream_commit.hpp"

#include "pg/postgres.hpp"

extern "C" {
#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "parser/parse_relation.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
}

#include "ops/streams/stream_tables.hpp"
#include "pg/guard.hpp"
#include "pg/row_in_place.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

using Outcome = CommitInPlace::Outcome;

// Plain data for the one pg_call.
struct Commit {
    int32 stream;
    text* group;
    text* key;
    int64 offset;
    Outcome outcome;
    int64 committed;
    int64 last;
    bool retry;  // the row changed under us (READ COMMITTED): look again
};

// The key's last offset as `snapshot` sees it; 0 for a key without messages.
int64 last_offset(const Commit* c, Snapshot snapshot) {
    static const char* const kColumns[] = {"stream_id", "key", "last_offset"};
    return bigint_by_key("stream_keys", kColumns, 3, snapshot, c->stream, {c->key}, "last_offset");
}

void update_row(Commit* c, Relation rel, Relation index, HeapTuple row) {
    HeapTuple moved = with_columns(
        rel, row, {"committed", "committed_at"},
        {Int64GetDatum(c->offset), TimestampTzGetDatum(GetCurrentTransactionStartTimestamp())});
    if (update_in_place(rel, index, row->t_self, moved)) {
        c->outcome = Outcome::kMoved;
        c->committed = c->offset;
        return;
    }
    fail_on_transaction_snapshot();
    c->retry = true;
}

// One attempt, on a snapshot taken now as a statement would (in REPEATABLE
// READ the transaction's).
void try_commit(Commit* c) {
    c->retry = false;
    Snapshot snapshot = RegisterSnapshot(GetTransactionSnapshot());
    c->last = last_offset(c, snapshot);
    Relation rel = open_stream_table("stream_offsets", RowExclusiveLock);
    Relation index = nullptr;
    if (c->offset > c->last) {
        c->outcome = Outcome::kBeyond;
    } else if (!in_place_allowed() ||
               !has_typed_columns(rel,
                                  {{"committed", INT8OID}, {"committed_at", TIMESTAMPTZOID}}) ||
               !has_table_privileges(rel, ACL_SELECT | ACL_INSERT | ACL_UPDATE) ||
               !plain_keyed_table(rel, &index)) {
        // (The privileges the INSERT ... ON CONFLICT DO UPDATE would need.)
        c->outcome = Outcome::kUseSql;
    } else {
        CheckCmdReplicaIdentity(rel, CMD_UPDATE);
        HeapTuple row = row_by_key(rel, index, snapshot, c->stream, {c->group, c->key});
        if (row == nullptr) {
            c->outcome = Outcome::kUseSql;
        } else {
            bool isnull = true;
            c->committed = DatumGetInt64(heap_getattr(row, attnameAttNum(rel, "committed", false),
                                                      RelationGetDescr(rel), &isnull));
            if (c->committed >= c->offset)
                c->outcome = Outcome::kKept;
            else
                update_row(c, rel, index, row);
        }
        index_close(index, NoLock);
    }
    table_close(rel, NoLock);
    UnregisterSnapshot(snapshot);
}

}  // namespace

CommitInPlace commit_in_place(int32_t stream, const std::string& group, const std::string& key,
                              int64_t offset) {
    Commit c{};
    c.stream = stream;
    c.offset = offset;
    pg_call([&] {
        c.group = cstring_to_text_with_len(group.data(), static_cast<int>(group.size()));
        c.key = cstring_to_text_with_len(key.data(), static_cast<int>(key.size()));
        // This transaction's earlier appends and commits are to be seen.
        CommandCounterIncrement();
        do {
            CHECK_FOR_INTERRUPTS();
            try_commit(&c);
        } while (c.retry);
    });
    return {c.outcome, c.committed, c.last};
}

}  // namespace fetchq::ops
