#include "ops/shared_memory/session_end.hpp"

#include "pg/guard.hpp"
#include "ops/shared_memory/shared_state.hpp"

extern "C" {
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/backend_status.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

bool g_watching = false;

int64_t key_of(int pid, TimestampTz started) {
    // Low 32 bits: start time in milliseconds, wrapped; enough to tell apart
    // two sessions that had the same pid.
    const auto ms = static_cast<uint64_t>(started / 1000);
    return static_cast<int64_t>((static_cast<uint64_t>(pid) << 32) | (ms & 0xFFFFFFFFu));
}

void tell_schedulers() {
    SharedState* s = shared();
    if (s == nullptr) return;
    for (int i = 0; i < s->nslots; ++i) {
        DbSlot* slot = &s->slots[i];
        if (slot->state == kSlotFree || slot->dboid != MyDatabaseId) continue;
        const uint32 at =
            pg_atomic_fetch_add_u32(&slot->ended_next, 1) % lengthof(slot->ended_keys);
        pg_atomic_write_u64(&slot->ended_keys[at], static_cast<uint64>(session_key()));
        pg_atomic_write_u32(&slot->sessions_ended, 1);
        Latch* latch = slot->latch;
        if (latch != nullptr) SetLatch(latch);
    }
}

// During exit a fault is only logged: the scheduler's periodic check finds
// what this session owned anyway.
void on_session_exit(int, Datum) { pg::callback_entry(LOG, "session_exit", tell_schedulers); }

}  // namespace

int64_t session_key() { return key_of(MyProcPid, MyStartTimestamp); }

void watch_session_end() {
    if (g_watching) return;
    pg::pg_call([] { before_shmem_exit(on_session_exit, 0); });
    g_watching = true;
}

std::vector<int64_t> live_session_keys() {
    // pgstat's list of backends is taken once per transaction: a session
    // that connected since must not look dead.
    pg::pg_call([] { pgstat_clear_backend_activity_snapshot(); });
    std::vector<int64_t> keys;
    std::vector<int64_t> ended;
    for (SharedState* s = shared(); s != nullptr; s = nullptr) {
        for (int i = 0; i < s->nslots; ++i) {
            DbSlot* slot = &s->slots[i];
            if (slot->state == kSlotFree || slot->dboid != MyDatabaseId) continue;
            for (auto& k : slot->ended_keys)
                ended.push_back(static_cast<int64_t>(pg_atomic_read_u64(&k)));
        }
    }
    const int n = pg::pg_call([] { return pgstat_fetch_stat_numbackends(); });
    keys.reserve(static_cast<size_t>(n));
    for (int i = 1; i <= n; ++i) {
        LocalPgBackendStatus* entry =
            pg::pg_call([&] { return pgstat_fetch_stat_local_beentry(i); });
        if (entry == nullptr || entry->backendStatus.st_procpid <= 0) continue;
        const int64_t key =
            key_of(entry->backendStatus.st_procpid, entry->backendStatus.st_proc_start_timestamp);
        bool gone = false;
        for (int64_t e : ended) gone = gone || e == key;
        if (!gone) keys.push_back(key);
    }
    return keys;
}

Datum session_key_array(const std::vector<int64_t>& keys) {
    const int n = static_cast<int>(keys.size());
    const int64_t* data = keys.data();
    return pg::pg_call([&] {
        Datum* elems = static_cast<Datum*>(palloc(sizeof(Datum) * (n > 0 ? n : 1)));
        for (int i = 0; i < n; ++i) elems[i] = Int64GetDatum(data[i]);
        return PointerGetDatum(
            construct_array(elems, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
    });
}

}  // namespace fetchq::ops
