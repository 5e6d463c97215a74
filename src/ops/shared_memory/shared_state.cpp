#include "ops/shared_memory/shared_state.hpp"

#include "pg/guard.hpp"

#include "ops/shared_memory/pick_start.hpp"
#include "ops/shared_memory/pick_wake.hpp"
#include "ops/shared_memory/queue_activity.hpp"
#include "ops/config/settings.hpp"
#include "ops/counters/deferred.hpp"

extern "C" {
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/shmem.h"
}

namespace fetchq::ops {
namespace {

SharedState* g_shared = nullptr;
shmem_request_hook_type prev_shmem_request = nullptr;
shmem_startup_hook_type prev_shmem_startup = nullptr;

Size shared_size() {
    return add_size(offsetof(SharedState, slots),
                    mul_size(sizeof(DbSlot), static_cast<Size>(settings.max_databases)));
}

void request_shmem() {
    RequestAddinShmemSpace(shared_size());
    RequestAddinShmemSpace(pick_wake_shmem_size());
    RequestAddinShmemSpace(pick_start_shmem_size());
    RequestAddinShmemSpace(queue_activity_shmem_size());
    RequestNamedLWLockTranche("fetchq", 1);
    deferred_shmem_request();
}

void on_shmem_request() {
    if (prev_shmem_request) prev_shmem_request();
    pg::callback_entry(ERROR, "shmem_request", request_shmem);
}

void init_shmem();

void on_shmem_startup() {
    if (prev_shmem_startup) prev_shmem_startup();
    pg::callback_entry(ERROR, "shmem_startup", init_shmem);
}

void init_shmem() {
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found = false;
    g_shared = static_cast<SharedState*>(ShmemInitStruct("fetchq", shared_size(), &found));
    if (!found) {
        memset(g_shared, 0, shared_size());
        g_shared->lock = &(GetNamedLWLockTranche("fetchq"))->lock;
        g_shared->nslots = settings.max_databases;
    }
    pick_wake_shmem_init();
    pick_start_shmem_init();
    queue_activity_shmem_init();
    deferred_shmem_init();
    LWLockRelease(AddinShmemInitLock);
}

}  // namespace

const char* task_name(int task) {
    switch (task) {
        case kTaskPromote:
            return "promote";
        case kTaskOrphans:
            return "orphans";
        case kTaskRetention:
            return "retention";
        case kTaskSnapshot:
            return "snapshot";
        case kTaskExpire:
            return "expire";
        case kTaskSessions:
            return "sessions";
        case kTaskVacuum:
            return "vacuum";
        case kTaskPurge:
            return "purge";
        case kTaskStreams:
            return "streams";
        case kTaskSchedules:
            return "schedules";
        case kTaskOrigins:
            return "origins";
        default:
            return "unknown";
    }
}

const char* slot_state_name(int state) {
    switch (state) {
        case kSlotStarting:
            return "starting";
        case kSlotRunning:
            return "running";
        case kSlotNoExtension:
            return "no extension";
        case kSlotBackoff:
            return "backoff";
        case kSlotPaused:
            return "paused";
        default:
            return "free";
    }
}

SharedState* shared() { return g_shared; }

void request_shared_memory() {
    prev_shmem_request = shmem_request_hook;
    shmem_request_hook = on_shmem_request;
}

void install_shmem_hooks() {
    prev_shmem_startup = shmem_startup_hook;
    shmem_startup_hook = on_shmem_startup;
}

DbSlot* find_slot(Oid dboid) {
    if (g_shared == nullptr) return nullptr;
    for (int i = 0; i < g_shared->nslots; ++i)
        if (g_shared->slots[i].state != kSlotFree && g_shared->slots[i].dboid == dboid)
            return &g_shared->slots[i];
    return nullptr;
}

void wake_launcher(bool recheck) {
    if (g_shared == nullptr) return;
    if (recheck) g_shared->recheck = true;
    Latch* latch = g_shared->launcher_latch;
    if (latch != nullptr) SetLatch(latch);
}

namespace {
bool g_wake_at_commit = false;
}

void wake_launcher_at_commit() { g_wake_at_commit = true; }

void at_commit() {
    if (g_wake_at_commit) wake_launcher(true);
    g_wake_at_commit = false;
}

void at_abort() { g_wake_at_commit = false; }

}  // namespace fetchq::ops
