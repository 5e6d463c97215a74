#include "ops/counters/deferred.hpp"

#include <cstring>

#include "ops/config/settings.hpp"
#include "pg/guard.hpp"

extern "C" {
#include "access/transam.h"
#include "access/xact.h"
#include "storage/lwlock.h"
#include "storage/procarray.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/hsearch.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

constexpr std::size_t kColumns = core::kCounterColumns.size();
constexpr int kRecountedDatabases = 64;

struct EntryKey {
    Oid db;
    char queue[NAMEDATALEN];
};

struct Entry {
    EntryKey key;
    slock_t mutex;  // pending, mask, pins, updated_at (folded: under the exclusive lock)
    int pins;       // commits under way that reserved this entry
    uint32 mask;
    int64 pending[kColumns];
    TimestampTz updated_at;
    TransactionId folded_xid;  // InvalidTransactionId: nothing folded
    uint32 folded_mask;
    int64 folded[kColumns];
};

struct Control {
    LWLock* lock;  // shared: find and update entries; exclusive: add or remove them, fold
    int recounted_count;
    Oid recounted[kRecountedDatabases];
};

Control* g_control = nullptr;
HTAB* g_table = nullptr;

constexpr const char* kTranche = "fetchq counters";

EntryKey key_of(std::string_view queue) {
    EntryKey key;
    memset(&key, 0, sizeof(key));
    key.db = MyDatabaseId;
    const std::size_t n = std::min(queue.size(), static_cast<std::size_t>(NAMEDATALEN - 1));
    memcpy(key.queue, queue.data(), n);
    return key;
}

bool used(const Entry& e) {
    return e.pins > 0 || e.mask != 0 || TransactionIdIsValid(e.folded_xid);
}

}  // namespace

Size deferred_shmem_size() {
    if (settings.deferred_counter_slots <= 0) return 0;
    return add_size(MAXALIGN(sizeof(Control)),
                    hash_estimate_size(settings.deferred_counter_slots, sizeof(Entry)));
}

void deferred_shmem_request() {
    if (settings.deferred_counter_slots <= 0) return;
    RequestAddinShmemSpace(deferred_shmem_size());
    RequestNamedLWLockTranche(kTranche, 1);
}

