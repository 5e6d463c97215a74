#include "ops/shared_memory/pick_start.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ops/shared_memory/queue_slots.hpp"
#include "ops/config/settings.hpp"
#include "pg/guard.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "utils/lsyscache.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
}

namespace fetchq::ops {

namespace {

constexpr uint32 kSlots = 1024;

struct StartSlot {
    slock_t mutex;
    Oid database;
    char queue[64];  // the queue whose start `state` holds
    core::PickStart state;
};

StartSlot* g_slots = nullptr;

// This transaction's changes, by queue: to publish after its commit, and the
// queues whose pending documents it locked, to publish after its abort.
std::map<std::string, core::PickableChange, std::less<>> g_at_commit;
std::set<std::string, std::less<>> g_locked;

bool owns(const StartSlot& slot, std::string_view queue) {
    return slot.database == MyDatabaseId && queue.size() < sizeof(slot.queue) &&
           queue.compare(slot.queue) == 0;
}

void set_owner(StartSlot& slot, std::string_view queue) {
    slot.database = MyDatabaseId;
    const std::size_t n = std::min(queue.size(), sizeof(slot.queue) - 1);
    memcpy(slot.queue, queue.data(), n);
    slot.queue[n] = '\0';
}

StartSlot& slot_of(std::string_view queue) { return g_slots[queue_slot(queue, kSlots)]; }

void publish(std::string_view queue, const core::PickableChange& change) {
    StartSlot& slot = slot_of(queue);
    const uint32 hash = queue_hash(queue);
    SpinLockAcquire(&slot.mutex);
    core::record_change(slot.state, owns(slot, queue), hash, change);
    SpinLockRelease(&slot.mutex);
}

// The readings of this backend not finished yet (slot, reader), ended at
// exit if an error skipped their finish (a FATAL error unwinds nothing).
struct OpenReading {
    uint32 slot;
    int reader;
};
std::vector<OpenReading> g_open;

void forget_open(uint32 slot, int reader) {
    for (auto it = g_open.begin(); it != g_open.end(); ++it)
        if (it->slot == slot && it->reader == reader) {
            g_open.erase(it);
            return;
        }
}

void end_open_readings(int, Datum) {
    pg::callback_entry(LOG, "pick_start_exit", [] {
        for (const OpenReading& r : g_open) {
            StartSlot& slot = g_slots[r.slot];
            SpinLockAcquire(&slot.mutex);
            slot.state.readers[r.reader] = core::PickReader{};
            SpinLockRelease(&slot.mutex);
        }
        g_open.clear();
    });
}

void ensure_exit_hook() {
    static bool registered = false;
    if (registered) return;
    before_shmem_exit(end_open_readings, 0);
    registered = true;
}

void note(std::string_view queue, const core::PickableChange& change) {
    if (g_slots == nullptr) return;
    auto it = g_at_commit.find(queue);
    if (it == g_at_commit.end())
        g_at_commit.emplace(std::string(queue), change);
    else
        it->second = core::merged(it->second, change);
}

}  // namespace

Size pick_start_shmem_size() { return mul_size(sizeof(StartSlot), kSlots); }

void pick_start_shmem_init() {
    bool found = false;
    g_slots = static_cast<StartSlot*>(
        ShmemInitStruct("fetchq pick start", pick_start_shmem_size(), &found));
    if (found) return;
    for (uint32 i = 0; i < kSlots; ++i) {
        SpinLockInit(&g_slots[i].mutex);
        g_slots[i].database = InvalidOid;
        g_slots[i].queue[0] = '\0';
        g_slots[i].state = core::PickStart{};
    }
}

void note_pickable_at(std::string_view queue, int32_t version, const core::PickKey& earliest) {
    note(queue, core::PickableChange{true, version, earliest});
}

void note_pickable_anywhere(std::string_view queue) { note(queue, core::PickableChange{}); }

void note_truncate(const TruncateStmt* stmt) {
    if (g_slots == nullptr) return;
    constexpr std::size_t kSuffix = sizeof("__docs") - 1;
    // The names of the documents tables it names (palloc'd).
    List* tables = pg::pg_call([&] {
        List* found = NIL;
        const Oid data = get_namespace_oid("fetchq_data", true);
        ListCell* cell;
        foreach (cell, stmt->relations) {
            const Oid relid = RangeVarGetRelid(lfirst_node(RangeVar, cell), NoLock, true);
            if (!OidIsValid(relid) || !OidIsValid(data) || get_rel_namespace(relid) != data)
                continue;
            char* name = get_rel_name(relid);
            const std::size_t len = name ? strlen(name) : 0;
            if (len > kSuffix && strcmp(name + len - kSuffix, "__docs") == 0)
                found = lappend(found, name);
        }
        return found;
    });
    ListCell* cell;
    foreach (cell, tables) {
        const std::string_view name(static_cast<const char*>(lfirst(cell)));
        note_pickable_anywhere(name.substr(0, name.size() - kSuffix));
    }
}

void note_pending_locked(std::string_view queue) {
    if (g_slots != nullptr && g_locked.find(queue) == g_locked.end()) g_locked.emplace(queue);
}

void publish_pick_changes_at_commit() {
    for (const auto& [queue, change] : g_at_commit) publish(queue, change);
    forget_pick_changes();
}

void publish_pick_changes_at_abort() {
    for (const std::string& queue : g_locked) publish(queue, core::PickableChange{});
    forget_pick_changes();
}

// The documents locked so far may be pending again at the commit.
void pick_changes_at_subabort() {
    for (const std::string& queue : g_locked) note_pickable_anywhere(queue);
}

void forget_pick_changes() {
    g_at_commit.clear();
    g_locked.clear();
}

// A start older than fetchq.pick_start_max_age is not used: a pick from the
// beginning finds what no change reported (plain SQL on the queue's table, a
// prepared transaction's outcome) and sets a new one.
PickStartReading::PickStartReading(std::string_view queue, int32_t version) : version_(version) {
    const int max_age_ms = settings.pick_start_max_age_ms;
    if (g_slots == nullptr || settings.pick_start_threshold < 0 ||
        g_at_commit.find(queue) != g_at_commit.end())
        return;
    const int64 now = GetCurrentTimestamp();
    const int64 max_age = max_age_ms < 0 ? PG_INT64_MAX : int64{max_age_ms} * 1000;
    slot_ = queue_slot(queue, kSlots);
    StartSlot& slot = g_slots[slot_];
    ensure_exit_hook();
    SpinLockAcquire(&slot.mutex);
    seen_ =
        core::begin_pick(slot.state, owns(slot, queue), queue_hash(queue), version, now, max_age);
    if (seen_.reader >= 0) g_open.push_back({slot_, seen_.reader});
    SpinLockRelease(&slot.mutex);
    open_ = seen_.reader >= 0;
    owner_.assign(queue.data(), queue.size());
}

PickStartReading::~PickStartReading() {
    if (open_) finish(core::PickOutcome{});
}

void PickStartReading::finish(const core::PickOutcome& given) {
    if (!open_) return;
    open_ = false;
    core::PickOutcome outcome = given;
    // A snapshot taken before the start was read (REPEATABLE READ,
    // SERIALIZABLE) may have missed changes published before the reading.
    if (IsolationUsesXactSnapshot()) outcome.usable = false;
    const int64 now = GetCurrentTimestamp();
    StartSlot& slot = g_slots[slot_];
    SpinLockAcquire(&slot.mutex);
    if (core::finish_pick(slot.state, owns(slot, owner_), seen_, version_, outcome, now))
        set_owner(slot, owner_);
    SpinLockRelease(&slot.mutex);
    forget_open(slot_, seen_.reader);
}

}  // namespace fetchq::ops