void deferred_shmem_init() {
    if (settings.deferred_counter_slots <= 0) return;
    bool found = false;
    g_control = static_cast<Control*>(ShmemInitStruct("fetchq counters", sizeof(Control), &found));
    if (!found) {
        memset(g_control, 0, sizeof(Control));
        g_control->lock = &(GetNamedLWLockTranche(kTranche))->lock;
    }
    HASHCTL info;
    memset(&info, 0, sizeof(info));
    info.keysize = sizeof(EntryKey);
    info.entrysize = sizeof(Entry);
    g_table = ShmemInitHash("fetchq counter deltas", settings.deferred_counter_slots,
                            settings.deferred_counter_slots, &info,
                            HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
}

bool deferred_available() { return g_table != nullptr; }

bool deferred_reserve(std::string_view queue) {
    if (g_table == nullptr || queue.size() >= NAMEDATALEN) return false;
    const EntryKey key = key_of(queue);
    return pg_call([&] {
        LWLockAcquire(g_control->lock, LW_SHARED);
        auto* e = static_cast<Entry*>(hash_search(g_table, &key, HASH_FIND, nullptr));
        if (e != nullptr) {
            SpinLockAcquire(&e->mutex);
            e->pins++;
            SpinLockRelease(&e->mutex);
        }
        LWLockRelease(g_control->lock);
        if (e != nullptr) return true;
        LWLockAcquire(g_control->lock, LW_EXCLUSIVE);
        bool found = false;
        e = static_cast<Entry*>(hash_search(g_table, &key, HASH_ENTER_NULL, &found));
        if (e != nullptr) {
            if (!found) {
                SpinLockInit(&e->mutex);
                e->pins = 0;
                e->mask = 0;
                memset(e->pending, 0, sizeof(e->pending));
                e->updated_at = 0;
                e->folded_xid = InvalidTransactionId;
                e->folded_mask = 0;
                memset(e->folded, 0, sizeof(e->folded));
            }
            e->pins++;  // the exclusive lock keeps everyone else out
        }
        LWLockRelease(g_control->lock);
        return e != nullptr;
    });
}

namespace {

// Runs each(entry) for the reserved entry of every row, and unpins it.
template <typename Each>
void for_reserved(const std::vector<core::CounterRow>& rows, Each&& each) {
    if (g_table == nullptr || rows.empty()) return;
    // The lock's acquisition can raise: inside pg_call, the callers' vectors
    // are never left behind by a longjmp.
    pg_call([&] {
        LWLockAcquire(g_control->lock, LW_SHARED);
        for (const core::CounterRow& row : rows) {
            const EntryKey key = key_of(row.queue);
            auto* e = static_cast<Entry*>(hash_search(g_table, &key, HASH_FIND, nullptr));
            if (e == nullptr) continue;  // cannot happen: pinned entries stay
            SpinLockAcquire(&e->mutex);
            each(*e, row);
            if (e->pins > 0) e->pins--;
            SpinLockRelease(&e->mutex);
        }
        LWLockRelease(g_control->lock);
    });
}

}  // namespace

void deferred_add(const std::vector<core::CounterRow>& rows) {
    const TimestampTz now = GetCurrentTimestamp();
    for_reserved(rows, [&](Entry& e, const core::CounterRow& row) {
        for (std::size_t i = 0; i < kColumns; ++i) {
            if (!row.deltas[i]) continue;
            e.pending[i] += *row.deltas[i];
            e.mask |= 1u << i;
        }
        e.updated_at = now;
    });
}

void deferred_release(const std::vector<core::CounterRow>& rows) {
    for_reserved(rows, [](Entry&, const core::CounterRow&) {});
}

namespace {

struct Copied {
    EntryKey key;
    uint32 mask;
    int64 pending[kColumns];
    TimestampTz updated_at;
    TransactionId folded_xid;
    uint32 folded_mask;
    int64 folded[kColumns];
};

// The entries of this database (one queue's when `queue`), copied under the
// lock into a palloc'd array. PostgreSQL calls: run inside pg_call.
void copy_entries(const char* queue, Copied** copied, int* count) {
    *count = 0;
    LWLockAcquire(g_control->lock, LW_SHARED);
    const int capacity = queue ? 1 : static_cast<int>(hash_get_num_entries(g_table));
    Copied* out = static_cast<Copied*>(palloc(sizeof(Copied) * Max(capacity, 1)));
    *copied = out;
    HASH_SEQ_STATUS status;
    hash_seq_init(&status, g_table);
    while (auto* e = static_cast<Entry*>(hash_seq_search(&status))) {
        if (e->key.db != MyDatabaseId) continue;
        if (queue != nullptr && strcmp(queue, e->key.queue) != 0) continue;
        if (*count >= capacity) continue;
        Copied& c = out[(*count)++];
        c.key = e->key;
        SpinLockAcquire(&e->mutex);
        c.mask = e->mask;
        memcpy(c.pending, e->pending, sizeof(c.pending));
        c.updated_at = e->updated_at;
        SpinLockRelease(&e->mutex);
        // Changed only under the exclusive lock.
        c.folded_xid = e->folded_xid;
        c.folded_mask = e->folded_mask;
        memcpy(c.folded, e->folded, sizeof(c.folded));
    }
    LWLockRelease(g_control->lock);
}

// Whether `snapshot` sees the commit of the fold `xid` (then the rows it
// wrote hold its changes).
bool fold_seen(TransactionId xid, Snapshot snapshot) {
    if (!TransactionIdIsValid(xid)) return true;
    // This transaction folded them (queue_set_counters): its own writes.
    if (TransactionIdIsCurrentTransactionId(xid)) return true;
    if (XidInMVCCSnapshot(xid, snapshot)) return false;
    return TransactionIdDidCommit(xid);
}

}  // namespace

std::vector<UnfoldedRow> deferred_unfolded(Snapshot snapshot,
                                           const std::optional<std::string>& queue) {
    std::vector<UnfoldedRow> rows;
    if (g_table == nullptr) return rows;
    Copied* copied = nullptr;
    int count = 0;
    pg_call([&] { copy_entries(queue ? queue->c_str() : nullptr, &copied, &count); });
    for (int i = 0; i < count; ++i) {
        const Copied& c = copied[i];
        const bool seen = pg_call([&] { return fold_seen(c.folded_xid, snapshot); });
        UnfoldedRow row;
        row.queue = c.key.queue;
        row.updated_at = c.updated_at;
        for (std::size_t k = 0; k < kColumns; ++k) {
            row.values[k] = c.pending[k];
            if (!seen) row.values[k] += c.folded[k];
        }
        row.mask = c.mask | (seen ? 0u : c.folded_mask);
        if (row.mask != 0) rows.push_back(std::move(row));
    }
    pg_call([&] { pfree(copied); });
    return rows;
}

std::vector<std::string> deferred_queues() {
    std::vector<std::string> names;
    if (g_table == nullptr) return names;
    Copied* copied = nullptr;
    int count = 0;
    pg_call([&] { copy_entries(nullptr, &copied, &count); });
    for (int i = 0; i < count; ++i) names.emplace_back(copied[i].key.queue);
    pg_call([&] { pfree(copied); });
    return names;
}

namespace {

enum class FoldState { kNone, kSeenByAll, kAborted, kRecent };

// The last fold of an entry, judged against `horizon` (every snapshot's xmin
// is at or after it). PostgreSQL calls: run inside pg_call.
FoldState fold_state(TransactionId xid, TransactionId horizon) {
    if (!TransactionIdIsValid(xid)) return FoldState::kNone;
    if (TransactionIdIsCurrentTransactionId(xid)) return FoldState::kRecent;
    if (TransactionIdIsInProgress(xid)) return FoldState::kRecent;
    if (!TransactionIdDidCommit(xid)) return FoldState::kAborted;
    return TransactionIdPrecedes(xid, horizon) ? FoldState::kSeenByAll : FoldState::kRecent;
}

}  // namespace

std::vector<core::CounterRow> deferred_take(const std::vector<std::string>& queues) {
    std::vector<core::CounterRow> rows;
    if (g_table == nullptr || queues.empty()) return rows;
    const int n = static_cast<int>(queues.size());
    // Plain data for the part under the lock.
    struct Taken {
        EntryKey key;
        bool taken;
        uint32 mask;
        int64 values[kColumns];
    };
    Taken* taken = nullptr;
    pg_call([&] { taken = static_cast<Taken*>(palloc0(sizeof(Taken) * n)); });
    for (int i = 0; i < n; ++i) taken[i].key = key_of(queues[i]);
    pg_call([&] {
        const TransactionId xid = GetCurrentTransactionId();
        const TransactionId horizon = GetOldestNonRemovableTransactionId(nullptr);
        // States of the previous folds, judged before the lock (they read
        // the commit log and the proc array).
        TransactionId* previous = static_cast<TransactionId*>(palloc(sizeof(TransactionId) * n));
        FoldState* states = static_cast<FoldState*>(palloc(sizeof(FoldState) * n));
        LWLockAcquire(g_control->lock, LW_SHARED);
        for (int i = 0; i < n; ++i) {
            auto* e = static_cast<Entry*>(hash_search(g_table, &taken[i].key, HASH_FIND, nullptr));
            previous[i] = e ? e->folded_xid : InvalidTransactionId;
        }
        LWLockRelease(g_control->lock);
        for (int i = 0; i < n; ++i) states[i] = fold_state(previous[i], horizon);
        LWLockAcquire(g_control->lock, LW_EXCLUSIVE);
        for (int i = 0; i < n; ++i) {
            auto* e = static_cast<Entry*>(hash_search(g_table, &taken[i].key, HASH_FIND, nullptr));
            // Folded again since (by another transaction): judged next time.
            if (e == nullptr || e->folded_xid != previous[i]) continue;
            if (states[i] == FoldState::kRecent) continue;
            SpinLockAcquire(&e->mutex);
            if (states[i] == FoldState::kAborted) {
                for (std::size_t k = 0; k < kColumns; ++k) e->pending[k] += e->folded[k];
                e->mask |= e->folded_mask;
            }
            e->folded_xid = InvalidTransactionId;
            e->folded_mask = 0;
            memset(e->folded, 0, sizeof(e->folded));
            if (e->mask != 0) {
                taken[i].taken = true;
                taken[i].mask = e->mask;
                memcpy(taken[i].values, e->pending, sizeof(e->pending));
                e->folded_xid = xid;
                e->folded_mask = e->mask;
                memcpy(e->folded, e->pending, sizeof(e->pending));
                e->mask = 0;
                memset(e->pending, 0, sizeof(e->pending));
            }
            const bool keep = used(*e);
            SpinLockRelease(&e->mutex);
            if (!keep) hash_search(g_table, &taken[i].key, HASH_REMOVE, nullptr);
        }
        LWLockRelease(g_control->lock);
        pfree(previous);
        pfree(states);
    });
    for (int i = 0; i < n; ++i) {
        if (!taken[i].taken) continue;
        core::CounterRow row;
        row.queue = taken[i].key.queue;
        for (std::size_t k = 0; k < kColumns; ++k)
            if (taken[i].mask & (1u << k)) row.deltas[k] = taken[i].values[k];
        rows.push_back(std::move(row));
    }
    pg_call([&] { pfree(taken); });
    return rows;
}

void deferred_discard(std::string_view queue) {
    if (g_table == nullptr) return;
    const EntryKey key = key_of(queue);
    pg_call([&] {
        LWLockAcquire(g_control->lock, LW_EXCLUSIVE);
        auto* e = static_cast<Entry*>(hash_search(g_table, &key, HASH_FIND, nullptr));
        if (e != nullptr && e->pins == 0) hash_search(g_table, &key, HASH_REMOVE, nullptr);
        LWLockRelease(g_control->lock);
    });
}

void deferred_discard_database() {
    if (g_table == nullptr) return;
    pg_call([&] {
        LWLockAcquire(g_control->lock, LW_EXCLUSIVE);
        HASH_SEQ_STATUS status;
        hash_seq_init(&status, g_table);
        // Removing the entry just returned is allowed during a scan.
        while (auto* e = static_cast<Entry*>(hash_seq_search(&status)))
            if (e->key.db == MyDatabaseId && e->pins == 0)
                hash_search(g_table, &e->key, HASH_REMOVE, nullptr);
        LWLockRelease(g_control->lock);
    });
}

bool deferred_recount_needed() {
    // Without the table every change was written to its row.
    if (g_table == nullptr) return false;
    bool needed = true;
    pg_call([&] {
        LWLockAcquire(g_control->lock, LW_SHARED);
        for (int i = 0; i < g_control->recounted_count; ++i)
            if (g_control->recounted[i] == MyDatabaseId) needed = false;
        LWLockRelease(g_control->lock);
    });
    return needed;
}

void deferred_recount_done() {
    if (g_table == nullptr) return;
    pg_call([&] {
        LWLockAcquire(g_control->lock, LW_EXCLUSIVE);
        bool known = false;
        for (int i = 0; i < g_control->recounted_count; ++i)
            known = known || g_control->recounted[i] == MyDatabaseId;
        // Full: the next start of a scheduler recounts again, which is harmless.
        if (!known && g_control->recounted_count < kRecountedDatabases)
            g_control->recounted[g_control->recounted_count++] = MyDatabaseId;
        LWLockRelease(g_control->lock);
    });
}

int deferred_entries_used() {
    if (g_table == nullptr) return 0;
    return pg_call([&] {
        LWLockAcquire(g_control->lock, LW_SHARED);
        const long n = hash_get_num_entries(g_table);
        LWLockRelease(g_control->lock);
        return static_cast<int>(n);
    });
}

}  // namespace fetchq::ops
